"""The re-solve of a game's history (`services.resolve`, `ranking.through_time`): what it
stores equals what trueskillthroughtime gives when called by hand on the same matches;
it leaves out what the online rating left out; the window; the command, the task and
beat's entry; the reads beside the online rating (`queries.resolved`)."""

from __future__ import annotations

from datetime import date

import pytest
import trueskillthroughtime as ttt
from click.testing import CliRunner
from sqlalchemy import select

from ladder.cli import main
from ladder.errors import ServiceError
from ladder.jobs import tasks
from ladder.models import Match, MatchSeat, ResolvedRating, ResolveRun
from ladder.queries import resolved
from ladder.ranking import through_time
from ladder.ranking.ratings import Skill
from ladder.services import matches, resolve
from tests.unit.ladder.conftest import make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for

# Tables of the small known history: seats (bot letters) and their ranks; `x` marks a
# faulted seat (it ranks last, as the runner ranks it). Ties share a rank.
HISTORY = [
    ("abc", [1, 2, 3]),
    ("bd", [1, 2]),
    ("acd", [2, 1, 3]),
    ("abcd", [1, 1, 3, 4]),
    ("cd", [1, 2]),
    ("ab", [2, 1]),
    ("bcd", [1, 2, 3]),
    ("ad", [1, 1]),
    ("abcd", [4, 1, 2, 3]),
    ("ac", [1, 2]),
    ("bcd", [2, 1, 3]),
    ("abd", [1, 3, 2]),
]
FAULTED = {(6, 2)}  # (match, seat): that seat faulted (ranked last, 3 of 3)


def by_hand(rows, priors, gamma=0.05):
    """TrueSkill Through Time as its package is called by hand: rows are (versions,
    ranks); priors version -> (μ, σ). Each version's (μ, σ) after its last match.

    Teams go in finishing order: the package (1.1.0) gives a free-for-all of three or
    more teams in another order each other's updates (see `through_time.history_inputs`).
    """
    seated = [sorted(zip(ranks, versions, strict=True)) for versions, ranks in rows]
    history = ttt.History(
        composition=[[[v] for _, v in seats] for seats in seated],
        results=[[-r for r, _ in seats] for seats in seated],
        priors={
            v: ttt.Player(ttt.Gaussian(mu, sigma), 25 / 6, gamma)
            for v, (mu, sigma) in priors.items()
        },
        mu=25.0,
        sigma=25 / 3,
        beta=25 / 6,
        gamma=gamma,
        p_draw=0.10,
    )
    history.convergence(epsilon=0.01, iterations=6, verbose=False)
    return {v: (c[-1][1].mu, c[-1][1].sigma) for v, c in history.learning_curves().items()}


def test_the_pure_solve_equals_the_package_by_hand():
    letters = {c: i + 1 for i, c in enumerate("abcd")}
    rows = [(tuple(letters[c] for c in seats), ranks) for seats, ranks in HISTORY]
    fresh = Skill()
    history = [
        through_time.RatedMatch(i + 1, date(2026, 1, 1 + i // 5), v, tuple(r), (fresh,) * len(v))
        for i, (v, r) in enumerate(rows)
    ]
    solution = through_time.solve(history, gamma=0.05)
    expected = by_hand(rows, dict.fromkeys(letters.values(), (25.0, 25 / 3)))
    assert set(solution.versions) == set(expected)
    for version, (mu, sigma) in expected.items():
        assert solution.versions[version].mu == pytest.approx(mu, abs=1e-9)
        assert solution.versions[version].sigma == pytest.approx(sigma, abs=1e-9)
    # A curve has a point per day played, the last one the rating after the last match.
    curve = solution.versions[letters["a"]].curve
    assert [day for day, _, _ in curve] == [date(2026, 1, 1), date(2026, 1, 2), date(2026, 1, 3)]
    assert curve[-1][1:] == (solution.versions[letters["a"]].mu, solution.versions[1].sigma)
    assert 1 <= solution.iterations <= through_time.ITERATIONS


def test_the_seat_order_of_a_match_does_not_matter():
    # Ranked 3, 1, 4, 2 in seat order: the winner is version 2, the last version 3.
    fresh = (Skill(),) * 4
    seats = through_time.RatedMatch(1, date(2026, 1, 1), (1, 2, 3, 4), (3, 1, 4, 2), fresh)
    ordered = through_time.RatedMatch(1, date(2026, 1, 1), (2, 4, 1, 3), (1, 2, 3, 4), fresh)
    found = through_time.solve([seats], gamma=0.05).versions
    assert found == through_time.solve([ordered], gamma=0.05).versions
    assert [v for v in sorted(found, key=lambda v: -found[v].mu)] == [2, 4, 1, 3]


@pytest.mark.parametrize(
    "match, message",
    [
        (((1,), (1,)), "2 or more"),
        (((1, 1), (1, 2)), "two seats"),
        (((1, 2), (1, 3)), "ranks are 1 to 2"),
        (((1, 2), (1,)), "must agree"),
    ],
)
def test_the_pure_solve_refuses_a_bad_match(match, message):
    versions, ranks = match
    bad = through_time.RatedMatch(9, date(2026, 1, 1), versions, ranks, (Skill(),) * len(versions))
    with pytest.raises(ValueError, match=f"match 9: .*{message}"):
        through_time.solve([bad], gamma=0.05)


def test_thin_keeps_the_ends_and_bounds_the_points():
    assert through_time.thin(tuple(range(5)), 10) == tuple(range(5))
    assert through_time.thin(tuple(range(101)), 5) == (0, 25, 50, 75, 100)


@pytest.fixture
def ladder(session, config):
    """Four bots of four owners with the known history recorded as rated toyrace matches
    (plus matches the online rating left out), and the seats as the ladder stored them."""
    versions = {
        c: make_active_bot(session, config, make_user(session, f"owner-{c}"), name=c)
        for c in "abcd"
    }
    ids = []
    for i, (seats, ranks) in enumerate(HISTORY):
        statuses = ["crash" if (i, s) in FAULTED else "ok" for s in range(len(seats))]
        match = matches.create_match(
            session, config, "toyrace", [versions[c].id for c in seats], ranked=True
        )
        matches.record_match(session, config, match.id, outcome_for(match, ranks, statuses))
        ids.append(match.id)
        # Left out by the online rating, so by the re-solve: an unranked match ...
        if i == 3:
            other = matches.create_match(
                session, config, "toyrace", [versions["a"].id, versions["b"].id], ranked=False
            )
            matches.record_match(session, config, other.id, outcome_for(other, [2, 1]))
    session.commit()
    return versions, ids


def stored_rows(session, ids):
    """(versions, ranks) of the recorded matches, and each version's first prior, read
    back from the seats (what the online rating stored)."""
    rows, priors = [], {}
    for match_id in ids:
        seats = session.scalars(
            select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)
        ).all()
        rows.append((tuple(s.version_id for s in seats), [s.rank for s in seats]))
        for s in seats:
            priors.setdefault(s.version_id, (s.mu_before, s.sigma_before))
    return rows, priors


def test_the_service_stores_what_the_package_gives(session, config, ladder):
    versions, ids = ladder
    rows, priors = stored_rows(session, ids)
    assert rows[6][1] == [1, 2, 3]  # the faulted seat ranks last, as the online rating saw it
    report = resolve.resolve_game(session, config, "toyrace")
    session.commit()
    assert (report.matches, report.rated_matches, report.versions) == (12, 12, 4)
    assert not report.windowed
    expected = by_hand(rows, priors)
    stored = {r.version_id: r for r in session.scalars(select(ResolvedRating))}
    assert set(stored) == set(expected) == {v.id for v in versions.values()}
    for version, (mu, sigma) in expected.items():
        row = stored[version]
        assert (row.mu, row.sigma) == pytest.approx((mu, sigma), abs=1e-9)
        assert row.skill == pytest.approx(mu - 3 * sigma)
        assert row.game == "toyrace"
    assert stored[versions["a"].id].matches == sum("a" in seats for seats, _ in HISTORY)
    run = session.get(ResolveRun, "toyrace")
    assert (run.matches, run.rated_matches, run.first_match_id) == (12, 12, ids[0])
    # Run again: replaced, not added to.
    resolve.resolve_game(session, config, "toyrace")
    session.commit()
    assert len(session.scalars(select(ResolvedRating)).all()) == 4


def test_a_match_of_a_replaced_version_is_left_out(session, config, ladder):
    versions, _ids = ladder
    match = matches.create_match(
        session, config, "toyrace", [versions["a"].id, versions["b"].id], ranked=True
    )
    newer = make_active_bot(session, config, versions["a"].bot.owner, name="a")  # replaces a
    matches.record_match(session, config, match.id, outcome_for(match, [1, 2]))
    session.commit()
    report = resolve.resolve_game(session, config, "toyrace")
    assert report.rated_matches == 12
    assert session.get(ResolvedRating, newer.id) is None  # it has played no rated match


def test_the_window_solves_the_latest_matches_from_the_online_ratings_then(session, config, ladder):
    _versions, ids = ladder
    report = resolve.resolve_game(session, config, "toyrace", window=5)
    session.commit()
    assert (report.matches, report.rated_matches, report.windowed) == (5, 12, True)
    rows, priors = stored_rows(session, ids[-5:])
    # The priors are the online ratings at the window's start, not the fresh ones.
    assert all(sigma < 25 / 3 for _, sigma in priors.values())
    expected = by_hand(rows, priors)
    stored = {r.version_id: (r.mu, r.sigma) for r in session.scalars(select(ResolvedRating))}
    assert set(stored) == set(expected)
    for version, figures in expected.items():
        assert stored[version] == pytest.approx(figures, abs=1e-9)
    run = session.get(ResolveRun, "toyrace")
    assert (run.matches, run.rated_matches, run.first_match_id) == (5, 12, ids[-5])
    assert resolved.last_run(session, "toyrace")["windowed"] is True


def test_a_version_seen_only_before_the_window_has_no_resolved_rating(session, config, ladder):
    versions, _ids = ladder
    resolve.resolve_game(session, config, "toyrace", window=1)  # the last match: a, b, d
    session.commit()
    assert session.get(ResolvedRating, versions["c"].id) is None
    assert session.get(ResolvedRating, versions["a"].id) is not None


@pytest.mark.parametrize("window", [0, -3, True, 2.5])
def test_a_bad_window_is_refused(session, config, window):
    with pytest.raises(ServiceError, match="re-solve window"):
        resolve.resolve_game(session, config, "toyrace", window=window)


def test_an_unknown_game_is_refused(session, config):
    with pytest.raises(ServiceError, match="unknown game 'chess'"):
        resolve.resolve_game(session, config, "chess")


def test_a_game_with_no_rated_matches_stores_an_empty_run(session, config):
    report = resolve.resolve_game(session, config, "toyrace")
    assert (report.matches, report.versions) == (0, 0)
    assert resolved.last_run(session, "toyrace")["matches"] == 0


@pytest.fixture
def env(monkeypatch, config):
    for key in ("DATABASE_URL", "SECRET_KEY"):
        monkeypatch.setenv(key, str(config[key]))
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("RESOLVE_WINDOW", raising=False)


def test_the_command_resolves_and_says_what_it_did(session, config, ladder, env):
    result = CliRunner().invoke(main, ["ratings", "resolve", "toyrace"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "toyrace: re-solved all 12 rated matches: 4 versions rated" in result.output
    session.expire_all()
    assert len(session.scalars(select(ResolvedRating)).all()) == 4
    result = CliRunner().invoke(main, ["ratings", "resolve", "toyrace", "--window", "5"])
    assert result.exit_code == 0, result.output
    assert "the latest 5 of 12 rated matches" in result.output


@pytest.mark.parametrize(
    "args, says",
    [
        (["chess"], "unknown game 'chess'"),
        (["toyrace", "--window", "0"], "re-solve window is 1 or more"),
        (["toyrace", "--window", "x"], "is not a valid integer"),
    ],
)
def test_the_command_refuses_bad_input(session, config, env, args, says):
    result = CliRunner().invoke(main, ["ratings", "resolve", *args])
    assert result.exit_code == 2
    assert says in result.output
    assert session.scalars(select(ResolveRun)).all() == []


def test_the_task_resolves_every_game(app, session, config, ladder):
    with app.app_context():
        solved = tasks.resolve_ratings.run()
    assert solved["toyrace"] == 12 and set(solved) >= {"manila", "meuterer", "caravelas"}
    session.expire_all()
    assert session.get(ResolveRun, "toyrace").matches == 12


def test_beat_resolves_daily_unless_turned_off(config):
    from ladder import create_app

    schedule = create_app(config).extensions["celery"].conf.beat_schedule
    assert schedule["resolve-ratings"] == {"task": "ladder.resolve_ratings", "schedule": 86400.0}
    config["RESOLVE_EVERY_S"] = 0
    assert "resolve-ratings" not in create_app(config).extensions["celery"].conf.beat_schedule


def set_resolved(session, version, mu, sigma=1.0):
    row = session.get(ResolvedRating, version.id)
    row.mu, row.sigma, row.skill = mu, sigma, mu - 3 * sigma
    session.commit()


def test_both_ratings_and_the_disagreements(session, config, ladder):
    versions, _ = ladder
    resolve.resolve_game(session, config, "toyrace")
    session.commit()
    online = {e["version_id"]: e for e in resolved.both_ratings(session, "toyrace")}
    mu = {c: online[v.id]["online"]["mu"] for c, v in versions.items()}
    # Within the threshold of the online μ, a, b agree; c and d are made to disagree.
    set_resolved(session, versions["a"], mu["a"] + 1.9)
    set_resolved(session, versions["b"], mu["b"] - 1.0)
    set_resolved(session, versions["c"], mu["c"] + 9.0)
    set_resolved(session, versions["d"], mu["d"] - 3.0)
    found = resolved.disagreements(session, "toyrace")
    assert [(e["bot"], e["gap"]) for e in found] == [
        ("c", pytest.approx(9.0, abs=1e-3)),
        ("d", pytest.approx(-3.0, abs=1e-3)),
    ]
    assert found[0]["resolved_rank"] == 1  # c: μ + 9 with σ 1 tops the re-solved board
    assert found[0]["online"]["mu"] == pytest.approx(mu["c"], abs=1e-3)
    assert [e["bot"] for e in resolved.disagreements(session, "toyrace", threshold=10)] == []
    assert len(resolved.disagreements(session, "toyrace", threshold=0.5)) == 4
    by_resolved = resolved.both_ratings(session, "toyrace", "resolved")
    skills = [e["resolved"]["skill"] for e in by_resolved]
    assert skills == sorted(skills, reverse=True)
    assert [e["rank"] for e in by_resolved] == [1, 2, 3, 4]


def test_a_version_without_a_resolved_rating_goes_last_on_the_resolved_board(
    session, config, ladder
):
    _versions, _ = ladder
    resolve.resolve_game(session, config, "toyrace", window=1)  # c is not in it
    session.commit()
    board = resolved.both_ratings(session, "toyrace", "resolved")
    assert board[-1]["bot"] == "c" and board[-1]["resolved"] is None
    assert board[-1]["gap"] is None
    assert "c" not in [e["bot"] for e in resolved.disagreements(session, "toyrace", 0.0)]


def test_both_ratings_refuses_an_unknown_order(session):
    with pytest.raises(ValueError, match="order is one of online, resolved"):
        resolved.both_ratings(session, "toyrace", "elo")


def test_the_resolved_curve(session, config, ladder):
    versions, ids = ladder
    resolve.resolve_game(session, config, "toyrace")
    session.commit()
    curve = resolved.resolved_curve(session, versions["a"].id)
    row = session.get(ResolvedRating, versions["a"].id)
    # All recorded today: one point, the estimate after a's last match.
    assert [point["day"] for point in curve] == [row.curve[0][0]]
    assert row.curve[0][0] == session.get(Match, ids[-1]).finished_at.date().isoformat()
    assert curve[-1]["mu"] == pytest.approx(row.mu, abs=1e-3)
    assert curve[-1]["skill"] == pytest.approx(row.mu - 3 * row.sigma, abs=1e-3)
    assert resolved.resolved_curve(session, 999_999) == []
