"""A bot's replays as one zip, streamed: one replay in memory at a time, whatever the count.

The zip holds `match-<id>.json.gz` per match (the stored bytes, as the replay
download serves them, not compressed again), an `index.json` listing each of the
bot's seats (match id, time, seat, version, status), and last a `manifest.json`
listing each match: its file, game and finish, every seat (bot, version, owner, or
the person at a live table; rank, score, status) and `my_seats`, the seats of the bot
the zip is for (two versions of one bot share a candidate's test matches).
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
from ladder.models import Bot, BotVersion, Match, MatchSeat, MatchState
from ladder.queries.boards import FORMER_PLAYER, iso, seat_facts

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000


@dataclass(frozen=True)
class Entry:
    """One match of the archive: every seat, and which of them are the bot's."""

    match_id: int
    game: str
    finished_at: datetime | None
    seats: tuple[dict, ...]  # as the manifest lists them, in seat order
    mine: tuple[int, ...]  # the seats of the bot the archive is for

    @property
    def file(self) -> str:
        return f"match-{self.match_id}.json.gz"

    def index_rows(self) -> list[dict]:
        """What `index.json` says of the match: one row per seat of the bot."""
        return [
            {
                "match": self.match_id,
                "finished_at": self.finished_at.isoformat() if self.finished_at else None,
                "seat": seat,
                "version": self.seats[seat]["version"],
                "status": self.seats[seat]["status"],
                "file": self.file,
            }
            for seat in self.mine
        ]

    def manifest(self) -> dict:
        """What `manifest.json` says of the match."""
        return {
            "match_id": self.match_id,
            "file": self.file,
            "missing": False,
            "game": self.game,
            "finished_at": iso(self.finished_at),
            "my_seats": list(self.mine),
            "seats": list(self.seats),
        }


def entries(
    session: Session,
    bot_id: int,
    version: int | None = None,
    since: datetime | None = None,
    limit: int = DEFAULT_LIMIT,
) -> list[Entry]:
    """The bot's finished matches with a replay, newest first, filtered (`version`: a
    match where that version of the bot sat)."""
    with_bot = (
        select(MatchSeat.match_id)
        .join(BotVersion, BotVersion.id == MatchSeat.version_id)
        .where(BotVersion.bot_id == bot_id)
    )
    if version is not None:
        with_bot = with_bot.where(BotVersion.number == version)
    query = (
        select(Match.id, Match.game, Match.finished_at)
        .where(
            Match.id.in_(with_bot),
            Match.state == MatchState.FINISHED,
            Match.replay_key.is_not(None),
        )
        .order_by(Match.id.desc())
        .limit(max(1, min(limit, MAX_LIMIT)))
    )
    if since is not None:
        query = query.where(Match.finished_at >= since)
    found = session.execute(query).all()
    seats = _seats(session, [row.id for row in found])
    return [
        Entry(
            match_id,
            game,
            finished_at,
            tuple(seat for seat, _ in seats[match_id]),
            tuple(seat["seat"] for seat, of_bot in seats[match_id] if of_bot == bot_id),
        )
        for match_id, game, finished_at in found
    ]


def _seats(session: Session, match_ids: list[int]) -> dict[int, list[tuple[dict, int | None]]]:
    """Each match's seats in seat order, as the manifest lists them, with the id of the
    bot in each (None for a person's seat)."""
    rows = seat_facts(session, match_ids)
    by_match: dict[int, list[tuple[dict, int | None]]] = {m: [] for m in match_ids}
    for seat, number, bot_id, name, owned_by, username in rows:
        fact = {
            "seat": seat.seat,
            "person": None if seat.version_id is not None else username or FORMER_PLAYER,
            "bot_id": bot_id,
            "bot": name,
            "owner": owned_by,
            "version_id": seat.version_id,
            "version": number,
            "rank": seat.rank,
            "score": seat.score,
            "status": seat.status,
        }
        by_match[seat.match_id].append((fact, bot_id))
    return by_match


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

    def close(self) -> None:
        pass

    def take(self) -> bytes:
        data, self.parts = b"".join(self.parts), []
        return data


def about(bot: Bot) -> dict:
    """What the manifest says of the bot the archive is for (read before the zip is
    streamed: the bot is not loaded again then)."""
    return {"id": bot.id, "name": bot.name, "game": bot.game, "owner": bot.owner.username}


def stream(found: list[Entry], load: Callable[[int], bytes], bot: dict) -> Iterator[bytes]:
    """The zip of `found`, chunk by chunk; `load(match_id)` gives a replay's stored bytes;
    `bot` is `about(the bot)`.

    A match whose replay went missing is listed in the index and the manifest with
    `"missing": true` and no file, instead of failing the whole download half-way.
    """
    out = _Chunks()
    index, manifest = [], []
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as archive:
        for entry in found:
            rows, listed = entry.index_rows(), entry.manifest()
            try:
                data = load(entry.match_id)
            except NotFound:
                for row in rows:
                    row.update(missing=True, file=None)
                listed.update(missing=True, file=None)
            else:
                info = zipfile.ZipInfo(entry.file, _zip_time(entry.finished_at))
                archive.writestr(info, data)
            index.extend(rows)
            manifest.append(listed)
            yield out.take()
        listing = {"bot": bot["name"], "matches": index}
        archive.writestr("index.json", json.dumps(listing, indent=1) + "\n")
        archive.writestr(
            "manifest.json", json.dumps({"bot": bot, "matches": manifest}, indent=1) + "\n"
        )
    yield out.take()


def _zip_time(when: datetime | None) -> tuple:
    if when is None or when.year < 1980:
        return (1980, 1, 1, 0, 0, 0)
    return (when.year, when.month, when.day, when.hour, when.minute, when.second)


def archive_name(bot_name: str, bot_id: int) -> str:
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in bot_name) or "bot"
    return f"{safe}-{bot_id}-replays.zip"
