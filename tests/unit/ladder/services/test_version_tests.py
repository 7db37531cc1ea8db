"""Candidate versions on the service: a candidate is validated, tested in duplicate sets
against the active version, promoted on `better` (or only reported), all unranked (a
real database of each kind, no worker: the matches are recorded by hand)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from ladder.broker.announce import TEST_QUEUE
from ladder.errors import Conflict, Forbidden
from ladder.models import (
    HeadToHead,
    Match,
    MatchState,
    Rating,
    RatingHistory,
    VersionState,
    VersionTest,
    VersionTestMatch,
    VersionTestState,
    utcnow,
)
from ladder.services import bots, matches, triage, version_tests
from ladder.tournaments.sprt import BETTER, NOT_BETTER
from tests.unit.ladder.conftest import make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for

SOURCE = b"def act(view, legal):\n    return legal[0]\n"


@pytest.fixture
def house(session, config):
    """The toy game's house greedy and search bots."""
    demo = make_user(session, "demo")
    return [make_active_bot(session, config, demo, name=n) for n in ("greedy", "search")]


def upload_candidate(session, config, user, promote=True, name="b"):
    version = bots.upload_version(
        session, config, user, "toyrace", name, "bot.py", SOURCE, candidate=True, promote=promote
    )
    version = bots.finish_validation(session, version.id, True, "passed")
    session.commit()
    return version


def matches_of(session, test_id, state=None):
    query = (
        select(Match)
        .join(VersionTestMatch, VersionTestMatch.match_id == Match.id)
        .where(VersionTestMatch.test_id == test_id)
        .order_by(Match.id)
    )
    if state:
        query = query.where(Match.state == state)
    return session.scalars(query).all()


def play_test(session, config, test_id, new_wins=True, limit=400):
    """Record every queued match of the test (NEW ahead of OLD, or behind), advancing
    after each as the worker does, until the test is over."""
    test = session.get(VersionTest, test_id)
    for _ in range(limit):
        version_tests.advance(session, config, test_id)
        session.refresh(test)
        if test.over:
            return test
        queued = matches_of(session, test_id, MatchState.QUEUED)
        assert queued, "a running test always has a match to play"
        for match in queued:
            ranks = ranks_for(match, test, new_wins)
            matches.record_match(session, config, match.id, outcome_for(match, ranks))
            session.commit()
    raise AssertionError("the test never ended")


def ranks_for(match, test, new_wins):
    """NEW first and OLD last (or the other way round), the opponents between."""
    order = sorted(
        match.seats,
        key=lambda s: (
            s.version_id != (test.version_id if new_wins else test.baseline_id),
            s.version_id == (test.baseline_id if new_wins else test.version_id),
        ),
    )
    rank_of = {s.seat: i + 1 for i, s in enumerate(order)}
    return [rank_of[s.seat] for s in match.seats]


def test_a_better_candidate_is_tested_unranked_and_promoted(session, config, alice, house):
    old = make_active_bot(session, config, alice)
    before = session.get(Rating, old.id)
    games, mu = before.games, before.mu
    candidate = upload_candidate(session, config, alice)
    assert candidate.state == VersionState.CANDIDATE
    test = session.scalar(select(VersionTest).where(VersionTest.version_id == candidate.id))
    assert test.state == VersionTestState.RUNNING and test.baseline_id == old.id
    assert session.get(Rating, candidate.id) is None  # not on the ladder while tested

    first = version_tests.advance(session, config, test.id)
    session.refresh(test)
    assert test.table_size == 4 and sorted(test.opponents) == sorted(v.id for v in house)
    assert first and all(session.get(Match, m).queue == TEST_QUEUE for m in first)
    assert all(not session.get(Match, m).ranked for m in first)

    test = play_test(session, config, test.id, new_wins=True)
    assert test.state == VersionTestState.FINISHED and test.verdict == BETTER
    assert test.report["verdict"] == BETTER and test.report["sets"] == len(test.history)
    assert test.report["faults"] == {"new": 0, "old": 0}
    assert test.report["mean_rank"] == {"new": 1.0, "old": 4.0}
    assert test.history[-1][0] >= test.report["bounds"][1]  # the last LLR crossed the top
    session.refresh(candidate)
    session.refresh(old)
    assert candidate.state == VersionState.ACTIVE and old.state == VersionState.RETIRED
    assert test.promoted_at is not None and "promoted" in test.note
    # Ratings untouched by the test: the old version's games and skill, no history rows.
    after = session.get(Rating, old.id)
    assert (after.games, after.mu) == (games, mu)
    match_ids = [m.id for m in matches_of(session, test.id)]
    assert not session.scalar(
        select(func.count()).select_from(RatingHistory).where(RatingHistory.match_id.in_(match_ids))
    )
    # The promoted version starts from its predecessor's μ, with no games yet.
    assert session.get(Rating, candidate.id).mu == pytest.approx(mu)
    # Test matches are not meetings on the ladder: no head-to-head rows.
    assert not session.scalar(select(func.count()).select_from(HeadToHead))


def test_a_worse_candidate_is_not_better_and_the_active_version_stays(
    session, config, alice, house
):
    old = make_active_bot(session, config, alice)
    candidate = upload_candidate(session, config, alice)
    test = session.scalar(select(VersionTest).where(VersionTest.version_id == candidate.id))
    test = play_test(session, config, test.id, new_wins=False)
    assert test.verdict == NOT_BETTER and test.promoted_at is None
    session.refresh(candidate)
    session.refresh(old)
    assert candidate.state == VersionState.CANDIDATE and old.state == VersionState.ACTIVE
    assert not matches_of(session, test.id, MatchState.QUEUED)  # nothing left to play
    # The owner may still promote by hand; nobody else may.
    bob = make_user(session, "bob")
    with pytest.raises(Forbidden):
        version_tests.promote(session, bob, candidate.id)
    version_tests.promote(session, alice, candidate.id)
    session.commit()
    session.refresh(old)
    assert candidate.state == VersionState.ACTIVE and old.state == VersionState.RETIRED
    with pytest.raises(Conflict):
        version_tests.promote(session, alice, candidate.id)


def test_report_only_keeps_a_better_candidate_waiting(session, config, alice, house):
    old = make_active_bot(session, config, alice)
    candidate = upload_candidate(session, config, alice, promote=False)
    test = session.scalar(select(VersionTest).where(VersionTest.version_id == candidate.id))
    test = play_test(session, config, test.id, new_wins=True)
    assert test.verdict == BETTER and test.promoted_at is None
    session.refresh(old)
    assert old.state == VersionState.ACTIVE and candidate.state == VersionState.CANDIDATE


def test_tests_share_the_workers_within_test_share(session, config, alice, bob, house):
    config.update({"TEST_SHARE": 0.1, "LADDER_IN_FLIGHT": 10})  # 1 game: one match at once
    cap = version_tests.share(config)
    make_active_bot(session, config, alice)
    make_active_bot(session, config, bob, name="c")
    first = upload_candidate(session, config, alice)
    second = upload_candidate(session, config, bob, name="c")
    ids = [
        session.scalar(select(VersionTest.id).where(VersionTest.version_id == v.id))
        for v in (first, second)
    ]
    made = version_tests.advance_running(session, config)
    in_flight = session.scalar(
        select(func.count(Match.id)).where(Match.queue == TEST_QUEUE, Match.state == "queued")
    )
    assert in_flight == cap == sum(len(m) for m in made.values())
    assert set(made) <= set(ids)
    # Nothing more while the room is taken, however often it is asked.
    assert version_tests.advance_running(session, config) == {}


def test_a_candidate_without_an_active_version_goes_on_the_ladder(session, config, alice):
    candidate = upload_candidate(session, config, alice)
    assert candidate.state == VersionState.ACTIVE
    test = session.scalar(select(VersionTest).where(VersionTest.version_id == candidate.id))
    assert test.state == VersionTestState.CANCELLED and "nothing to test" in test.note


def test_a_candidate_that_fails_validation_ends_its_test(session, config, alice):
    make_active_bot(session, config, alice)
    version = bots.upload_version(
        session, config, alice, "toyrace", "b", "bot.py", SOURCE, candidate=True
    )
    bots.finish_validation(session, version.id, False, "crashed")
    session.commit()
    test = session.scalar(select(VersionTest).where(VersionTest.version_id == version.id))
    assert test.state == VersionTestState.CANCELLED and "validation" in test.note


def test_retiring_the_bot_stops_its_test_and_fails_what_is_queued(session, config, alice, house):
    make_active_bot(session, config, alice)
    candidate = upload_candidate(session, config, alice)
    test = session.scalar(select(VersionTest).where(VersionTest.version_id == candidate.id))
    assert version_tests.advance(session, config, test.id)
    bots.retire_bot(session, alice, candidate.bot_id)
    session.commit()
    version_tests.advance(session, config, test.id)
    session.refresh(test)
    assert test.state == VersionTestState.CANCELLED and "retired" in test.note
    states = {m.state for m in matches_of(session, test.id)}
    assert states == {MatchState.FAILED}


def test_a_failed_match_voids_its_set_and_the_test_goes_on(session, config, alice, house):
    config.update({"TEST_SHARE": 1.0})  # room for both sets under way at once
    make_active_bot(session, config, alice)
    candidate = upload_candidate(session, config, alice)
    test = session.scalar(select(VersionTest).where(VersionTest.version_id == candidate.id))
    version_tests.advance(session, config, test.id)
    placed = session.execute(
        select(VersionTestMatch.set_no, Match)
        .join(Match, Match.id == VersionTestMatch.match_id)
        .where(VersionTestMatch.test_id == test.id)
    ).all()
    first = next(m for set_no, m in placed if set_no == 0)
    second = next(m for set_no, m in placed if set_no == 1)
    matches.fail_match(session, first.id, "the host died")
    void = outcome_for(second, list(range(1, second.players + 1)), ["killed"] * second.players)
    void.update(rated=False, unrated_reason="every seat was killed: the host ran out of memory")
    matches.record_match(session, config, second.id, void)
    session.commit()
    test = play_test(session, config, test.id, new_wins=True)
    assert test.void_sets == 2 and test.verdict == BETTER
    assert test.report["faults"] == {"new": 0, "old": 0}  # the void set counts no fault
    by_set: dict[int, set] = {}
    for set_no, state, void in session.execute(
        select(VersionTestMatch.set_no, Match.state, Match.unrated_reason)
        .join(Match, Match.id == VersionTestMatch.match_id)
        .where(VersionTestMatch.test_id == test.id)
    ):
        by_set.setdefault(set_no, set()).add("void" if void else state)
    played = [n for n, states in by_set.items() if states == {MatchState.FINISHED}]
    # Sets 0 and 1 were void and replaced; a set begun past the verdict is played but not
    # counted.
    assert 0 not in played and 1 not in played
    assert test.report["sets"] <= len(played) <= test.report["sets"] + 1


def test_a_candidate_that_faults_every_test_match_is_paused(session, config, alice, house):
    config.update({"PAUSE_AFTER_FAULTS": 3})
    make_active_bot(session, config, alice)
    candidate = upload_candidate(session, config, alice)
    test = session.scalar(select(VersionTest).where(VersionTest.version_id == candidate.id))
    for _ in range(3):
        version_tests.advance(session, config, test.id)
        match = matches_of(session, test.id, MatchState.QUEUED)[0]
        statuses = ["crash" if s.version_id == candidate.id else "ok" for s in match.seats]
        ok_seats = [i for i, s in enumerate(statuses) if s == "ok"]
        ranks = [ok_seats.index(i) + 1 if i in ok_seats else 4 for i in range(4)]
        matches.record_match(session, config, match.id, outcome_for(match, ranks, statuses))
        session.commit()
    session.refresh(candidate)
    assert candidate.paused_at is not None and "test matches" in candidate.paused_reason
    for match in matches_of(session, test.id, MatchState.QUEUED):
        matches.fail_match(session, match.id, "cleared for the check")
    session.commit()
    assert version_tests.advance(session, config, test.id) == []  # paused: no new set
    triage.resume(session, alice, candidate.id)
    session.commit()
    assert version_tests.advance(session, config, test.id)


def test_tests_wait_while_the_ladder_waits_and_they_had_their_share_of_time(
    session, config, alice, bob, house
):
    """TEST_SHARE of the play time: measured over the last SHARE_WINDOW_S from the
    matches' own start and finish times, in each database's arithmetic."""
    config.update({"TEST_SHARE": 0.25})
    old = make_active_bot(session, config, alice)
    other = make_active_bot(session, config, bob, name="c")
    candidate = upload_candidate(session, config, alice)
    now = utcnow()

    def played(queue: str, seconds: float, ranked: bool, state=MatchState.FINISHED):
        match = matches.create_match(
            session, config, "toyrace", [old.id, other.id], ranked=ranked, active_only=False
        )
        match.queue, match.state = queue, state
        match.started_at = now - timedelta(seconds=seconds + 5)
        match.finished_at = None if state == MatchState.RUNNING else now - timedelta(seconds=5)
        session.commit()
        return match

    played("celery", 30, ranked=True)
    played(TEST_QUEUE, 40, ranked=False, state=MatchState.RUNNING)  # 40 of 70 s so far
    # The ladder idle: the tests may have the workers.
    assert not version_tests.over_time_share(session, config, now)
    waiting = matches.create_match(session, config, "toyrace", [old.id, other.id], ranked=True)
    session.commit()
    # A ladder match waits, and tests took 57 % of the time: they wait too.
    assert version_tests.over_time_share(session, config, now)
    test_id = session.scalar(select(VersionTest.id).where(VersionTest.version_id == candidate.id))
    assert version_tests.advance(session, config, test_id) == []
    # Two more minutes of ladder play bring the tests to 40 / 190 s = 21 %: they go on.
    played("celery", 120, ranked=True)
    assert not version_tests.over_time_share(session, config, now)
    assert version_tests.advance(session, config, test_id)
    # Play older than the window is forgotten: later, only the test still running counts.
    later = now + timedelta(seconds=version_tests.SHARE_WINDOW_S + 60)
    assert waiting.state == MatchState.QUEUED
    assert version_tests.over_time_share(session, config, later)


def test_a_newer_active_version_is_never_replaced_by_a_candidate(session, config, alice, house):
    """v2 under test, then v3 uploaded plainly and made active: v2's test still ends, but
    neither its verdict nor its owner's hand may put it over v3."""
    make_active_bot(session, config, alice)
    candidate = upload_candidate(session, config, alice)
    newer = make_active_bot(session, config, alice)  # v3, active at once: v1 retired
    assert newer.number == 3 and newer.state == VersionState.ACTIVE
    with pytest.raises(Conflict, match="v3, a newer version, is active"):
        version_tests.promote(session, alice, candidate.id)
    test = session.scalar(select(VersionTest).where(VersionTest.version_id == candidate.id))
    test = play_test(session, config, test.id, new_wins=True)
    assert test.verdict == BETTER and test.promoted_at is None
    assert "no longer active" in test.note
    session.refresh(newer)
    assert newer.state == VersionState.ACTIVE and candidate.state == VersionState.CANDIDATE


def test_without_house_bots_the_test_is_played_heads_up(session, config, alice):
    make_active_bot(session, config, alice)
    candidate = upload_candidate(session, config, alice)
    test = session.scalar(select(VersionTest).where(VersionTest.version_id == candidate.id))
    test = play_test(session, config, test.id, new_wins=True)
    assert test.table_size == 2 and test.opponents == [] and test.verdict == BETTER
    assert all(m.players == 2 for m in matches_of(session, test.id))
