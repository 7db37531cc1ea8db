"""Reading candidates' tests: a test as pages and the API show it, a bot's past tests.

The figures are those `services.version_tests` kept on the test's row from the
sequential test's core (`SequentialTest.report()`, and the LLR after each set), so a
page never recounts the sets.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session, joinedload

from ladder.errors import NotFound
from ladder.models import IN_FLIGHT, BotVersion, Match, VersionTest, VersionTestMatch, valid_id
from ladder.queries.boards import iso
from ladder.tournaments.sprt import Hypotheses

BOT_TESTS = 20  # past tests a bot page lists


def test_of_version(session: Session, version_id: int) -> VersionTest:
    """The candidate's test; NotFound for a version that is not a candidate."""
    found = (
        session.scalar(
            select(VersionTest)
            .where(VersionTest.version_id == version_id)
            .options(joinedload(VersionTest.version), joinedload(VersionTest.baseline))
        )
        if valid_id(version_id)
        else None
    )
    if found is None:
        raise NotFound(f"version {version_id} is not a candidate: it has no test")
    return found


def test_of_match(session: Session, match_id: int) -> int | None:
    return session.scalar(
        select(VersionTestMatch.test_id).where(VersionTestMatch.match_id == match_id)
    )


def hypotheses(test: VersionTest) -> Hypotheses:
    """The hypotheses the test was frozen with."""
    return Hypotheses(test.s0, test.s1, test.alpha, test.beta, test.max_sets)


def _label(version: BotVersion | None) -> dict | None:
    if version is None:
        return None
    return {"id": version.id, "number": version.number, "label": version.label}


def test_detail(session: Session, test: VersionTest) -> dict:
    """Everything the test page and `GET /api/v1/versions/<id>/test` show."""
    report = test.report
    bounds = hypotheses(test).bounds
    in_flight = session.scalar(
        select(func.count(Match.id))
        .join(VersionTestMatch, VersionTestMatch.match_id == Match.id)
        .where(VersionTestMatch.test_id == test.id, Match.state.in_(IN_FLIGHT))
    )
    return {
        "id": test.id,
        "version_id": test.version_id,
        "version": _label(test.version),
        "baseline_id": test.baseline_id,
        "baseline": _label(test.baseline),
        "state": test.state,
        "verdict": test.verdict,
        "promote": test.promote,
        "paused": test.version.paused_at is not None,
        "table_size": test.table_size,
        "opponents": list(test.opponents),
        "hypotheses": {
            "s0": test.s0,
            "s1": test.s1,
            "alpha": test.alpha,
            "beta": test.beta,
            "max_sets": test.max_sets,
        },
        "sets": report.get("sets", 0),
        "matches": report.get("matches", 0),
        "in_flight": in_flight or 0,
        "void_sets": test.void_sets,
        "llr": report.get("llr", 0.0),
        "bounds": [round(b, 4) for b in bounds],
        "score": report.get("score"),
        "interval": report.get("interval"),
        "mean_rank": report.get("mean_rank", {"new": None, "old": None}),
        "faults": report.get("faults", {"new": 0, "old": 0}),
        "history": [
            {"set": i + 1, "llr": llr, "score": score}
            for i, (llr, score) in enumerate(test.history)
        ],
        "note": test.note,
        "created_at": iso(test.created_at),
        "started_at": iso(test.started_at),
        "finished_at": iso(test.finished_at),
        "promoted_at": iso(test.promoted_at),
    }


def bot_tests(session: Session, bot_id: int) -> list[dict]:
    """The bot's tests, newest first: a changelog with evidence."""
    tests = session.scalars(
        select(VersionTest)
        .where(VersionTest.bot_id == bot_id)
        .options(joinedload(VersionTest.version), joinedload(VersionTest.baseline))
        .order_by(VersionTest.id.desc())
        .limit(BOT_TESTS)
    ).all()
    return [
        {
            "version": test.version,
            "baseline": test.baseline,
            **candidate_test_facts(test),
            "at": iso(test.finished_at or test.started_at or test.created_at),
        }
        for test in tests
    ]


def candidate_test_facts(test: VersionTest) -> dict:
    """A candidate's test as the bot page's table of tests shows it (and `/me`)."""
    return {
        "state": test.state,
        "verdict": test.verdict,
        "sets": test.report.get("sets", 0),
        "matches": test.report.get("matches", 0),
        "score": test.report.get("score"),
        "note": test.note,
        "promoted": test.promoted_at is not None,
    }
