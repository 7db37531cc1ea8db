"""Keeping the ladder busy: every game topped up to LADDER_IN_FLIGHT ranked matches.

Beat calls `schedule_ladder` every few seconds; matchmaking itself is pure
(`ladder.ranking.matchmaking`), this module reads its candidates and the table mix
each has played (rated matches by table size and seat, plus the tables in flight),
and stores the tables it draws, each under the game's lock.
"""

from __future__ import annotations

import logging
import random
from collections import Counter

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
from ladder.queries.candidates import ladder_candidates, ladder_played
from ladder.ranking import table_mix
from ladder.ranking.matchmaking import make_table
from ladder.services import matches as match_service
from ladder.services import throttle
from ladder.settings import Settings

log = logging.getLogger(__name__)


# -- keeping the ladder busy -------------------------------------------------------------
# Matches made a transaction at most: the game's lock is held while they are drawn, and
# the workers hear of them when it commits, so a batch stays short (tens of milliseconds).
BATCH = 50


def schedule_ladder(session: Session, settings: Settings, rng: random.Random) -> list[int]:
    """Top every game up to LADDER_IN_FLIGHT ranked matches queued or running.

    A game whose owners cannot fill its smallest table under the owner rule
    (`ranking.matchmaking`) gets none and waits; the staff page says so.

    It owns its transactions (its caller has none open): one per batch of up to BATCH
    matches, the game's lock taken, the matches made and committed, so the lock is held
    no longer.
    """
    created: list[int] = []
    for name in engine.game_names():
        while True:
            made, more = _fill_batch(session, settings, name, rng)
            created.extend(made)
            if not more:
                break
    return created


def _fill_batch(
    session: Session, settings: Settings, name: str, rng: random.Random
) -> tuple[list[int], bool]:
    """One transaction of matches for `name`: (their ids, whether the game may want more).

    Everything is read once under the game's lock (what is in flight, who sits there,
    the candidates and their table mixes) and kept up to date in memory as tables are
    drawn, so a match costs its inserts, not a read of the whole ladder. A table in
    flight counts in its bots' mixes already: it is rated unless it fails. Two schedulers
    at once take turns on the lock: they top up to the target, not past it, never seat a
    bot the other just seated, and store only tables whose owners the database shows apart.
    """
    game = engine.get_game(name)
    throttle.lock(session, f"schedule:{name}")
    in_flight = session.scalars(
        select(Match.id).where(Match.game == name, Match.ranked, Match.state.in_(IN_FLIGHT))
    ).all()
    played = ladder_played(session, name)
    busy = set()
    for vid, seat, players in session.execute(
        select(MatchSeat.version_id, MatchSeat.seat, Match.players)
        .join(Match, MatchSeat.match_id == Match.id)
        .where(MatchSeat.match_id.in_(in_flight))
    ):
        if vid is not None:
            busy.add(vid)
            played.setdefault(vid, Counter())[(players, seat)] += 1
    candidates = ladder_candidates(session, settings, name)
    target = table_mix.target_sizes(name, game.min_players, game.max_players)
    room = min(settings.ladder_in_flight - len(in_flight), BATCH)
    tables: list[list[int]] = []
    while len(tables) < room:
        table = make_table(
            candidates, game.min_players, game.max_players, rng, busy, played, target
        )
        if not table:
            break
        tables.append(table)
        busy.update(table)  # house bots stay eligible: make_table never counts them busy
        for seat, vid in enumerate(table):
            played.setdefault(vid, Counter())[(len(table), seat)] += 1
    if not tables or not all(_owners_apart(session, settings, tables)):
        session.rollback()  # ends the lock
        return [], False
    made = [
        match_service.create_match(session, settings, name, table, ranked=True).id
        for table in tables
    ]
    session.commit()  # ends the lock, and sends the matches to the workers
    return made, len(tables) == BATCH


def _owners_apart(session: Session, settings: Settings, tables: list[list[int]]) -> list[bool]:
    """Per table, whether the rows seat each owner once (house bots apart), read in one
    query under the game's lock just before the matches are stored: the rule rests on
    the database, not only on the list the tables were drawn from."""
    house = settings.house_user
    owner_of = {
        vid: (owner, username == house)
        for vid, owner, username in session.execute(
            select(BotVersion.id, Bot.owner_id, User.username)
            .join(Bot, BotVersion.bot_id == Bot.id)
            .join(User, Bot.owner_id == User.id)
            .where(BotVersion.id.in_({vid for table in tables for vid in table}))
        )
    }
    verdicts = []
    for table in tables:
        found = [owner_of[vid] for vid in table if vid in owner_of]
        seated = [owner for owner, is_house in found if not is_house]
        apart = len(found) == len(table) and len(seated) == len(set(seated))
        if not apart:
            log.error("a ladder table broke the owner rule; not stored", extra={"versions": table})
        verdicts.append(apart)
    return verdicts
