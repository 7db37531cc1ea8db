"""Limits on costly actions, counted and checked as one step.

A limit read in one statement and written in another lets every request that
arrives together pass (30 simultaneous logins all counted 0). So whoever counts
first takes a row lock standing for the key (`lock`), counts, records its own
attempt and commits; the next one waits for the commit and counts it too.
The lock is an upsert of a row in `throttle_locks`: PostgreSQL holds that row's
lock to the end of the transaction; SQLite, whose writers take turns anyway,
takes its write lock there, before the counting reads. Keys hash into a
bounded number of slots per kind, so the table never grows.
"""

from __future__ import annotations

import math
import zlib
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from ladder.errors import RateLimited
from ladder.models import ThrottleEvent, ThrottleLock, upsert, utcnow

SLOTS = 1024
KEEP = timedelta(days=1)  # events older than every window are deleted as new ones come


def slot(key: str) -> str:
    """The lock row for `key`: its kind (before the first ':') and one of SLOTS."""
    kind = key.split(":", 1)[0][:20]
    return f"{kind}:{zlib.crc32(key.encode()) % SLOTS}"


def lock(session: Session, *keys: str) -> None:
    """Lock the rows of `keys` (in sorted order: no deadlock) until the transaction ends."""
    now = utcnow()
    for name in sorted({slot(key) for key in keys}):
        statement = upsert(session, ThrottleLock).values(slot=name, at=now)
        session.execute(
            statement.on_conflict_do_update(index_elements=[ThrottleLock.slot], set_={"at": now})
        )


def recent(session: Session, kind: str, key: str, since: datetime) -> tuple[int, datetime | None]:
    """How many `kind` events of `key` happened since `since`, and the oldest of them."""
    return session.execute(
        select(func.count(ThrottleEvent.id), func.min(ThrottleEvent.at)).where(
            ThrottleEvent.kind == kind, ThrottleEvent.key == key, ThrottleEvent.at >= since
        )
    ).one()


def record(session: Session, kind: str, key: str, now: datetime) -> ThrottleEvent:
    """Count one `kind` event of `key` (the caller commits), forgetting old ones."""
    session.execute(delete(ThrottleEvent).where(ThrottleEvent.at < now - KEEP))
    event = ThrottleEvent(kind=kind, key=key[:64], at=now)
    session.add(event)
    return event


def check(
    session: Session,
    kind: str,
    key: str,
    limit: int,
    window: timedelta,
    now: datetime,
    what: str,
) -> None:
    """Refuse when `key` has `limit` `kind` events in `window` (RateLimited "at most
    {limit} {what}; try again in …", with the wait); count nothing. The caller holds
    the key's lock (`lock`) to the end of its transaction."""
    count, oldest = recent(session, kind, key, now - window)
    if count >= limit:
        assert oldest is not None  # counted, so there is an oldest
        wait = seconds_until(oldest + window, now)
        raise RateLimited(
            f"at most {limit} {what}; try again in {in_words(wait)}", retry_after=wait
        )


def take(
    session: Session,
    kind: str,
    key: str,
    limit: int,
    window: timedelta,
    now: datetime,
    what: str,
) -> None:
    """Count one `kind` event of `key` under its lock, or refuse it past `limit` events in
    `window` (`check`).

    The caller's transaction holds the lock and commits the count."""
    lock(session, f"{kind}:{key}")
    check(session, kind, key, limit, window, now, what)
    record(session, kind, key, now)


def seconds_until(moment: datetime, now: datetime) -> int:
    """Whole seconds from `now` to `moment`, at least 1 (a Retry-After)."""
    return max(1, math.ceil((moment - now).total_seconds()))


def in_words(seconds: int) -> str:
    """`seconds` as people read a wait: minutes, rounded up."""
    minutes = max(1, math.ceil(seconds / 60))
    return f"{minutes} minute{'s' * (minutes > 1)}"
