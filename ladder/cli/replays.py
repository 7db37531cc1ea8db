"""`ladder replays prune`: the retention policy for stored replays, by hand.

Beat runs the same prune daily (`ladder.prune_replays`); this is for a first large
prune, a different `--keep-days` once, or a `--dry-run` to see what would go.
"""

from __future__ import annotations

import click
from sqlalchemy.orm import Session

from ladder.errors import ServiceError
from ladder.extensions import make_engine
from ladder.services import retention
from ladder.settings import Settings


@click.group("replays")
def replays_group() -> None:
    """Stored replays: the retention policy."""


def megabytes(count: int) -> str:
    return f"{count / 1e6:,.1f} MB"


@replays_group.command("prune")
@click.option(
    "--keep-days",
    type=int,
    help="keep ladder replays this many days (default: REPLAY_KEEP_DAYS)",
)
@click.option(
    "--dry-run", is_flag=True, help="say what would go and the bytes freed; change nothing"
)
@click.option(
    "--batch",
    type=click.IntRange(min=1),
    default=retention.BATCH,
    show_default=True,
    help="replays dropped per transaction",
)
def prune(keep_days: int | None, dry_run: bool, batch: int) -> None:
    """Drop the replays of ladder matches older than the policy.

    Every match row, its seats and ratings stay; tournament and challenge matches keep
    their replays. Safe while workers run: batches, each committed.
    """
    found = Settings.from_env()
    days = found.replay_keep_days if keep_days is None else keep_days
    try:
        retention.check_keep_days(days)
    except ServiceError as exc:
        raise click.BadParameter(str(exc), param_hint="--keep-days") from None
    engine = make_engine(found.database_url)
    try:
        with Session(engine) as session:
            report = retention.prune_replays(session, found, days, dry_run=dry_run, batch=batch)
    finally:
        engine.dispose()
    verb = "would drop" if dry_run else "dropped"
    click.echo(
        f"{verb} the replays of {report.matches:,} ladder matches finished before"
        f" {report.cutoff:%Y-%m-%d %H:%M} UTC (kept {report.keep_days} days):"
        f" {megabytes(report.bytes)} ({report.bytes:,} bytes) freed"
        + (" once run without --dry-run" if dry_run else f", in {report.batches} batches")
    )
    for game, count in sorted(report.by_game.items()):
        click.echo(f"  {game}: {count:,}")
