"""Crash triage: a version that faults in every ladder match is paused, not left to sink.

After a ladder (ranked) match is recorded, each version that faulted in it is
checked: if its last PAUSE_AFTER_FAULTS ladder matches all faulted, it leaves
matchmaking with the reason on its page and in the API, until its owner
resumes it. A candidate is checked alike over its test matches: paused, its test
plays no new set (`services.version_tests`). A match in which every seat faulted
does not count either way: that is most likely the host, not the bots (and
infrastructure errors never finish a match at all). 0 turns triage off.
"""

from __future__ import annotations

import logging
from collections import Counter

from sqlalchemy import and_, exists, select
from sqlalchemy.orm import Session, aliased

from ladder.broker.announce import TEST_QUEUE
from ladder.errors import Conflict, Forbidden, NotFound
from ladder.models import BotVersion, Match, MatchSeat, MatchState, User, VersionState, utcnow
from ladder.services import bot_changes
from ladder.settings import Settings
from workers import SeatStatus

log = logging.getLogger(__name__)


def pause_after(settings: Settings) -> int:
    return max(0, settings.pause_after_faults)


def recent_ladder_seats(session: Session, version: BotVersion, count: int) -> list[tuple]:
    """(match id, status, error) of the version's last `count` counted ladder matches,
    newest first: finished, ranked (a candidate's: its test matches), after its last
    resume, with some seat ok."""
    candidate = version.state == VersionState.CANDIDATE
    other = aliased(MatchSeat)
    someone_ok = exists().where(and_(other.match_id == Match.id, other.status == SeatStatus.OK))
    query = (
        select(Match.id, MatchSeat.status, MatchSeat.error)
        .join(MatchSeat, MatchSeat.match_id == Match.id)
        .where(
            MatchSeat.version_id == version.id,
            Match.state == MatchState.FINISHED,
            Match.queue == TEST_QUEUE if candidate else Match.ranked.is_(True),
            someone_ok,
        )
        .order_by(Match.finished_at.desc(), Match.id.desc())
        .limit(count)
    )
    if version.resumed_at is not None:
        query = query.where(Match.finished_at > version.resumed_at)
    return list(session.execute(query))


def check(session: Session, settings: Settings, match: Match) -> list[int]:
    """Pause every version of `match` whose last ladder matches all faulted (in the
    caller's transaction); the ids of the versions paused."""
    count = pause_after(settings)
    tested = match.queue == TEST_QUEUE
    if count == 0 or not (match.ranked or tested):
        return []
    paused = []
    for seat in match.seats:
        version = seat.version
        if version is None or seat.status in (None, SeatStatus.OK) or version.paused_at:
            continue
        if version.state != (VersionState.CANDIDATE if tested else VersionState.ACTIVE):
            continue
        recent = recent_ladder_seats(session, version, count)
        if len(recent) < count or any(status == SeatStatus.OK for _, status, _ in recent):
            continue
        kinds = Counter(status for _, status, _ in recent)
        summary = ", ".join(f"{n} {status}" for status, n in kinds.most_common())
        last_id, last_status, last_error = recent[0]
        because = f": {last_error}" if last_error else ""
        version.paused_at = utcnow()
        version.paused_reason = (
            f"its last {count} {'test' if tested else 'ladder'} matches all faulted ({summary});"
            f" the last, match {last_id}, {last_status}{because}"
        )[:500]
        paused.append(version.id)
        log.info("version paused", extra={"version_id": version.id, "match_id": match.id})
    return paused


def resume(session: Session, user: User, version_id: int) -> BotVersion:
    """Put a paused version back into matchmaking (its owner only)."""
    version = session.get(BotVersion, version_id)
    if version is None:
        raise NotFound(f"no version {version_id}")
    if version.bot.owner_id != user.id:
        raise Forbidden("only the bot's owner can resume it")
    if version.paused_at is None:
        raise Conflict(f"{version.label} is not paused")
    version.paused_at = None
    version.paused_reason = None
    version.resumed_at = utcnow()
    bot_changes.bots_changed(session, [version.bot_id])
    return version
