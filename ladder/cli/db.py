"""The database's schema: Alembic alone makes and migrates it, here and by `ladder db ...`.

`upgrade(url)` is what `ladder db upgrade`, `ladder web` and `ladder run` call
before anything touches the database; tests and benchmarks call it too. Alembic
is configured here in code from the migrations inside the package
(`ladder/migrations`), so an installed wheel migrates as a checkout does; the
checkout's `alembic.ini` only serves the `alembic` command (new revisions).
"""

from __future__ import annotations

from pathlib import Path

import click
from alembic import command
from alembic.config import Config

from ladder import settings

MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"
# The same as alembic.ini's, for revisions made through this config.
FILE_TEMPLATE = "%%(year)d%%(month).2d%%(day).2d_%%(rev)s_%%(slug)s"


def alembic_config(url: str) -> Config:
    """An Alembic config for `url`, using the package's migrations (no .ini file needed)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("file_template", FILE_TEMPLATE)
    config.set_main_option("path_separator", "os")
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["configure_logging"] = False
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Run every migration up to `revision` on the database at `url`."""
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(url), revision)


@click.group("db")
def db() -> None:
    """The ladder's database: migrations by Alembic only."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True, help="Alembic revision to reach.")
def upgrade_command(revision: str) -> None:
    """Create or migrate the database at DATABASE_URL (default: var/ladder.sqlite3)."""
    url = settings.database_url()
    upgrade(url, revision)
    click.echo(f"database at {_safe(url)} is at revision {revision}")


@db.command()
def current() -> None:
    """Show the database's current Alembic revision."""
    command.current(alembic_config(settings.database_url()))


def _safe(url: str) -> str:
    """The URL without its password, for printing."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url
