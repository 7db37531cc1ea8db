"""Playing a queued match: the worker's entry point `play_match`, and putting a
running match back in the queue or failing it for good (`release_match`).

Plain functions of (session, settings, id); the Celery tasks only call them. Both own
their transactions (`ladder.transactions`): their caller has no unit open.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from ladder.errors import Conflict, NotFound, Superseded
from ladder.models import Match, MatchState
from ladder.services import bot_files
from ladder.services import matches as match_service
from ladder.services.infrastructure import (
    INFRASTRUCTURE,
    NEVER,
    TOO_LONG,
    describe,
    max_attempts,
    tries,
)
from ladder.settings import Settings
from ladder.transactions import unit_of_work
from workers import BadBotFile, BadOutcome

log = logging.getLogger(__name__)


# -- matches ------------------------------------------------------------------------
@dataclass
class Claim:
    """The attempt a worker claimed, for its caller: a handler that runs after the
    service was struck (a time limit) fails the match only while that attempt holds it."""

    attempt: int | None = None


def play_match(
    session: Session,
    settings: Settings,
    match_id: int,
    *,
    too_long: tuple[type[BaseException], ...] = NEVER,
    claim: Claim | None = None,
) -> Match | None:
    """Play a queued match and record it; None if it is not queued (taken or done) or failed.

    `too_long`: the exceptions that mean the work ran out of time (from the task layer);
    `claim`, if given, is told the attempt once it is claimed.

    It owns its transactions (its caller has none open): the claim is committed before
    the match is played, the match runs for seconds outside any unit, and the outcome
    is recorded in a unit of its own (or the attempt released, or the match failed).
    Everything after the claim names its attempt: once the match was handed out again
    (this worker froze past its lease, say), what it records, releases or fails is
    refused, and the attempt that holds the match now is left alone.
    """
    with unit_of_work(session):
        attempt = match_service.start_match(session, match_id)
    if not attempt:
        return None
    if claim is not None:
        claim.attempt = attempt
    try:
        job = match_service.match_job(session, settings, match_id)
        outcome = bot_files.run_here(session, settings, job)
        with unit_of_work(session):
            return match_service.record_match(session, settings, match_id, outcome, attempt=attempt)
    except too_long:
        return _fail_match(session, match_id, TOO_LONG, attempt)
    except INFRASTRUCTURE as exc:
        session.rollback()  # what the failed attempt left, before the release's own transaction
        released = release_match(session, settings, match_id, describe(exc), attempt=attempt)
        if released == MatchState.FAILED:
            return None
        raise
    except Superseded as exc:  # handed out again meanwhile: another worker plays it now
        session.rollback()
        log.warning("result refused", extra={"match_id": match_id, "reason": str(exc)})
        return None
    except (BadBotFile, BadOutcome) as exc:  # a file that cannot be staged, a bad outcome
        return _fail_match(session, match_id, f"could not be played: {describe(exc)}", attempt)
    except (NotFound, Conflict) as exc:  # the match went, or was failed, meanwhile
        return _fail_match(session, match_id, f"could not be played: {describe(exc)}", attempt)
    except Exception as exc:  # a bug: playing it again would fail the same way
        log.exception("match could not be played", extra={"match_id": match_id})
        return _fail_match(session, match_id, f"could not be played: {describe(exc)}", attempt)
    except BaseException:  # the worker is stopping: the attempt counts all the same
        session.rollback()
        release_match(session, settings, match_id, "its worker was stopped", attempt=attempt)
        raise


def fail_struck(session: Session, match_id: int, claim: Claim) -> bool:
    """After a time limit struck the worker outside `play_match`'s own handling: fail the
    match as taking too long, but only while the attempt it claimed still holds it
    (struck before any claim, or handed out again since: left alone). Whether it failed."""
    session.rollback()  # whatever the service left open when it was struck
    if claim.attempt is None:
        return False
    with unit_of_work(session):
        return match_service.fail_match(session, match_id, TOO_LONG, claim.attempt)


def _fail_match(session: Session, match_id: int, reason: str, attempt: int) -> Match | None:
    """Fail the match for good (if `attempt` is still its running one); None, as
    `play_match` returns for work it did not record."""
    session.rollback()  # what the failed attempt left
    with unit_of_work(session):
        match_service.fail_match(session, match_id, reason, attempt)
    return None


def release_match(
    session: Session,
    settings: Settings,
    match_id: int,
    reason: str,
    *,
    lapsed_before: datetime | None = None,
    attempt: int | None = None,
) -> MatchState | None:
    """Put a running match back in the queue, or fail it (unrated) after MAX_ATTEMPTS.

    Decided with the match's row locked. The lapsed-lease sweep passes `lapsed_before`:
    then only a match running since before it is released (not one handed out again
    meanwhile), and one another sweep holds is skipped (FOR UPDATE SKIP LOCKED). The
    worker passes its `attempt`: only that attempt, if still running, is released.
    Returns its new state (queued or failed), None if it was not running.

    It owns its transaction (the row lock, then the commit that requeues or fails the
    match): the caller has none open, having committed or rolled back its own first.
    """
    query = select(Match.attempts).where(Match.id == match_id, Match.state == MatchState.RUNNING)
    if lapsed_before is not None:
        query = query.where(Match.started_at < lapsed_before)
    if attempt is not None:
        query = query.where(Match.attempts == attempt)
    with unit_of_work(session):
        attempts = session.scalar(query.with_for_update(skip_locked=lapsed_before is not None))
        if attempts is None:
            return None
        if match_service.requeue_match(session, match_id, max_attempts(settings)):
            return MatchState.QUEUED
        log.warning("match failed for good", extra={"match_id": match_id, "reason": reason})
        reason = f"{tries(attempts)}; the last: {reason}"
        failed = match_service.fail_match(session, match_id, reason)
    return MatchState.FAILED if failed else None
