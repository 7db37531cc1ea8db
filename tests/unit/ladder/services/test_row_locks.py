"""Row locks where PostgreSQL offers them: who waits for whom, and who skips.

A second session (`holder`) takes a lock as another worker or scheduler would,
and the code under test runs in a thread of its own, so a test can see it
wait (or not) without hanging. SQLite has no row locks (its writers take turns
on the whole file), so most of these run on PostgreSQL only.
"""

from __future__ import annotations

import functools
import random
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from datetime import timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from ladder.extensions import make_engine
from ladder.models import Match, MatchState, Rating, SeatRecord, utcnow
from ladder.services import infrastructure, matches, playing, scheduler, throttle
from tests.unit.ladder.conftest import make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for

postgresql_only = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
WAIT_S = 0.5  # long enough to see a wait: every step here takes milliseconds


@pytest.fixture
def engine(config):
    eng = make_engine(config["DATABASE_URL"])
    yield eng
    eng.dispose()


@contextmanager
def holder(engine):
    """Another worker's transaction: whatever it locks stays locked until the block ends."""
    with Session(engine) as other:
        yield other
        other.rollback()


class Run:
    """`fn(session)` in a thread with a session of its own."""

    def __init__(self, engine, fn: Callable[[Session], object]) -> None:
        self.result, self.error = None, None
        self.thread = threading.Thread(target=self._run, args=(engine, fn))
        self.thread.start()

    def _run(self, engine, fn) -> None:
        try:
            with Session(engine, expire_on_commit=False) as own:
                self.result = fn(own)
                own.commit()  # as the worker's task does, at the end of its unit
        except Exception as exc:  # asserted by the test
            self.error = exc

    def done_within(self, seconds: float) -> bool:
        self.thread.join(seconds)
        return not self.thread.is_alive()

    def value(self):
        assert self.done_within(30), "still waiting after 30 s"
        if self.error is not None:
            raise self.error
        return self.result


def two_bots(session, config, names=("ann", "ben")) -> list[int]:
    """Active bots of two owners (version ids)."""
    users = [make_user(session, name) for name in names]
    return [make_active_bot(session, config, u, name=f"{u.username}-bot").id for u in users]


def new_match(session, config, versions) -> int:
    match = matches.create_match(session, config, "toyrace", versions, ranked=True)
    session.commit()
    return match.id


def lock_match(other: Session, match_id: int) -> None:
    other.execute(select(Match.id).where(Match.id == match_id).with_for_update())


def state(session, match_id) -> str:
    session.expire_all()
    return session.get(Match, match_id).state


@postgresql_only
def test_a_worker_skips_a_match_another_worker_is_starting(session, config, engine):
    match_id = new_match(session, config, two_bots(session, config))
    with holder(engine) as other:
        lock_match(other, match_id)
        second = Run(engine, lambda own: matches.start_match(own, match_id))
        assert second.done_within(WAIT_S), "start_match waited for the other worker's lock"
        assert second.value() == 0
    assert matches.start_match(session, match_id) == 1


@postgresql_only
def test_the_sweep_skips_a_match_another_sweep_is_releasing(session, config, engine):
    match_id = new_match(session, config, two_bots(session, config))
    assert matches.start_match(session, match_id)
    session.commit()
    lapsed = utcnow() + timedelta(seconds=1)  # as if LEASE_S had passed
    release = lambda own: playing.release_match(  # noqa: E731
        own, config, match_id, infrastructure.WORKER_LOST, lapsed_before=lapsed
    )
    with holder(engine) as other:
        lock_match(other, match_id)
        second = Run(engine, release)
        assert second.done_within(WAIT_S), "the sweep waited for the other sweep's lock"
        assert second.value() is None
        assert state(session, match_id) == MatchState.RUNNING
    assert Run(engine, release).value() == MatchState.QUEUED


def test_the_sweep_leaves_a_match_handed_out_again_since_it_looked(session, config):
    match_id = new_match(session, config, two_bots(session, config))
    looked = utcnow() - timedelta(seconds=1)  # the sweep saw it lapsed, then...
    assert matches.start_match(session, match_id)  # ...a new worker started it
    released = playing.release_match(
        session, config, match_id, infrastructure.WORKER_LOST, lapsed_before=looked
    )
    assert released is None
    assert state(session, match_id) == MatchState.RUNNING


@postgresql_only
def test_a_worker_releasing_its_own_match_waits_for_the_lock(session, config, engine):
    match_id = new_match(session, config, two_bots(session, config))
    assert matches.start_match(session, match_id)
    session.commit()
    with holder(engine) as other:
        lock_match(other, match_id)
        own = Run(engine, lambda s: playing.release_match(s, config, match_id, "lost Redis"))
        assert not own.done_within(WAIT_S)
    assert own.value() == MatchState.QUEUED


@postgresql_only
def test_a_rating_update_waits_for_the_rows_and_starts_from_what_was_committed(
    session, config, engine
):
    versions = two_bots(session, config)
    match_id = new_match(session, config, versions)
    assert matches.start_match(session, match_id)
    session.commit()
    outcome = outcome_for(session.get(Match, match_id), [1, 2])
    with holder(engine) as other:
        rating = other.scalars(
            select(Rating).where(Rating.version_id == versions[0]).with_for_update()
        ).one()
        recording = Run(engine, lambda own: matches.record_match(own, config, match_id, outcome))
        assert not recording.done_within(WAIT_S)
        rating.mu = 31.0  # another match's update, committed while the recorder waits
        other.commit()
    recording.value()
    session.expire_all()
    seat = session.get(Match, match_id).seats[0]
    assert seat.mu_before == 31.0  # not the 25 it would have read without the lock
    assert session.get(Rating, versions[0]).mu == seat.mu_after > 31.0


@postgresql_only
def test_two_schedulers_at_once_fill_a_game_up_to_its_target_not_past_it(session, config, engine):
    two_bots(session, config)
    two_bots(session, config, ("cat", "dan"))
    config["LADDER_IN_FLIGHT"] = 1
    with holder(engine) as other:
        # The first scheduler holds the game's lock and has made a match, not yet committed.
        throttle.lock(other, "schedule:toyrace")
        other.add(Match(game="toyrace", seed=1, players=2, options={}, ranked=True, state="queued"))
        other.flush()
        second = Run(engine, lambda own: scheduler.schedule_ladder(own, config, random.Random(1)))
        assert not second.done_within(WAIT_S)
        other.commit()
    assert second.value() == []  # it counted the first scheduler's match


def test_a_scheduler_alone_still_fills_every_game(session, config):
    versions = two_bots(session, config) + two_bots(session, config, ("cat", "dan"))
    # They have played only tables of 3 and 4, so the table mix makes two tables of 2.
    session.add_all(
        SeatRecord(version_id=v, players=p, seat=0, games=10, wins=0, rank_sum=20, faults=0)
        for v in versions
        for p in (3, 4)
    )
    session.commit()
    config["LADDER_IN_FLIGHT"] = 2
    created = scheduler.schedule_ladder(session, config, random.Random(2))
    assert len(created) == 2
    in_flight = session.scalars(
        select(Match.id).where(Match.state == MatchState.QUEUED, Match.ranked)
    ).all()
    assert sorted(in_flight) == sorted(created)
    session.execute(update(Match).values(state=MatchState.FINISHED))
    session.commit()
    assert len(scheduler.schedule_ladder(session, config, random.Random(3))) == 2


def test_two_schedulers_racing_seat_no_owner_twice_and_no_bot_twice(
    session, config, engine, monkeypatch
):
    # Four owners with two bots each; each scheduler is slowed after it draws a table, so
    # without the game's lock both would draw from the same busy set and seat a bot the
    # other had just seated, on SQLite and PostgreSQL alike.
    owner_of = {}
    for name in ("ann", "ben", "cat", "dan"):
        user = make_user(session, name)
        for i in range(2):
            owner_of[make_active_bot(session, config, user, name=f"{name}-{i}").id] = name
    draw = scheduler.make_table

    def slow_draw(*args):
        table = draw(*args)
        time.sleep(0.01)
        return table

    def schedule(own, start, seed):
        start.wait()
        return scheduler.schedule_ladder(own, config, random.Random(seed))

    monkeypatch.setattr(scheduler, "make_table", slow_draw)
    config["LADDER_IN_FLIGHT"] = 50
    for seeds in ((1, 2), (3, 4)):
        start = threading.Barrier(2)
        runs = [Run(engine, functools.partial(schedule, start=start, seed=s)) for s in seeds]
        created = [m for run in runs for m in run.value()]
        session.expire_all()
        queued = session.scalars(select(Match).where(Match.state == MatchState.QUEUED)).all()
        assert sorted(m.id for m in queued) == sorted(created)
        seated = [s.version_id for m in queued for s in m.seats]
        assert len(seated) == len(set(seated)), "a bot was seated at two tables at once"
        for m in queued:
            owners = [owner_of[s.version_id] for s in m.seats]
            assert len(owners) == len(set(owners)), f"match {m.id} seats {owners}"
        # Each table takes one bot of an owner at most: two tables at least, then no room.
        assert len(queued) >= 2
        assert len({owner_of[v] for v in set(owner_of) - set(seated)}) < 2
        session.execute(update(Match).values(state=MatchState.FINISHED))
        session.commit()
