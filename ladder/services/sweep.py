"""The lost-work sweep: work whose worker died, or whose message was lost, handed
out again. Beat runs it before every scheduling round (every SCHEDULE_EVERY_S).

How soon lost work is handed out again, after whatever lost it:
- a worker that dies or freezes mid-work: its lease lapses after LEASE_S, and the
  next round puts the work back in the queue and announces it;
- Redis restarting empty (its messages gone): the marks of the messages sent
  (`jobs.marks`) went with them, so the first round that reaches Redis again
  announces all queued work at once; its leases went too, so running work is left
  alone for one LEASE_S while live workers take theirs back (`Leases.age_s`);
- a message a worker took and died before it claimed the work: the worker removed
  its mark on taking it, so the next round announces it again;
- a message lost any other way: its mark expires after REQUEUE_AFTER_S;
- beat or PostgreSQL down: nothing is lost, the rounds resume when they are back
  (a worker that cannot reach PostgreSQL fails its task, which Celery retries).
A spare message costs a worker one indexed read: the claim (`matches.start_match`)
is a compare-and-set, so of two messages for one match only one plays it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from ladder.broker import announce
from ladder.models import BotVersion, Match, MatchState, VersionState, utcnow
from ladder.services.infrastructure import WORKER_LOST
from ladder.services.playing import release_match
from ladder.services.validation import release_version
from ladder.settings import Settings

log = logging.getLogger(__name__)


Unmarked = Callable[[str, list[int]], list[int]]


def requeue_stale(
    session: Session,
    settings: Settings,
    leased: Callable[[str, int], bool],
    unmarked: Unmarked | None = None,
) -> dict[str, list[int]]:
    """Hand out again work whose worker died (no lease) or whose message was lost.

    `leased(kind, id)` tells whether a live worker holds that work. A running
    match or validating version without a lease goes back to the queue, or
    fails if that was its last attempt. `unmarked(kind, ids)` picks the queued
    work with no message known to be waiting (`jobs.marks`): it is announced
    again. Without it (no broker to ask), work queued for longer than
    REQUEUE_AFTER_S is. Playing and recording are idempotent, so a spare
    announcement costs only a no-op.

    It owns its transactions (its caller has none open): each release is one of its
    own, on a fresh snapshot, and the last commit sends what it announces.
    """
    now = utcnow()
    grace = now - timedelta(seconds=settings.lease_s)
    old = now - timedelta(seconds=settings.requeue_after_s)
    again: dict[str, list[int]] = {"match": [], "validate": []}
    for match_id in session.scalars(
        select(Match.id)
        .where(Match.state == MatchState.RUNNING, Match.started_at < grace)
        .order_by(Match.id)
    ).all():
        session.rollback()  # each release is a transaction of its own, on a fresh snapshot
        released = not leased("match", match_id) and release_match(
            session, settings, match_id, WORKER_LOST, lapsed_before=grace
        )
        if released == MatchState.QUEUED:
            again["match"].append(match_id)
    again["match"] += _lost(session, unmarked, "match", Match, MatchState.QUEUED, old)
    for version_id in session.scalars(
        select(BotVersion.id)
        .where(BotVersion.state == VersionState.VALIDATING, BotVersion.created_at < grace)
        .order_by(BotVersion.id)
    ).all():
        session.rollback()
        freed = not leased("validate", version_id) and release_version(
            session, settings, version_id, WORKER_LOST, sweep=True
        )
        if freed == VersionState.PENDING:
            again["validate"].append(version_id)
    again["validate"] += _lost(session, unmarked, "validate", BotVersion, VersionState.PENDING, old)
    # A match goes back to the queue it was sent to (a tournament's, a challenge's).
    queues = dict(
        session.execute(select(Match.id, Match.queue).where(Match.id.in_(again["match"]))).all()
    )
    again = {kind: sorted(set(ids)) for kind, ids in again.items()}  # released, then unmarked
    for kind, ids in again.items():
        for ident in ids:
            log.info("requeue", extra={"kind": kind, "id": ident})
            if kind == "match":
                announce.announce(session, announce.kind_of_queue(queues.get(ident)), ident)
            else:
                announce.announce(session, kind, ident)
    session.commit()  # ends the reads above, and sends what they announce
    return again


def _lost(
    session: Session, unmarked: Unmarked | None, kind: str, model, waiting: str, old
) -> list[int]:
    """Waiting work (queued matches, pending versions) whose message may be lost."""
    if unmarked is None:
        return list(
            session.scalars(select(model.id).where(model.state == waiting, model.created_at < old))
        )
    ids = list(session.scalars(select(model.id).where(model.state == waiting).order_by(model.id)))
    return unmarked(kind, ids) if ids else []
