"""What the local runners (`ladder play`, `ladder tournament run`, `ladder replay`) share:
the game argument, the sandbox options that become the bots' limits, who owns the
house bots, and `--fail-on-fault` with its exit code."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

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


# `--fail-on-fault`'s exit code: 1, as ARCHITECTURE.md fixes it for `ladder play` (the code
# `ladder replay` gives a fault too); 2 stays click's, for bad arguments.
FAULT_EXIT = 1

fail_on_fault_option = click.option(
    "--fail-on-fault",
    is_flag=True,
    help=f"exit {FAULT_EXIT} when a seat of a bot given as a path faulted (crash, timeout,"
    " invalid, illegal or killed), so a CI job can gate on it; house bots do not count",
)


def given_as_path(spec: str) -> bool:
    """Whether a BOT argument is the user's own bot (a path), not a house name: the rule
    `workers.resolve` applies first."""
    return Path(spec).exists()


def fail_if_faulted(faulted: Iterable[str]) -> None:
    """Exit FAULT_EXIT, naming them on stderr, when any of these bot arguments (those
    that faulted in some seat) was given as a path."""
    mine = sorted({spec for spec in faulted if given_as_path(spec)})
    if mine:
        click.echo(f"--fail-on-fault: a seat faulted for {', '.join(mine)}", err=True)
        raise SystemExit(FAULT_EXIT)
