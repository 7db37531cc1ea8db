"""A bot's replays as one zip, streamed: one replay in memory at a time, whatever the count.

The zip holds `match-<id>.json.gz` per match (the stored bytes, as the replay
download serves them, not compressed again) and an `index.json` listing each
match's id, time, the bot's seat, version and status.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from ladder.errors import NotFound
from ladder.models import BotVersion, Match, MatchSeat, MatchState

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000


@dataclass(frozen=True)
class Entry:
    """One match of the archive: what `index.json` says of it."""

    match_id: int
    finished_at: datetime | None
    seat: int
    version: int
    status: str | None

    def as_json(self) -> dict:
        return {
            "match": self.match_id,
            "finished_at": self.finished_at.isoformat() if self.finished_at else None,
            "seat": self.seat,
            "version": self.version,
            "status": self.status,
            "file": f"match-{self.match_id}.json.gz",
        }


def entries(
    session: Session,
    bot_id: int,
    version: int | None = None,
    since: datetime | None = None,
    limit: int = DEFAULT_LIMIT,
) -> list[Entry]:
    """The bot's finished matches with a replay, newest first, filtered."""
    query = (
        select(Match.id, Match.finished_at, MatchSeat.seat, BotVersion.number, MatchSeat.status)
        .join(MatchSeat, MatchSeat.match_id == Match.id)
        .join(BotVersion, BotVersion.id == MatchSeat.version_id)
        .where(
            BotVersion.bot_id == bot_id,
            Match.state == MatchState.FINISHED,
            Match.replay_key.is_not(None),
        )
        .order_by(Match.id.desc(), MatchSeat.seat)
        .limit(max(1, min(limit, MAX_LIMIT)))
    )
    if version is not None:
        query = query.where(BotVersion.number == version)
    if since is not None:
        query = query.where(Match.finished_at >= since)
    return [Entry(*row) for row in session.execute(query)]


class _Chunks:
    """A write-only file that hands what was written to the generator in chunks."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.offset = 0

    def write(self, data: bytes) -> int:
        self.parts.append(bytes(data))
        self.offset += len(data)
        return len(data)

    def tell(self) -> int:
        return self.offset

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        data, self.parts = b"".join(self.parts), []
        return data


def stream(found: list[Entry], load: Callable[[int], bytes], bot_name: str) -> Iterator[bytes]:
    """The zip of `found`, chunk by chunk; `load(match_id)` gives a replay's stored bytes.

    A match whose replay went missing is listed in the index with `"missing": true`
    instead of failing the whole download half-way.
    """
    out = _Chunks()
    index = []
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for entry in found:
            item = entry.as_json()
            try:
                data = load(entry.match_id)
            except NotFound:
                item["missing"] = True
                item["file"] = None
            else:
                info = zipfile.ZipInfo(item["file"], _zip_time(entry.finished_at))
                archive.writestr(info, data)
            index.append(item)
            yield out.take()
        listing = {"bot": bot_name, "matches": index}
        archive.writestr("index.json", json.dumps(listing, indent=1) + "\n")
    yield out.take()


def _zip_time(when: datetime | None) -> tuple:
    if when is None or when.year < 1980:
        return (1980, 1, 1, 0, 0, 0)
    return (when.year, when.month, when.day, when.hour, when.minute, when.second)


def archive_name(bot_name: str, bot_id: int) -> str:
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in bot_name) or "bot"
    return f"{safe}-{bot_id}-replays.zip"
