"""Who can be seated at a ladder table: the scheduler draws from these, and the staff
page reads them to say which games are waiting for owners.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ladder.models import Bot, BotVersion, Rating, User, VersionState
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
        .where(
            Bot.game == game,
            BotVersion.state == VersionState.ACTIVE,
            BotVersion.paused_at.is_(None),  # crash triage: left out until resumed
            Bot.retired_at.is_(None),
        )
        .order_by(BotVersion.id)
    )
    return [
        Candidate(vid, owner, mu, sigma, games, house=(name == house))
        for vid, owner, mu, sigma, games, name in rows
    ]
