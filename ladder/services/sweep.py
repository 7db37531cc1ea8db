"""The lost-work sweep: work whose worker died, or whose message was lost, handed
out again. Beat runs it before every scheduling round.
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


def requeue_stale(
    session: Session, settings: Settings, leased: Callable[[str, int], bool]
) -> dict[str, list[int]]:
    """Hand out again work whose worker died (no lease) or whose message was lost.

    `leased(kind, id)` tells whether a live worker holds that work. A running
    match or validating version without a lease goes back to the queue, or
    fails if that was its last attempt; work queued for longer than
    REQUEUE_AFTER_S is announced again. Playing and recording are idempotent,
    so a spare announcement costs only a no-op.

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
    again["match"] += session.scalars(
        select(Match.id).where(Match.state == MatchState.QUEUED, Match.created_at < old)
    ).all()
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
    again["validate"] += session.scalars(
        select(BotVersion.id).where(
            BotVersion.state == VersionState.PENDING, BotVersion.created_at < old
        )
    ).all()
    # A match goes back to the queue it was sent to (a tournament's, a challenge's).
    queues = dict(
        session.execute(select(Match.id, Match.queue).where(Match.id.in_(again["match"]))).all()
    )
    for kind, ids in again.items():
        for ident in sorted(set(ids)):
            log.info("requeue", extra={"kind": kind, "id": ident})
            if kind == "match":
                announce.announce(session, announce.kind_of_queue(queues.get(ident)), ident)
            else:
                announce.announce(session, kind, ident)
    session.commit()  # ends the reads above, and sends what they announce
    return again
