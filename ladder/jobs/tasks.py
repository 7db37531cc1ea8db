"""Celery tasks: thin, like views. Each takes an id, calls a service, and stores.

Retries (with backoff) are for infrastructure only: the database, Redis, the
sandbox or the disk failing, and the service counts them against
MAX_ATTEMPTS. Anything else ends the work `failed` in the service, with no
retry. A bot's fault is a recorded result, never a retry.

A task's work is one unit (`ladder.transactions`) that it opens and commits; the
services it calls here own their transactions (the worker's entry points, the
sweep, the scheduler, `advance`), so those are called outside any unit.
"""

from __future__ import annotations

import contextlib
import logging
import random

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_process_shutdown

import engine
from ladder.errors import Conflict
from ladder.extensions import app_settings, db
from ladder.jobs.celery_app import client
from ladder.jobs.leases import Leases
from ladder.jobs.marks import Marks
from ladder.models import MatchState, VersionState
from ladder.queries import tournaments as tournament_queries
from ladder.queries import version_tests as test_queries
from ladder.services import bots as bot_service
from ladder.services import (
    playing,
    resolve,
    retention,
    scheduler,
    sweep,
    table_play,
    tables,
    validation,
    version_tests,
)
from ladder.services import tournaments as tournament_service
from ladder.services.infrastructure import INFRASTRUCTURE, TOO_LONG
from ladder.transactions import unit_of_work
from workers import close_pools

log = logging.getLogger(__name__)

# What Celery raises in a task past its soft time limit: the services fail the work
# as taking too long (they import no Celery, so the task says which exception it is).
TOO_LONG_ERRORS = (SoftTimeLimitExceeded,)

RETRY = {
    "autoretry_for": INFRASTRUCTURE,
    "retry_backoff": 2,
    "retry_backoff_max": 120,
    "retry_jitter": True,
    "max_retries": 8,
}


def _leases() -> Leases:
    return Leases(client(), app_settings().lease_s)


def _taken(kind: str, ident: int) -> None:
    """Remove the mark of the message just taken (`jobs.marks`): should this worker die
    before it claims the work, the sweep's next round announces it again."""
    Marks(client(), app_settings().requeue_after_s).unmark(kind, ident)


@shared_task(name="ladder.validate_version", acks_late=True, **RETRY)
def validate_version(version_id: int) -> str:
    """Validate an uploaded version with a short match against house bots."""
    _taken("validate", version_id)
    with _leases().hold("validate", version_id):
        try:
            version = validation.validate_version(
                db.session, app_settings(), version_id, too_long=TOO_LONG_ERRORS
            )
        except SoftTimeLimitExceeded:  # struck outside the service's own handling
            db.session.rollback()  # whatever the service left open when it was struck
            with contextlib.suppress(Conflict), unit_of_work(db.session):
                bot_service.finish_validation(
                    db.session, version_id, False, f"Validation failed: {TOO_LONG}."
                )
            return VersionState.FAILED
    state = version.state if version else "skipped"
    log.info("validated", extra={"version_id": version_id, "state": state})
    return state


@shared_task(name="ladder.play_match", acks_late=True, **RETRY)
def play_match(match_id: int) -> str:
    """Play a queued match in the sandbox and record its result and ratings."""
    _taken("match", match_id)
    claim = playing.Claim()
    with _leases().hold("match", match_id):
        try:
            match = playing.play_match(
                db.session, app_settings(), match_id, too_long=TOO_LONG_ERRORS, claim=claim
            )
        except SoftTimeLimitExceeded:  # struck outside the service's own handling
            failed = playing.fail_struck(db.session, match_id, claim)
            return MatchState.FAILED if failed else "skipped"
    state = match.state if match else "skipped"
    log.info("match played", extra={"match_id": match_id, "state": state})
    return state


@shared_task(name="ladder.play_tournament_match", acks_late=True, **RETRY)
def play_tournament_match(match_id: int) -> str:
    """Play a tournament match (unranked; same lease, attempts and recording as any
    match), then schedule what its result makes known: the next round, or the end."""
    state = play_match.run(match_id)
    tournament_id = tournament_queries.tournament_of_match(db.session, match_id)
    if tournament_id is not None:
        tournament_service.advance(db.session, app_settings(), tournament_id)
    return state


@shared_task(name="ladder.play_challenge_match", acks_late=True, **RETRY)
def play_challenge_match(match_id: int) -> str:
    """Play a user's challenge: a match like any other, from the challenge queue."""
    return play_match.run(match_id)


@shared_task(name="ladder.play_test_match", acks_late=True, **RETRY)
def play_test_match(match_id: int) -> str:
    """Play a match of a candidate's test (unranked, like any match otherwise), then count
    its set and schedule what comes next: more sets, or the verdict."""
    state = play_match.run(match_id)
    test_id = test_queries.test_of_match(db.session, match_id)
    if test_id is not None:
        version_tests.advance(db.session, app_settings(), test_id)
    return state


# A live table lasts as long as its people take: up to TABLE_MATCH_MS each, plus the bots.
TABLE_TIME_LIMIT_S = 6 * 3600


@shared_task(
    name="ladder.play_table",
    acks_late=False,  # never handed out again: a table cannot be replayed without its people
    soft_time_limit=TABLE_TIME_LIMIT_S,
    time_limit=TABLE_TIME_LIMIT_S + 60,
)
def play_table(table_id: int) -> str:
    """Run a live table to its end (on the tables queue, the table worker's alone)."""
    _taken("table", table_id)
    leases = _leases()
    if leases.held("table", table_id):
        return "skipped"  # another runner has it
    with leases.hold("table", table_id):
        match = table_play.play_table(db.session, app_settings(), table_id, client())
    log.info("table played", extra={"table_id": table_id, "match_id": match and match.id})
    return "over" if match else "skipped"


@shared_task(name="ladder.end_abandoned_tables", **RETRY)
def end_abandoned_tables() -> list[int]:
    """Beat: end every table being played whose runner is gone (its lease lapsed)."""
    leases = _leases()
    if leases.age_s() < app_settings().lease_s:  # a Redis restarted empty: wait a lease
        return []
    ended = []
    for table_id in tables.abandoned(db.session, app_settings(), lambda t: leases.held("table", t)):
        with unit_of_work(db.session):
            if tables.end_table(db.session, table_id, tables.RUNNER_GONE):
                ended.append(table_id)
    if ended:
        log.warning("tables ended: runner gone", extra={"tables": ended})
    return ended


@shared_task(name="ladder.schedule", **RETRY)
def schedule() -> dict:
    """Beat's heartbeat: requeue work of dead workers, then top up every ladder."""
    settings = app_settings()
    leases = _leases()
    marks = Marks(client(), settings.requeue_after_s)
    # A Redis younger than a lease may just have restarted empty: live workers take
    # their leases back on their next refresh, so running work is left alone till then.
    leased = leases.held if leases.age_s() >= settings.lease_s else _always
    again = sweep.requeue_stale(db.session, settings, leased, marks.unmarked)
    created = scheduler.schedule_ladder(db.session, settings, random.Random())
    rounds = tournament_service.advance_running(db.session, settings)
    tests = version_tests.advance_running(db.session, settings)
    if created or rounds or tests or any(again.values()):
        extra = {"new_matches": created, "requeued": again, "tournaments": rounds, "tests": tests}
        log.info("scheduled", extra=extra)
    return {"created": created, "requeued": again, "tournaments": rounds, "tests": tests}


def _always(_kind: str, _ident: int) -> bool:
    return True


@shared_task(name="ladder.prune_replays", **RETRY)
def prune_replays() -> dict:
    """Beat, daily: drop ladder replays past REPLAY_KEEP_DAYS (rows and ratings stay).

    The service commits each batch: a run cut short by the time limit keeps what it
    dropped, and the next run goes on from there."""
    pruned = retention.prune_replays(db.session, app_settings())
    log.info("replays pruned", extra=pruned.as_dict())
    return pruned.as_dict()


# One game's re-solve of RESOLVE_WINDOW matches takes minutes on a free core
# (bench/ratings_resolve.py, ladder/RATINGS.md); every game in turn well within this.
RESOLVE_TIME_LIMIT_S = 3 * 3600


@shared_task(
    name="ladder.resolve_ratings",
    soft_time_limit=RESOLVE_TIME_LIMIT_S,
    time_limit=RESOLVE_TIME_LIMIT_S + 60,
    **RETRY,
)
def resolve_ratings() -> dict:
    """Beat, every RESOLVE_EVERY_S: re-solve each game's rated history beside the online
    rating, one game a unit (a game done stays done if a later one fails)."""
    solved = {}
    for game in engine.game_names():
        with unit_of_work(db.session):
            report = resolve.resolve_game(db.session, app_settings(), game)
        solved[game] = report.matches
        log.info(
            "ratings re-solved",
            extra={"game": game, "matches": report.matches, "seconds": round(report.seconds, 1)},
        )
    return solved


@worker_process_shutdown.connect
def _end_sandboxes(**_kwargs) -> None:
    """A pool process that stops ends the bot sandboxes it kept between matches."""
    close_pools()
