"""`ladder db ...`: database commands (attach with `main.add_command(db)` in ladder/cli.py)."""

from __future__ import annotations

import click
from alembic import command

from ladder import schema, settings


@click.group("db")
def db() -> None:
    """The ladder's database: migrations by Alembic only."""


@db.command()
@click.option("--revision", default="head", show_default=True, help="Alembic revision to reach.")
def upgrade(revision: str) -> None:
    """Create or migrate the database at DATABASE_URL (default: var/ladder.sqlite3)."""
    url = settings.database_url()
    schema.upgrade(url, revision)
    click.echo(f"database at {_safe(url)} is at revision {revision}")


@db.command()
def current() -> None:
    """Show the database's current Alembic revision."""
    command.current(schema.alembic_config(settings.database_url()))


def _safe(url: str) -> str:
    """The URL without its password, for printing."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url
