"""`ladder ratings resolve GAME`: re-solve a game's rated history now (ladder/RATINGS.md).

Beat does the same every RESOLVE_EVERY_S (`ladder.resolve_ratings`); this is for a
first run, a check after a change, or a different `--window` once.
"""

from __future__ import annotations

import click
from sqlalchemy.orm import Session

from ladder.cli.options import check_game
from ladder.errors import ServiceError
from ladder.extensions import make_engine
from ladder.services import resolve
from ladder.settings import Settings
from ladder.transactions import unit_of_work


@click.group("ratings")
def ratings_group() -> None:
    """Ratings: the re-solve of each game's history beside the online rating."""


@ratings_group.command("resolve")
@click.argument("game")
@click.option(
    "--window",
    type=int,
    help="solve at most the latest this many rated matches (default: RESOLVE_WINDOW)",
)
def resolve_command(game: str, window: int | None) -> None:
    """Re-solve GAME's rated matches with TrueSkill Through Time and store the result
    beside the online ratings (replacing the last re-solve's)."""
    check_game(game)
    found = Settings.from_env()
    size = found.resolve_window if window is None else window
    try:
        resolve.check_window(size)
    except ServiceError as exc:
        raise click.BadParameter(str(exc), param_hint="--window") from None
    engine = make_engine(found.database_url)
    try:
        with Session(engine) as session, unit_of_work(session):
            report = resolve.resolve_game(session, found, game, size)
    finally:
        engine.dispose()
    scope = (
        f"the latest {report.matches:,} of {report.rated_matches:,} rated matches"
        if report.windowed
        else f"all {report.matches:,} rated matches"
    )
    click.echo(
        f"{game}: re-solved {scope}: {report.versions:,} versions rated, in"
        f" {report.iterations} passes (last step {report.step:.4f}), {report.seconds:.1f} s"
    )
