"""Reads the live tables' pages need beyond `queries.tables`: the opponents a person may
seat, the public event log of a table, a person's own ratings.

The event log is the engine's public log (`State.log`: what every seat saw happen);
the actions themselves are not shown, since one may be a secret (a Meuterer character
taken face down).
"""

from __future__ import annotations

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

import engine
from ladder.models import Bot, BotVersion, HumanRating, LiveTable, User, VersionState
from ladder.settings import Settings

CHOICES_LIMIT = 200  # opponents offered at most, besides the house bots
LOG_LIMIT = 400  # events answered at most by one read of a table's log


def opponent_choices(session: Session, settings: Settings, game: str, user) -> dict[str, list]:
    """What the play form offers for each other seat: the house bots by name, then every
    active bot the tables service would seat for `user` (its owner allows human play, or
    it is the user's own) by version id."""
    rows = session.execute(
        select(BotVersion.id, Bot.name, User.username, BotVersion.number)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .join(User, User.id == Bot.owner_id)
        .where(
            Bot.game == game,
            Bot.retired_at.is_(None),
            BotVersion.state == VersionState.ACTIVE,
            or_(
                User.username == settings.house_user,
                Bot.human_play.is_(True),
                Bot.owner_id == (user.id if user is not None else -1),
            ),
        )
        .order_by(User.username != settings.house_user, Bot.name, User.username)
        .limit(CHOICES_LIMIT)
    ).all()
    house = [name for _id, name, owner, _n in rows if owner == settings.house_user]
    others = [
        (version_id, f"{owner}/{name} v{number}")
        for version_id, name, owner, number in rows
        if owner != settings.house_user
    ]
    return {"house": house, "bots": others}


def public_log(table: LiveTable, since: int = -1) -> dict:
    """The public events of the table's steps after `since` (-1: from the deal, before the
    first move): [{"step", "mover", "event", ...}], `mover` being the seat that moved at
    that step (None for the deal)."""
    state = engine.get_game(table.game).new_game(
        table.players, seed=table.seed, options=dict(table.options or {})
    )
    events: list[dict] = (
        [{"step": 0, "mover": None, **event} for event in state.log] if since < 0 else []
    )
    for step, (seat, action) in enumerate(table.actions, start=1):
        logged = len(state.log)
        state.apply(action)
        if step > since:
            events.extend({"step": step, "mover": seat, **event} for event in state.log[logged:])
    return {"step": len(table.actions), "events": events[-LOG_LIMIT:]}


def ratings_of(session: Session, user_id: int) -> list[dict]:
    """A person's ratings from live tables, one per game played."""
    rows = session.scalars(
        select(HumanRating).where(HumanRating.user_id == user_id).order_by(HumanRating.game)
    ).all()
    return [
        {"game": r.game, "mu": r.mu, "sigma": r.sigma, "skill": r.skill, "games": r.games}
        for r in rows
    ]
