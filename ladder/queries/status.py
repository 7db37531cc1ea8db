"""The ladder's health at a glance, for staff: queue, workers, matches in flight, games
waiting for owners, failures.

Everything is read fresh on each call; nothing here writes. The broker may be
missing (no REDIS_URL) or down: then the Redis figures are None with a note
saying why, and the database figures are still given.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import engine
from ladder.broker import store as broker
from ladder.models import (
    IN_FLIGHT,
    Bot,
    BotVersion,
    Match,
    MatchState,
    VersionState,
    utcnow,
    version_label,
)
from ladder.queries.candidates import ladder_candidates
from ladder.ranking.matchmaking import open_seats
from ladder.settings import Settings

log = logging.getLogger(__name__)

RECENT_FAILURES = 5
REASON_CHARS = 200
NO_BROKER = "no broker configured (REDIS_URL is not set)"


def ladder_status(session: Session, settings: Settings, now: datetime | None = None) -> dict:
    """A plain dict of the ladder's health (see the staff page for what each part means)."""
    now = now or utcnow()
    url = settings.redis_url
    depth, note = queue_depth(url)
    # Ask for workers only when Redis answered: a second dead connection would stall.
    workers = workers_seen(url) if url and depth is not None else []
    hour_ago = now - timedelta(hours=1)
    return {
        "generated_at": _iso(now),
        "broker_note": note,
        "queue": {"name": broker.QUEUE, "depth": depth},
        "workers": workers,
        "isolation_warnings": isolation_warnings(workers),
        "in_flight": in_flight(session),
        "waiting": waiting_for_owners(session, settings),
        "failures_last_hour": failures_since(session, hour_ago),
        "finished": {
            "last_hour": finished_since(session, hour_ago),
            "last_5_minutes": finished_since(session, now - timedelta(minutes=5)),
        },
    }


def queue_depth(redis_url: str | None) -> tuple[int | None, str | None]:
    """Messages waiting in the default queue, or None and why it is unknown."""
    if not redis_url:
        return None, NO_BROKER
    try:
        client = broker.quick(redis_url)
    except ValueError as exc:  # not a redis:// URL
        return None, f"broker URL not understood: {exc}"
    try:
        return int(client.llen(broker.QUEUE)), None
    except broker.RedisError as exc:
        return None, f"broker unreachable: {exc}"
    finally:
        client.close()


def workers_seen(redis_url: str) -> list[dict]:
    """The workers whose heartbeat is in Redis (seen in broker.WORKER_FORGET_S), by name.

    Each is {"name", "seen_at", "isolation", "warning"}: isolation is how its
    bots are kept apart ("cgroup-v1", "cgroup-v2" or "signals"; None if unknown).
    """
    try:
        client = broker.quick(redis_url)
        try:
            keys = sorted(client.scan_iter(match=broker.WORKER_KEY + "*", count=500))
            values = client.mget(keys) if keys else []
        finally:
            client.close()
    except broker.RedisError:  # the page must render whatever the broker does
        log.warning("reading worker heartbeats failed", exc_info=True)
        return []
    return [
        _worker(broker.worker_name(key), value)
        for key, value in zip(keys, values, strict=True)
        if value is not None  # expired between the scan and the read
    ]


def _worker(name: str, value: bytes | str) -> dict:
    """A heartbeat: JSON {"at", "isolation"}, or a bare timestamp from older workers."""
    text = value.decode(errors="replace") if isinstance(value, bytes) else value
    try:
        beat = json.loads(text)
    except ValueError:
        beat = None
    if not isinstance(beat, dict):
        beat = {"at": text}
    found = beat.get("isolation")
    isolation = found if isinstance(found, dict) else {}
    return {
        "name": name,
        "seen_at": beat.get("at"),
        "isolation": isolation.get("mode"),
        "warning": isolation.get("warning"),
    }


def isolation_warnings(workers: list[dict]) -> list[str]:
    """One line per worker whose bots are paused by signals only (a bot could escape)."""
    return [
        f"{w['name']}: {w['warning'] or 'bots are paused by signals only'}"
        for w in workers
        if w["isolation"] == "signals"
    ]


def in_flight(session: Session) -> dict[str, dict[str, int]]:
    """Queued and running matches per game; every registered game is listed, even idle."""
    counts: dict[str, dict[str, int]] = {
        name: dict.fromkeys(IN_FLIGHT, 0) for name in engine.game_names()
    }
    rows = session.execute(
        select(Match.game, Match.state, func.count(Match.id))
        .where(Match.state.in_(IN_FLIGHT))
        .group_by(Match.game, Match.state)
    )
    for game, state, count in rows:
        counts.setdefault(game, dict.fromkeys(IN_FLIGHT, 0))[state] = count
    return dict(sorted(counts.items()))


def waiting_for_owners(session: Session, settings: Settings) -> dict[str, dict]:
    """The games whose ladder cannot fill even its smallest table under the owner rule
    (`ranking.matchmaking`), so no rated match is made: how many seats its owners and
    house bots could fill, how many are needed, and a line saying so."""
    waiting = {}
    for name in engine.game_names():
        candidates = ladder_candidates(session, settings, name)
        seats, needed = open_seats(candidates), engine.get_game(name).min_players
        if seats >= needed:
            continue
        owners = len({c.owner_id for c in candidates if not c.house})
        house = seats - owners
        who = _count(owners, "owner") + (f" and {_count(house, 'house bot')}" if house else "")
        waiting[name] = {
            "seats": seats,
            "needed": needed,
            "line": f"waiting: {who} can play, {needed} needed",
        }
    return waiting


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


def finished_since(session: Session, since: datetime) -> int:
    return (
        session.scalar(
            select(func.count(Match.id)).where(
                Match.state == MatchState.FINISHED, Match.finished_at >= since
            )
        )
        or 0
    )


def failures_since(session: Session, since: datetime) -> dict:
    """Failed matches and failed validations since `since`, with the latest few."""
    failed_matches = session.scalars(
        select(Match)
        .where(Match.state == MatchState.FAILED, Match.finished_at >= since)
        .order_by(Match.finished_at.desc(), Match.id.desc())
    ).all()
    failed_versions = session.execute(
        select(BotVersion, Bot.game, Bot.name)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .where(BotVersion.state == VersionState.FAILED, BotVersion.validated_at >= since)
        .order_by(BotVersion.validated_at.desc(), BotVersion.id.desc())
    ).all()
    recent = [_match_failure(m) for m in failed_matches[:RECENT_FAILURES]]
    recent += [
        {
            "kind": "validation",
            "id": version.id,
            "game": game,
            "at": _iso(version.validated_at),
            "reason": f"{version_label(name, version.number)}: "
            f"{_validation_reason(version.validation_log)}",
        }
        for version, game, name in failed_versions[:RECENT_FAILURES]
    ]
    recent.sort(key=lambda item: (item["at"], item["id"]), reverse=True)
    return {
        "matches": len(failed_matches),
        "validations": len(failed_versions),
        "recent": recent[:RECENT_FAILURES],
    }


def _match_failure(match: Match) -> dict:
    return {
        "kind": "match",
        "id": match.id,
        "game": match.game,
        "at": _iso(match.finished_at),
        "reason": _clip(match.unrated_reason or "no reason recorded"),
    }


def _validation_reason(text: str) -> str:
    """The telling line of a validation log: the fault, else the bot's status, else the last."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    for prefix in ("Fault:", "Your bot:", "Validation failed:"):
        found = [line for line in lines if line.startswith(prefix)]
        if found:
            return _clip(found[-1])
    return _clip(lines[-1] if lines else "no log")


def _clip(text: str) -> str:
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat(timespec="seconds") + "Z"
