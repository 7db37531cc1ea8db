"""Alembic environment: the ladder's metadata and its database URL.

The URL is, in order: the `sqlalchemy.url` set on the Config (tests and
`ladder.cli.db.upgrade` do this), else DATABASE_URL, else the default
SQLite file under var/.
"""

from __future__ import annotations

from logging.config import fileConfig
from pathlib import Path

from alembic import context

from ladder import settings
from ladder.extensions import engine_url, make_engine
from ladder.models import Base

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url")
    if url:
        return url
    url = settings.database_url()
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    return url


def run_offline() -> None:
    context.configure(
        url=engine_url(_url()),
        target_metadata=Base.metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    engine = make_engine(_url())
    try:
        _run(engine)
    finally:
        engine.dispose()  # a failed migration too: no connection is left to the collector


def _run(engine) -> None:
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # Batch mode alters a SQLite table by copying it and dropping the old one;
            # with foreign keys on, that drop would cascade and delete every row that
            # refers to it (a users change once took every bot with it). So keys are
            # off while migrating (outside the transaction, or SQLite ignores it) and
            # checked once at the end instead.
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
            connection.commit()  # end the transaction the statement began
        # Batch mode lets later revisions alter SQLite tables.
        context.configure(
            connection=connection, target_metadata=Base.metadata, render_as_batch=True
        )
        with context.begin_transaction():
            context.run_migrations()
            if sqlite:
                broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise RuntimeError(f"migration left rows with dangling keys: {broken[:5]}")
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.commit()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
