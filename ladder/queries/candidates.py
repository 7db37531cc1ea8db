"""Who can be seated at a ladder table: the scheduler draws from these, and the staff
page reads them to say which games are waiting for owners; and the table mix each has
played, which matchmaking balances.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy import select
from sqlalchemy.orm import Session

from ladder.models import Bot, BotVersion, Rating, SeatRecord, User, VersionState
from ladder.ranking.matchmaking import Candidate
from ladder.settings import Settings


def ladder_candidates(session: Session, settings: Settings, game: str) -> list[Candidate]:
    """Every active, rated version of `game` that is not paused, as matchmaking sees it."""
    house = settings.house_user
    rows = session.execute(
        select(BotVersion.id, Bot.owner_id, Rating.mu, Rating.sigma, Rating.games, User.username)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .join(Rating, Rating.version_id == BotVersion.id)
        .join(User, Bot.owner_id == User.id)
        .where(*_seatable(game))
        .order_by(BotVersion.id)
    )
    return [
        Candidate(vid, owner, mu, sigma, games, house=(name == house))
        for vid, owner, mu, sigma, games, name in rows
    ]


def ladder_played(session: Session, game: str) -> dict[int, Counter]:
    """Per candidate of `game` (as `ladder_candidates` finds them), its rated matches by
    (table size, seat): a few rows a version (`SeatRecord`); one that has none is absent."""
    rows = session.execute(
        select(SeatRecord.version_id, SeatRecord.players, SeatRecord.seat, SeatRecord.games)
        .join(BotVersion, SeatRecord.version_id == BotVersion.id)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .where(*_seatable(game))
    )
    played: dict[int, Counter] = {}
    for vid, players, seat, games in rows:
        played.setdefault(vid, Counter())[(players, seat)] = games
    return played


def _seatable(game: str) -> list:
    """The conditions on a version (and its bot) that `ladder_candidates` keeps."""
    return [
        Bot.game == game,
        BotVersion.state == VersionState.ACTIVE,
        BotVersion.paused_at.is_(None),  # crash triage: left out until resumed
        Bot.retired_at.is_(None),
    ]
