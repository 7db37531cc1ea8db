"""Keeping the ladder busy: every game topped up to LADDER_IN_FLIGHT ranked matches.

Beat calls `schedule_ladder` every few seconds; matchmaking itself is pure
(`ladder.ranking.matchmaking`), this module reads its candidates and stores the
tables it draws, each under the game's lock.
"""

from __future__ import annotations

import logging
import random

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from ladder.models import (
    IN_FLIGHT,
    Bot,
    BotVersion,
    Match,
    MatchSeat,
    User,
)
from ladder.queries.candidates import ladder_candidates
from ladder.ranking.matchmaking import make_table
from ladder.services import matches as match_service
from ladder.services import throttle
from ladder.settings import Settings

log = logging.getLogger(__name__)


# -- keeping the ladder busy -------------------------------------------------------------
def schedule_ladder(session: Session, settings: Settings, rng: random.Random) -> list[int]:
    """Top every game up to LADDER_IN_FLIGHT ranked matches queued or running.

    A game whose owners cannot fill its smallest table under the owner rule
    (`ranking.matchmaking`) gets none and waits; the staff page says so.

    It owns its transactions (its caller has none open): one per match it makes, the
    game's lock taken, the match made and committed, so the lock is held no longer.
    """
    created = []
    target = settings.ladder_in_flight
    for name in engine.game_names():
        game = engine.get_game(name)
        while True:
            # Each match is counted, drawn, checked and made under the game's lock
            # (the commit after create_match ends it): two schedulers at once top up to the
            # target, not past it, never seat a bot the other just seated, and store only
            # tables whose owners the database shows apart.
            throttle.lock(session, f"schedule:{name}")
            in_flight = session.scalars(
                select(Match.id).where(Match.game == name, Match.ranked, Match.state.in_(IN_FLIGHT))
            ).all()
            busy = set(
                session.scalars(
                    select(MatchSeat.version_id).where(MatchSeat.match_id.in_(in_flight))
                )
            )
            candidates = ladder_candidates(session, settings, name)
            table = len(in_flight) < target and make_table(
                candidates, game.min_players, game.max_players, rng, busy
            )
            if not table or not _owners_apart(session, settings, table):
                session.rollback()  # ends the lock
                break
            match = match_service.create_match(session, settings, name, table, ranked=True)
            session.commit()  # ends the lock, and sends the match to the workers
            created.append(match.id)
    return created


def _owners_apart(session: Session, settings: Settings, table: list[int]) -> bool:
    """Whether the rows seat each owner once (house bots apart), read under the game's
    lock just before the match is stored: the rule rests on the database, not only on
    the list the table was drawn from."""
    house = settings.house_user
    owners = session.execute(
        select(Bot.owner_id, User.username)
        .join(BotVersion, BotVersion.bot_id == Bot.id)
        .join(User, Bot.owner_id == User.id)
        .where(BotVersion.id.in_(table))
    ).all()
    seated = [owner for owner, username in owners if username != house]
    if len(owners) == len(table) and len(seated) == len(set(seated)):
        return True
    log.error("a ladder table broke the owner rule; not stored", extra={"versions": table})
    return False
