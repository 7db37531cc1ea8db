"""The `ladder` command line: `main` and its subcommands (the console script `ladder`).

Each subcommand is a thin wrapper: `artifacts`, `db`, `ratings` and `staff` are groups
of their own modules, `run`/`web`/`worker`/`beat` start the processes of `processes`, and
`play` runs matches locally through `play`, `test` a sequential test through `sprt`.
The groups of modules of their own are imported only when run (`lazy.py`): `ladder play`
starts without Flask or SQLAlchemy.
"""

from __future__ import annotations

import random
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

import engine
from ladder.cli.lazy import LazyGroup
from ladder.cli.options import (
    check_game,
    fail_if_faulted,
    fail_on_fault_option,
    house_owner,
    sandbox_options,
)
from ladder.cli.options import limits as sandbox_limits

# The groups and commands of modules of their own, imported when run (`lazy.py`), each
# with its one-line summary for `ladder --help` (a test holds it to the command's own);
# `tournament` comes through tournament_admin, which adds the service's commands to it.
LAZY_COMMANDS = {
    "artifacts": (
        "ladder.cli.artifacts:artifacts_group",
        "Uploaded bot files and replays (the artifact store).",
    ),
    "db": ("ladder.cli.db:db", "The ladder's database: migrations by Alembic only."),
    "ratings": (
        "ladder.cli.ratings:ratings_group",
        "Ratings: the re-solve of each game's history beside the online rating.",
    ),
    "replay": (
        "ladder.cli.replay:replay",
        "Run BOT as seat N on the views of a recorded match; stop at the first difference.",
    ),
    "replays": ("ladder.cli.replays:replays_group", "Stored replays: the retention policy."),
    "staff": (
        "ladder.cli.staff:staff",
        "Staff accounts (they see /staff, the ladder's status page).",
    ),
    "tournament": (
        "ladder.cli.tournament_admin:tournament",
        "Tournaments: round robin, Swiss and elimination for tables of 2 to 5.",
    ),
    "test": (
        "ladder.cli.sprt:test",
        "Test whether NEW plays GAME better than OLD (paths to bot.py, .zip or folder, or"
        " house names such as manila/greedy), over duplicate sets against opponents.",
    ),
}


@click.group(cls=LazyGroup, lazy_commands=LAZY_COMMANDS)
def main() -> None:
    """Tradewinds: a bot ladder for Manila, Meuterer and Caravelas."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--web-workers", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--concurrency", type=click.IntRange(min=1), default=2, show_default=True,
              help="matches one worker plays at once")  # fmt: skip
@click.option("--status-every", type=click.IntRange(min=1), default=60, show_default=True,
              help="seconds between status lines")  # fmt: skip
def run(host: str, port: int, web_workers: int, concurrency: int, status_every: int) -> None:
    """Run the whole service here: Redis, web, a worker and the scheduler (Ctrl-C stops all)."""
    from ladder.cli.processes import run_all

    run_all(host, port, web_workers, concurrency, status_every)


@main.command()
@click.option("--bind", default="127.0.0.1:8000", show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True)
def web(bind: str, workers: int) -> None:
    """Serve the site with gunicorn (migrates the database first)."""
    import os

    from ladder import settings
    from ladder.cli.db import upgrade
    from ladder.cli.processes import web_command

    upgrade(settings.database_url())
    command = web_command(bind, workers)
    os.execv(command[0], command)


@main.command()
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=None,
    help="processes [default: 2; with --tables, TABLE_WORKERS]",
)
@click.option(
    "--tables",
    is_flag=True,
    help="run live tables only (the tables queue, which no other worker takes)",
)
def worker(concurrency: int | None, tables: bool) -> None:
    """Run a Celery worker that validates versions and plays matches (needs REDIS_URL);
    with --tables, the table worker that runs live tables with people seated."""
    import os

    from ladder import settings
    from ladder.cli.processes import worker_command

    _need_redis()
    if concurrency is None:
        concurrency = max(1, settings.Settings.from_env().table_workers) if tables else 2
    command = worker_command(concurrency, tables=tables)
    os.execv(command[0], command)


@main.command()
def beat() -> None:
    """Run Celery beat: keeps every ladder busy and requeues work of dead workers."""
    import os

    from ladder import settings
    from ladder.cli.processes import beat_command

    _need_redis()
    var = Path(os.environ.get("LADDER_VAR") or settings.VAR)  # its schedule file goes here
    var.mkdir(parents=True, exist_ok=True)
    command = beat_command(var)
    os.execv(command[0], command)


@main.command("house")
def house() -> None:
    """Create the demo account and its house bots (after `ladder db upgrade`)."""
    from ladder import create_app
    from ladder.errors import ServiceError
    from ladder.extensions import app_settings
    from ladder.extensions import db as database
    from ladder.services.house import seed_house_bots

    app = create_app()
    with app.app_context():
        try:
            created = seed_house_bots(database.session, app_settings(app))
        except ServiceError as exc:  # the house name is held by another account
            raise click.ClickException(str(exc)) from None
    click.echo(f"house bots created: {', '.join(created) or 'none (all there)'}")


def _need_redis() -> None:
    import os

    if not os.environ.get("REDIS_URL"):
        raise click.ClickException("set REDIS_URL to the broker, e.g. redis://127.0.0.1:6379/0")


@main.command()
@click.option("--seed", type=int, default=1, show_default=True)
def demo(seed: int) -> None:
    """Play one random-move game of every registered game and show the results."""
    console = Console()
    table = Table(title="Tradewinds demo: random players")
    for column in ("game", "players", "decisions", "scores", "ranks"):
        table.add_column(column)
    for name in engine.game_names():
        game = engine.get_game(name)
        players = game.max_players
        state = game.new_game(players, seed=seed)
        chooser = random.Random(seed)
        while not state.is_over():
            state.apply(chooser.choice(state.legal_actions()))
        result = state.result()
        table.add_row(
            name, str(players), str(len(state.history)), str(result["scores"]), str(result["ranks"])
        )
    console.print(table)


@main.command()
@click.argument("game")
@click.argument("bots", nargs=-1, required=True)
@click.option("--seed", type=int, default=1, show_default=True, help="seed of the first game")
@click.option("--games", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--replay",
    type=click.Path(path_type=Path),
    help="write the replay here (with several games: a directory of seed-N.json)",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="print one JSON line per match: seed, bots (the bot in each seat, in seat order:"
    " seats rotate), ranks, scores, statuses, replay, and per seat errors and stderr",
)
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--logs",
    type=click.Path(path_type=Path, file_okay=False),
    help="write every seat's stderr of every match to DIR/seed-S-seat-N.log",
)
@fail_on_fault_option
@sandbox_options
def play(
    game, bots, seed, games, replay, as_json, jobs, logs, fail_on_fault, move_ms, bank_ms,
    unsafe_no_sandbox,
):  # fmt: skip
    """Play GAME between BOTS: paths to bot.py, .zip or folder, or house names (manila/greedy,
    manila/starter).

    Exits 0 when the games were played, whatever the bots did; with --fail-on-fault, 1
    when a seat of a bot given as a path faulted; 2 on bad arguments.
    """
    from ladder.cli.play import Plan
    from ladder.cli.play import play as run_play
    from workers import SandboxUnavailable, resolve

    check_game(game)
    spec = engine.get_game(game)
    if not spec.min_players <= len(bots) <= spec.max_players:
        raise click.UsageError(
            f"{game} takes {spec.min_players} to {spec.max_players} bots, not {len(bots)}"
        )
    try:
        sources = tuple(resolve(bot, house_owner()) for bot in bots)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="BOTS") from None
    limits = sandbox_limits(move_ms, bank_ms)
    plan = Plan(game, sources, seed, games, limits, unsafe_no_sandbox)
    try:
        totals = run_play(plan, jobs, replay, as_json, logs)
    except SandboxUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if fail_on_fault:
        fail_if_faulted(label for label, tally in totals.items() if tally.faults)
