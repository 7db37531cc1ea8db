"""Candidate versions' tests on the ladder's workers: "is my new version better?".

An upload marked candidate is validated as usual, then waits in the `candidate`
state (`services.bots.finish_validation`) while its `VersionTest` plays duplicate
sets against the version then active (`ladder.tournaments.sprt`, the same core as
`ladder test`): one seed, a table of NEW, OLD and house opponents, every seat
rotation. Each match is an unranked `Match` made by `matches.create_match` like any
other (so no rating moves), on the test queue, with a `VersionTestMatch` row placing
it in its set; the ladder's machinery plays and records it (leases, attempts,
idempotent recording).

`advance` counts the sets played, strictly in set order as `ladder test` does, keeps
the test's report and LLR history on its row, schedules the next matches, and ends
the test at a verdict or at `max_sets`: on `better`, with `promote` chosen, the
candidate replaces the active version (`bots.activate`). A worker calls it after
each test match, and beat for every running test, so a lost call only delays.

What tests may take from the workers, TEST_SHARE of their time: while a ladder
match waits for a worker, no test match is queued once test matches took more than
TEST_SHARE of the time matches were played in the last SHARE_WINDOW_S (an idle
ladder leaves the workers to the tests); and never more than TEST_SHARE x
LADDER_IN_FLIGHT x games test matches are queued or running at once (at least one),
counted under one lock, with at most SETS_AHEAD sets of one test under way, so tests
share that room. A set with a match that failed (not a bot's fault), or whose
outcome was void, is void and replaced; MAX_VOID_SETS of them end the test. A
candidate paused by crash triage plays no new set until its owner resumes it.

`advance` (and `advance_running`) own their transactions, as `tournaments.advance`
does; `promote` flushes for its caller's unit.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

import engine
from ladder.broker.announce import TEST_QUEUE
from ladder.errors import Conflict, Forbidden, NotFound
from ladder.models import (
    IN_FLIGHT,
    Bot,
    BotVersion,
    Match,
    MatchState,
    User,
    VersionState,
    VersionTest,
    VersionTestMatch,
    VersionTestState,
    utcnow,
    valid_id,
)
from ladder.queries.tournaments import result_of
from ladder.queries.version_tests import hypotheses, test_of_version
from ladder.services import bot_changes, throttle
from ladder.services.bots import activate
from ladder.services.matches import create_match, fail_match
from ladder.settings import Settings
from ladder.tournaments.local_sprt import default_table
from ladder.tournaments.model import Result
from ladder.tournaments.sprt import (
    BETTER,
    NEW,
    OLD,
    SequentialTest,
    SetPlan,
    plan_set,
)
from ladder.transactions import unit_of_work

log = logging.getLogger(__name__)

SETS_AHEAD = 2  # sets of one test under way at once: the next is queued as one ends
MAX_VOID_SETS = 5  # sets voided by failed matches before the test gives up
HOUSE_OPPONENTS = ("greedy", "search")  # the house bots a test seats beside NEW and OLD
SHARE_WINDOW_S = 600  # the recent play time tests' share of it is measured over
RECENT_TABLES = 1000  # ladder matches read for the game's most common table size
STOPPED = "the test stopped before this match was played"


def get_test(session: Session, test_id: int) -> VersionTest:
    test = session.get(VersionTest, test_id) if valid_id(test_id) else None
    if test is None:
        raise NotFound(f"no test {test_id}")
    return test


def share(settings: Settings) -> int:
    """Test matches the site keeps in flight at most (TEST_SHARE of the ladder's)."""
    ladder = settings.ladder_in_flight * len(engine.game_names())
    return max(1, int(settings.test_share * ladder))


def over_time_share(session: Session, settings: Settings, now: datetime) -> bool:
    """Whether tests must wait: a ladder match is waiting for a worker, and test matches
    took more than TEST_SHARE of the time matches were played in the last SHARE_WINDOW_S
    (running ones counted to `now`). An idle ladder leaves its workers to the tests."""
    waiting = session.scalar(
        select(Match.id).where(Match.state == MatchState.QUEUED, Match.ranked.is_(True)).limit(1)
    )
    if waiting is None:
        return False
    since = now - timedelta(seconds=SHARE_WINDOW_S)
    end = func.coalesce(Match.finished_at, now)
    took = _seconds_between(session, Match.started_at, end)
    rows = session.execute(
        select(Match.queue, func.sum(took))
        .where(
            Match.game.in_(engine.game_names()),  # the (game, finished_at) index
            Match.started_at.is_not(None),
            or_(Match.finished_at >= since, Match.state == MatchState.RUNNING),
        )
        .group_by(Match.queue)
    )
    by_queue = {queue: float(seconds or 0.0) for queue, seconds in rows}
    tests = by_queue.get(TEST_QUEUE, 0.0)
    total = sum(by_queue.values())
    return total > 0 and tests > settings.test_share * total


def _seconds_between(session: Session, start, end):
    """`end - start` in seconds, in the database's own arithmetic."""
    if session.get_bind().dialect.name == "postgresql":
        return func.extract("epoch", end - start)
    return (func.julianday(end) - func.julianday(start)) * 86400.0


# -- scheduling ----------------------------------------------------------------------------
def advance(session: Session, settings: Settings, test_id: int) -> list[int]:
    """Count what the test's sets gave, end it or schedule its next matches; the new
    match ids. Idempotent, and safe from several workers at once (the lock on the
    test queue orders them; the unique slot key stops a double). It owns its
    transaction: its caller has none open."""
    try:
        with unit_of_work(session):
            throttle.lock(session, "tests")  # the site's share is counted under it
            test = get_test(session, test_id)
            if test.state != VersionTestState.RUNNING:
                return []
            created = _advance(session, settings, test)
    except IntegrityError:  # another worker scheduled these slots first
        return []
    if test.over:
        log.info("test finished", extra={"test_id": test.id, "verdict": test.verdict})
    return created


def advance_running(session: Session, settings: Settings) -> dict[int, list[int]]:
    """Beat's check: advance every running test, oldest first, each in its own transaction."""
    ids = session.scalars(
        select(VersionTest.id)
        .where(VersionTest.state == VersionTestState.RUNNING)
        .order_by(VersionTest.id)
    ).all()
    return {tid: made for tid in ids if (made := advance(session, settings, tid))}


def _advance(session: Session, settings: Settings, test: VersionTest) -> list[int]:
    candidate = test.version
    if candidate.state != VersionState.CANDIDATE:
        why = f"{candidate.label} is {candidate.state}"
        _stop(session, test, VersionTestState.CANCELLED, None, why)
        return []
    if test.table_size is None and not _settle(session, settings, test):
        return []
    placed = _slots(session, test.id)
    core, plans, voids = _count(test, placed)
    counted = (core.report(), _history(core), voids)
    if counted != (test.report, test.history, test.void_sets):
        bot_changes.bots_changed(session, [test.bot_id])  # its page lists its tests
    test.report, test.history, test.void_sets = counted
    if core.done:
        _finish(session, test, core)
        return []
    if voids >= MAX_VOID_SETS:
        _stop(session, test, VersionTestState.FINISHED, core.verdict, f"{voids} sets were void")
        return []
    if candidate.paused_at is not None:
        return []  # crash triage paused it: no new set until its owner resumes it
    return _schedule(session, settings, test, placed, plans)


def _settle(session: Session, settings: Settings, test: VersionTest) -> bool:
    """Freeze the test's table size (the game's most common on the ladder lately) and
    its opponents (the house greedy and search bots' active versions); False if there
    is no table to play (no house bots, in a game of three or more)."""
    game = engine.get_game(test.version.bot.game)
    sizes = Counter(
        session.scalars(
            select(Match.players)
            .where(Match.game == game.name, Match.ranked, Match.state == MatchState.FINISHED)
            .order_by(Match.id.desc())
            .limit(RECENT_TABLES)
        )
    )
    common = max(sizes, key=lambda n: (sizes[n], -n)) if sizes else None
    test.table_size = common or default_table(game.min_players, game.max_players)
    test.opponents = list(
        session.scalars(
            select(BotVersion.id)
            .join(Bot, BotVersion.bot_id == Bot.id)
            .join(User, Bot.owner_id == User.id)
            .where(
                User.username == settings.house_user,
                Bot.game == game.name,
                Bot.name.in_(HOUSE_OPPONENTS),
                BotVersion.state == VersionState.ACTIVE,
            )
            .order_by(Bot.name)
        )
    )
    if test.table_size > 2 and not test.opponents:
        test.table_size = max(2, game.min_players)  # no house bots: the smallest table
        if test.table_size > 2:
            _stop(session, test, VersionTestState.CANCELLED, None, "no house bots to seat")
            return False
    return True


def _slots(session: Session, test_id: int) -> dict[tuple[int, int], Match]:
    rows = session.execute(
        select(VersionTestMatch, Match)
        .join(Match, VersionTestMatch.match_id == Match.id)
        .where(VersionTestMatch.test_id == test_id)
    )
    return {(tm.set_no, tm.rotation): m for tm, m in rows}


def _labels(test: VersionTest) -> dict[str, int]:
    """A set's seat labels -> version ids: NEW, OLD and each opponent's id as text."""
    return {NEW: test.version_id, OLD: test.baseline_id, **{str(v): v for v in test.opponents}}


def _plan(test: VersionTest, index: int) -> SetPlan:
    size = cast(int, test.table_size)  # settled before the first set is planned
    return plan_set(index, test.seed, size, [str(v) for v in test.opponents])


def _count(
    test: VersionTest, placed: Mapping[tuple[int, int], Match]
) -> tuple[SequentialTest, list[SetPlan], int]:
    """The test over the sets played, in set order up to the first not yet over: the
    core, the plans of the sets still to count or to play, and the void sets."""
    core = SequentialTest(hypotheses(test))
    voids, index = 0, 0
    while not core.done:
        plan = _plan(test, index)
        found = [placed.get((index, r)) for r in range(len(plan.tables))]
        matches = [m for m in found if m is not None and m.over]
        if len(matches) < len(found):
            break
        if any(m.state == MatchState.FAILED or m.unrated_reason for m in matches):
            voids += 1  # failed, or its outcome void (every seat faulted alike: the host)
        else:
            core.add(plan, [cast(Result, result_of(m)) for m in matches])  # all finished
        index += 1
    ahead = [_plan(test, i) for i in range(index, index + SETS_AHEAD)]
    return core, ahead, voids


def _history(core: SequentialTest) -> list[list[float]]:
    """[LLR, mean score] after each set: the test page's chart."""
    points = []
    shadow = SequentialTest(core.hypotheses)
    for score in core.scores:
        shadow.record(score)
        points.append([round(shadow.llr, 4), round(shadow.total / len(shadow.scores), 4)])
    return points


def _schedule(
    session: Session,
    settings: Settings,
    test: VersionTest,
    placed: Mapping[tuple[int, int], Match],
    plans: list[SetPlan],
) -> list[int]:
    """Queue the missing matches of the next sets, within the site's room for tests."""
    in_flight = session.scalar(
        select(func.count(Match.id)).where(Match.queue == TEST_QUEUE, Match.state.in_(IN_FLIGHT))
    )
    room = share(settings) - (in_flight or 0)
    if room > 0 and over_time_share(session, settings, utcnow()):
        return []
    labels = _labels(test)
    created: list[int] = []
    for plan in plans:
        if plan.index - test.void_sets >= test.max_sets:  # the sets counted would pass it
            break
        for rotation, seats in enumerate(plan.tables):
            if room <= 0:
                return created
            if (plan.index, rotation) in placed:
                continue
            match = create_match(
                session,
                settings,
                test.version.bot.game,
                [labels[label] for label in seats],
                ranked=False,  # a test never moves a ladder rating
                seed=plan.seed,
                kind="test",
                active_only=False,  # the candidate is not active, and OLD may not stay so
            )
            session.add(
                VersionTestMatch(
                    match_id=match.id, test_id=test.id, set_no=plan.index, rotation=rotation
                )
            )
            created.append(match.id)
            room -= 1
    session.flush()
    return created


# -- ending ------------------------------------------------------------------------------
def _finish(session: Session, test: VersionTest, core: SequentialTest) -> None:
    """End at the core's verdict; promote the candidate on `better` if its owner chose so
    and the version it was tested against is still the active one."""
    verdict = core.verdict
    note = None
    if verdict == BETTER and test.promote:
        baseline = test.baseline
        if baseline is not None and baseline.state == VersionState.ACTIVE:
            _promote(session, test)
            note = f"promoted: it replaced {baseline.label}"
        else:
            note = "not promoted: the version it was tested against is no longer active"
    _stop(session, test, VersionTestState.FINISHED, verdict, note)


def _stop(
    session: Session, test: VersionTest, state: str, verdict: str | None, note: str | None
) -> None:
    """End the test; matches of it not yet played fail (unrated), freeing the workers."""
    test.end(state, verdict, note)
    bot_changes.bots_changed(session, [test.bot_id])
    for match in _slots(session, test.id).values():
        if match.state in IN_FLIGHT:
            fail_match(session, match.id, STOPPED)


def _promote(session: Session, test: VersionTest) -> None:
    activate(session, test.version)
    test.promoted_at = utcnow()


def promote(session: Session, user: User, version_id: int) -> VersionTest:
    """The owner makes a candidate active by hand, whatever its test said so far (a test
    still running stops). In the caller's unit."""
    test = test_of_version(session, version_id)
    candidate = test.version
    if candidate.bot.owner_id != user.id:
        raise Forbidden("only the bot's owner can promote its versions")
    if candidate.state != VersionState.CANDIDATE:
        raise Conflict(f"{candidate.label} is {candidate.state}, not a candidate")
    newer = session.scalar(
        select(BotVersion.number).where(
            BotVersion.bot_id == candidate.bot_id,
            BotVersion.state == VersionState.ACTIVE,
            BotVersion.number > candidate.number,
        )
    )
    if newer is not None:
        raise Conflict(f"v{newer}, a newer version, is active; {candidate.label} cannot replace it")
    throttle.lock(session, "tests")
    running = test.state == VersionTestState.RUNNING
    _promote(session, test)
    if running:
        _stop(session, test, VersionTestState.CANCELLED, None, "promoted by hand before a verdict")
    else:
        test.note = "promoted by hand"
    log.info("candidate promoted", extra={"version_id": candidate.id, "test_id": test.id})
    return test
