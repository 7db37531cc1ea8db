"""The house bots: a demo account whose bots are permanent ladder members.

`make run` seeds them so every game's ladder has players from the first
minute: for each game every house bot in `bots/house/` (`random`, `greedy`,
`search`) and the starter template. They are trusted code of ours, so they
skip validation.
"""

from __future__ import annotations

import dataclasses
import secrets
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import engine
from ladder.broker import announce
from ladder.errors import Conflict, ServiceError
from ladder.models import Bot, User
from ladder.services import accounts
from ladder.services import bots as bot_service
from ladder.settings import Settings
from ladder.transactions import unit_of_work
from workers import house_bots, house_file


def house_files(game: str) -> dict[str, Path]:
    """Bot name -> file, for one game's house bots and its starter template (the same
    names `ladder play` resolves, so every bot the site shows for the house runs locally)."""
    files = {}
    for spec in house_bots():
        owner, name = spec.split("/")
        if owner == game:
            path = house_file(game, name)
            if path is not None:
                files[name] = path
    return files


def house_user(session: Session, name: str, password: str | None = None) -> User:
    """The house account, made if missing; ServiceError if another account holds the name
    in another case (registered before the name was reserved): rename that one first.

    It owns its transaction (its caller has no unit open): an account registered at the
    same moment by another `ladder house` ends only this one, and the name is looked up
    again."""
    found = session.scalar(select(User).where(func.lower(User.username) == name.lower()))
    if found is not None and found.username != name:
        raise ServiceError(
            f"the account {found.username!r} holds the house name {name!r} in another case;"
            " rename it (or set HOUSE_USER) and run `ladder house` again"
        )
    if found is not None:
        return found
    try:
        with unit_of_work(session):
            return accounts.register(session, name, password or secrets.token_urlsafe(16))
    except Conflict:  # registered at this very moment by another `ladder house`
        return house_user(session, name)


def seed_house_bots(session: Session, settings: Settings, password: str | None = None) -> list[str]:
    """Create the demo account and its bots where missing; returns the bots created.

    It owns its transactions (its caller has no unit open): the account first
    (`house_user`), then each bot as `bots.upload_version` stores it, and its
    validation, trusted, in a unit of its own; a bot seeded is kept if a later one fails.
    """
    name = settings.house_user
    user = house_user(session, name, password)
    unlimited = dataclasses.replace(
        settings, uploads_per_hour=10_000, refused_uploads_per_hour=10_000
    )
    created = []
    for game in engine.game_names():
        for bot_name, path in house_files(game).items():
            exists = session.scalar(
                select(Bot.id).where(
                    Bot.owner_id == user.id, Bot.game == game, Bot.name == bot_name
                )
            )
            if exists:
                continue
            with announce.quiet(session):  # trusted code: never sent to validation
                version = bot_service.upload_version(
                    session, unlimited, user, game, bot_name, f"{bot_name}.py", path.read_bytes()
                )
            with unit_of_work(session):
                bot_service.start_validation(session, version.id)
                bot_service.finish_validation(session, version.id, True, "House bot: trusted code.")
            created.append(f"{game}/{bot_name}")
    return created
