"""Extension objects, made once and bound to an app by `init_app`."""

from __future__ import annotations

from flask import Flask, current_app, g
from flask_login import LoginManager
from flask_wtf import CSRFProtect
from psycopg.types.string import StrDumperUnknown
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from ladder.settings import Settings

# Where an app keeps its Settings (`use_settings`, `app_settings`).
SETTINGS = "ladder.settings"
# Schemes as people write them (libpq, Heroku) and the driver we install for them.
_DRIVERLESS = {"postgresql": "postgresql+psycopg", "postgres": "postgresql+psycopg"}


def engine_url(url: str) -> str:
    """`url` with a driver SQLAlchemy can load: `postgresql://` and `postgres://` mean psycopg 3.

    SQLAlchemy would pick psycopg2 for a bare `postgresql://`, which we do not
    install; an explicit driver (`postgresql+psycopg2://`, `sqlite+pysqlite://`) stays.
    """
    scheme, sep, rest = url.partition("://")
    if sep and scheme in _DRIVERLESS:
        return f"{_DRIVERLESS[scheme]}://{rest}"
    return url


def make_engine(url: str) -> Engine:
    """A SQLAlchemy engine; SQLite gets foreign keys on and a busy timeout."""
    url = engine_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection, _record) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            # Write-ahead log: the site reads while workers write, and a commit
            # costs one append instead of a journal round trip per transaction.
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    engine = create_engine(url, pool_pre_ping=True)
    if engine.dialect.driver == "psycopg":
        event.listen(engine, "connect", _nul_free_text)
    return engine


class NulFreeStrDumper(StrDumperUnknown):
    """psycopg's default str dumper, with U+FFFD in place of NUL.

    PostgreSQL's text types cannot hold NUL (SQLite's can), and what bots write to
    stderr, and what visitors type, may carry one: without this the whole transaction
    (a match's recording, a login) failed instead of keeping the rest of the text.
    """

    def dump(self, obj: str):
        return super().dump(obj.replace("\x00", "\ufffd"))


def _nul_free_text(dbapi_connection, _record) -> None:
    # Registered last, so it is the default for str on this connection.
    dbapi_connection.adapters.register_dumper(str, NulFreeStrDumper)


def use_settings(app: Flask, settings: Settings) -> None:
    """Give `app` its settings: kept whole for `app_settings`, and mirrored into
    app.config under their upper-case keys for Flask and its extensions."""
    app.extensions[SETTINGS] = settings
    app.config.from_mapping(settings.as_config())


def app_settings(app: Flask | None = None) -> Settings:
    """The settings of `app` (default: the current app), for views, tasks and commands."""
    found: Settings = (current_app if app is None else app).extensions[SETTINGS]
    return found


# Where an app keeps its long-lived Redis client (a `broker.store.AppClient`, bound by
# the Celery app, `ladder.jobs.celery_app`).
BROKER = "ladder.broker"


def broker_client(app: Flask | None = None):
    """The app's long-lived Redis client (one connection pool per process); RuntimeError
    without a REDIS_URL."""
    return (current_app if app is None else app).extensions[BROKER].get()


class Database:
    """One engine per app and one session per app context (closed at teardown)."""

    def init_app(self, app: Flask) -> None:
        engine = make_engine(app_settings(app).database_url)
        app.extensions["ladder.db"] = sessionmaker(engine, expire_on_commit=False)
        app.teardown_appcontext(self._close)

    @property
    def engine(self) -> Engine:
        return current_app.extensions["ladder.db"].kw["bind"]

    @property
    def session(self) -> Session:
        if "ladder_session" not in g:
            g.ladder_session = current_app.extensions["ladder.db"]()
        return g.ladder_session

    @staticmethod
    def _close(_exc: BaseException | None) -> None:
        session = g.pop("ladder_session", None)
        if session is not None:
            session.close()


db = Database()
login_manager = LoginManager()
csrf = CSRFProtect()
