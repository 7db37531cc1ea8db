"""What the local runners (`ladder play`, `ladder tournament run`, `ladder replay`) share:
the game argument, the sandbox options that become the bots' limits, and who owns the
house bots."""

from __future__ import annotations

import os

import click

import engine


def sandbox_options(command):
    """--move-ms, --bank-ms and --unsafe-no-sandbox, as both local runners take them."""
    for option in reversed(
        (
            click.option("--move-ms", type=click.IntRange(min=1), help="wall-clock limit per move"),
            click.option("--bank-ms", type=click.IntRange(min=1), help="time bank per match"),
            click.option(
                "--unsafe-no-sandbox",
                is_flag=True,
                help="development only: run bots without bubblewrap when it is missing",
            ),
        )
    ):
        command = option(command)
    return command


def check_game(game: str) -> None:
    """A usage error naming the known games, for a GAME argument that is none of them."""
    if game not in engine.game_names():
        raise click.BadParameter(
            f"unknown game {game!r}; known: {', '.join(engine.game_names())}", param_hint="GAME"
        )


def house_owner() -> str:
    """Who owns the house bots in `info["seats"]` of a local match: the service's house
    account, HOUSE_USER as the service reads it (`demo` unless set)."""
    from workers.info import HOUSE_OWNER

    return os.environ.get("HOUSE_USER") or HOUSE_OWNER


def limits(move_ms: int | None, bank_ms: int | None):
    """The bots' limits: the defaults, with the times given on the command line."""
    from workers import Limits

    given = {"move_ms": move_ms, "bank_ms": bank_ms}
    return Limits.from_dict({k: v for k, v in given.items() if v is not None})
