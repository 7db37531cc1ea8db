"""Work that was lost, and results that come too late.

- Queued work whose message is not known to wait in the broker (`unmarked`) is
  announced again on the sweep's very next round, however young it is; work whose
  message waits is left alone.
- A worker that froze past its lease, and whose match was handed to another, is
  refused when it comes back: its result, its release and its failure name an
  attempt that is over. The attempt that holds the match now is left alone.
- A broker that cannot be reached when work is announced loses nothing: the work
  is committed, and the sender says so in the log.
"""

from __future__ import annotations

import logging
import random
from datetime import timedelta

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from ladder import create_app
from ladder.broker import announce
from ladder.cli.processes import free_port
from ladder.errors import Superseded
from ladder.extensions import app_settings, db
from ladder.models import BotVersion, Match, MatchState, Rating, RatingHistory, utcnow
from ladder.services import bot_files, bots, matches, playing, scheduler, sweep, validation
from tests.unit.ladder.conftest import BOT_SOURCE, make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for


def nobody_holds(kind, ident):
    return False


def two_bots(session, config):
    return [
        make_active_bot(session, config, make_user(session, name), name=f"{name}-bot").id
        for name in ("ann", "ben")
    ]


def fresh(session, model, ident):
    session.expire_all()
    return session.get(model, ident)


def hand_out_again(session, config, match_id) -> int:
    """What the sweep and a second worker do to a match whose worker froze: its lease
    lapsed, it went back to the queue, and another worker claimed it."""
    session.execute(
        update(Match).where(Match.id == match_id).values(started_at=utcnow() - timedelta(minutes=5))
    )
    session.commit()
    assert sweep.requeue_stale(session, config, nobody_holds)["match"] == [match_id]
    attempt = matches.start_match(session, match_id)
    session.commit()
    return attempt


# -- lost messages ------------------------------------------------------------------


def test_queued_work_without_a_mark_is_announced_again_at_once(session, config, alice):
    two_bots(session, config)
    config["LADDER_IN_FLIGHT"] = 2
    created = scheduler.schedule_ladder(session, config, random.Random(3))
    version = bots.upload_version(session, config, alice, "toyrace", "x", "bot.py", BOT_SOURCE)
    session.commit()
    lost = {"match": set(created[:1]), "validate": {version.id}}
    asked = []

    def unmarked(kind, ids):
        asked.append((kind, sorted(ids)))
        return [i for i in ids if i in lost[kind]]

    announced = []
    announce.listen(session, lambda kind, ident: announced.append((kind, ident)))
    again = sweep.requeue_stale(session, config, nobody_holds, unmarked)
    # Created a moment ago, yet announced: the broker lost their messages.
    assert again == {"match": created[:1], "validate": [version.id]}
    assert sorted(announced) == sorted([("match", created[0]), ("validate", version.id)])
    # Every waiting piece of work was asked about, and only those.
    assert asked == [("match", sorted(created)), ("validate", [version.id])]


def test_work_whose_message_waits_is_left_alone_however_old(session, config):
    two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(4))
    session.execute(
        update(Match).where(Match.id == match_id).values(created_at=utcnow() - timedelta(days=1))
    )
    session.commit()
    again = sweep.requeue_stale(session, config, nobody_holds, lambda kind, ids: [])
    assert again == {"match": [], "validate": []}


def test_a_released_match_that_is_also_unmarked_is_announced_once(session, config):
    two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(5))
    assert matches.start_match(session, match_id)
    session.execute(
        update(Match).where(Match.id == match_id).values(started_at=utcnow() - timedelta(minutes=5))
    )
    session.commit()
    announced = []
    announce.listen(session, lambda kind, ident: announced.append((kind, ident)))
    again = sweep.requeue_stale(session, config, nobody_holds, lambda kind, ids: list(ids))
    assert again["match"] == [match_id] and announced == [("match", match_id)]


# -- results that come too late -----------------------------------------------------


def test_a_result_of_an_attempt_handed_out_again_is_refused(session, config):
    two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(6))
    first = matches.start_match(session, match_id)
    session.commit()
    second = hand_out_again(session, config, match_id)
    assert (first, second) == (1, 2)
    match = fresh(session, Match, match_id)
    with pytest.raises(Superseded):
        matches.record_match(session, config, match_id, outcome_for(match, [1, 2]), attempt=first)
    session.rollback()
    assert fresh(session, Match, match_id).state == MatchState.RUNNING
    assert session.scalar(select(func.count()).select_from(RatingHistory)) == 0
    # The stale worker cannot fail or release it either...
    assert not matches.fail_match(session, match_id, "late", attempt=first)
    assert playing.release_match(session, config, match_id, "late", attempt=first) is None
    match = fresh(session, Match, match_id)
    assert (match.state, match.attempts) == (MatchState.RUNNING, 2)
    # ...and the worker that holds it now records it.
    recorded = matches.record_match(
        session, config, match_id, outcome_for(match, [2, 1]), attempt=second
    )
    session.commit()
    assert recorded.state == MatchState.FINISHED


def test_a_worker_that_froze_mid_match_records_nothing_when_it_resumes(
    session, config, monkeypatch
):
    ids = two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(7))
    real_run_job = bot_files.run_job
    other = Session(session.get_bind(), expire_on_commit=False)

    def frozen_then_resumed(job, limits, unsafe):
        # While this worker is stopped, the ladder hands its match to another.
        assert hand_out_again(other, config, match_id) == 2
        return real_run_job(job, limits, unsafe)

    monkeypatch.setattr(bot_files, "run_job", frozen_then_resumed)
    before = {r.version_id: r.mu for r in session.scalars(select(Rating))}
    assert playing.play_match(session, config, match_id) is None
    other.close()
    match = fresh(session, Match, match_id)
    assert (match.state, match.attempts, match.unrated_reason) == (MatchState.RUNNING, 2, None)
    assert {r.version_id: r.mu for r in session.scalars(select(Rating))} == before
    assert all(seat.status is None for seat in match.seats)
    assert set(ids) == {seat.version_id for seat in match.seats}


def test_a_verdict_of_a_validation_handed_out_again_is_refused(session, config, alice):
    version = bots.upload_version(session, config, alice, "toyrace", "x", "bot.py", BOT_SOURCE)
    session.commit()
    first = bots.start_validation(session, version.id).attempts
    session.commit()
    # Its worker froze: the sweep released the version, and another worker took it.
    assert validation.release_version(session, config, version.id, "lapsed") == "pending"
    second = bots.start_validation(session, version.id).attempts
    session.commit()
    with pytest.raises(Superseded):
        bots.finish_validation(session, version.id, True, "late verdict", first)
    session.rollback()
    assert fresh(session, BotVersion, version.id).state == "validating"
    assert bots.finish_validation(session, version.id, True, "ok", second).state == "active"


# -- a broker that cannot be reached ------------------------------------------------


def test_work_announced_while_the_broker_is_down_is_kept_and_logged(config, caplog):
    closed = free_port(0)  # nothing listens there
    app = create_app({**config, "REDIS_URL": f"redis://127.0.0.1:{closed}/0"})
    with app.app_context():
        session = db.session
        ids = two_bots(session, config)
        caplog.set_level(logging.WARNING, logger="ladder.jobs.celery_app")
        created = scheduler.schedule_ladder(session, app_settings(), random.Random(8))
        assert created
        session.expire_all()
        match = session.get(Match, created[0])
        assert match.state == MatchState.QUEUED
        assert {seat.version_id for seat in match.seats} == set(ids)
    warned = {
        (r.kind, r.id) for r in caplog.records if r.getMessage().startswith("work not announced")
    }
    assert ("match", created[0]) in warned
