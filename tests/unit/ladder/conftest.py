"""Fixtures for the ladder: a toy game, a migrated database, an app, users, bots.

Every test that touches the database runs twice, on SQLite and on PostgreSQL
(ids `sqlite` and `postgresql`). The PostgreSQL server (`pg_cluster`, in
tests/conftest.py) is private to the test session and starts only when the
first such test runs.
"""

from __future__ import annotations

import dataclasses
import gc
import itertools
import re
import shutil
from collections.abc import MutableMapping

import pytest
from flask import Flask
from sqlalchemy import event
from sqlalchemy.orm import Session
from sqlalchemy.pool import Pool

import engine
from ladder import create_app
from ladder.cli import db as schema
from ladder.extensions import app_settings, make_engine, use_settings
from ladder.services import accounts, bots
from ladder.settings import KEYS, Settings
from ladder.web import cache

BOT_SOURCE = b"import random\n\n\ndef act(view, legal):\n    return random.choice(legal)\n"


@pytest.fixture(autouse=True)
def toy_game(monkeypatch):
    """Register the toy game for the test (the real games may not exist yet)."""
    monkeypatch.setitem(engine._GAMES, "toyrace", "tests.unit.ladder.toygame")
    return "toyrace"


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory):
    """One SQLite database brought to head by Alembic; each test gets a copy."""
    path = tmp_path_factory.mktemp("template") / "ladder.sqlite3"
    schema.upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def pg_database(pg_cluster):
    """One PostgreSQL database brought to head by Alembic, emptied after each test."""
    schema.upgrade(pg_cluster.create_database(PG_DATABASE))
    return PG_DATABASE


PG_DATABASE = "ladder_test"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path, close_postgresql_connections):
    """A migrated database with no rows, of each kind: a copied SQLite file, or the
    session's PostgreSQL database, emptied again after the test.

    Emptying (DELETE from every table, sequences back to 1) costs about 1 ms where a
    CREATE DATABASE ... TEMPLATE and its DROP cost about 150: that was most of the time
    the PostgreSQL half of the suite added.
    """
    if request.param == "sqlite":
        db_path = tmp_path / "ladder.sqlite3"
        shutil.copy(request.getfixturevalue("migrated_template"), db_path)
        yield f"sqlite:///{db_path}"
        return
    cluster = request.getfixturevalue("pg_cluster")
    name = request.getfixturevalue("pg_database")
    yield cluster.url(name)
    close_postgresql_connections()  # an idle transaction's locks would hold up the DELETEs
    cluster.empty_database(name)


_empty_names = itertools.count(1)


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database_url(request, tmp_path):
    """A database of each kind with nothing in it yet, for tests of the migrations."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    cluster = request.getfixturevalue("pg_cluster")
    name = f"empty_{next(_empty_names)}"
    url = cluster.create_database(name)
    request.addfinalizer(lambda: cluster.drop_database(name))
    return url


@pytest.fixture(autouse=True)
def close_postgresql_connections():
    """Close every PostgreSQL connection a test opened, at its end (callable earlier).

    Apps made in a test are never disposed, and psycopg (unlike sqlite3) warns when a
    connection is collected still open, which fails some later test. SQLite connections
    are left alone: module-scoped apps keep theirs in their pools.
    """
    opened = []

    def remember(dbapi_connection, _record) -> None:
        if type(dbapi_connection).__module__.startswith("psycopg"):
            opened.append(dbapi_connection)

    def close() -> None:
        # Collect first: a session the test dropped gives its connection back to the pool
        # (reset while still open). Collect again after: whatever still held a closed one
        # is finalized here, not at a random later moment. A pool resetting a closed
        # connection logs a traceback, and Python 3.11 formats tracebacks with `ast`; run
        # from a finalizer in the middle of another `ast` conversion (werkzeug compiling
        # an app's routes), that corrupts the interpreter's AST recursion count and fails
        # the compile with "AST constructor recursion depth mismatch" (CPython gh-106905).
        # Then freeze what survived: each collection here walked the whole heap, some
        # 0.2-0.4 s twice per PostgreSQL test, half the unit suite's time; frozen, the
        # next test's collections walk only what was made since. What is frozen is what
        # was alive at a test's end (its fixtures, module-scoped apps): their PostgreSQL
        # connections are closed by now, and they are never finalized at a random moment.
        if not opened:
            return
        gc.collect()
        while opened:
            opened.pop().close()
        gc.collect()
        gc.freeze()

    event.listen(Pool, "connect", remember)
    try:
        yield close
    finally:
        event.remove(Pool, "connect", remember)
        close()


class Overrides(Settings, MutableMapping):
    """A test's settings: the upper-case keys `create_app` takes, which the test may
    change in place (`config["LADDER_IN_FLIGHT"] = 1`), and at once the Settings those
    keys make, so the same object is handed to services.

    A change goes through `Settings.with_overrides`, so a misspelt key or a value of the
    wrong type fails here as it would in the app. Keys that are not settings (TESTING)
    are kept beside the fields, for `create_app`; a copy made by `with_overrides` or
    `dataclasses.replace` is plain settings and has none.
    """

    @property
    def _extras(self) -> dict:
        return self.__dict__.setdefault("_extras", {})

    def __getitem__(self, key):
        return getattr(self, key.lower()) if key in KEYS else self._extras[key]

    def __setitem__(self, key, value):
        if key in KEYS:
            changed = Settings.with_overrides(self, {key: value})
            object.__setattr__(self, key.lower(), getattr(changed, key.lower()))
        else:
            Settings().with_overrides({key: value}, others=Flask.default_config)
            self._extras[key] = value

    def __delitem__(self, key):
        if key in KEYS:
            raise TypeError(f"{key} is a setting: give it a value instead")
        del self._extras[key]

    def __iter__(self):
        yield from (f.name.upper() for f in dataclasses.fields(Settings))
        yield from self._extras

    def __len__(self):
        return len(KEYS) + len(self._extras)


@pytest.fixture
def config(tmp_path, database_url):
    env = {"LADDER_VAR": str(tmp_path), "SECRET_KEY": "test-secret"}
    values = Overrides()
    values.update(Settings.from_env(env).as_config())
    values.update(
        {
            "TESTING": True,
            "DATABASE_URL": database_url,
            "REPLAY_DIR": str(tmp_path / "replays"),
            "UPLOAD_DIR": str(tmp_path / "uploads"),
            "STARTER_DIR": str(tmp_path / "starter"),
            # Pages made afresh on every request, unless a test of the cache turns it on.
            "PAGE_CACHE_S": 0,
        }
    )
    return values


@pytest.fixture
def session(config):
    eng = make_engine(config["DATABASE_URL"])
    with Session(eng, expire_on_commit=False) as s:
        yield s
    eng.dispose()


@pytest.fixture
def app(config):
    return create_app(config)


@pytest.fixture
def client(app):
    return app.test_client()


def override_settings(app, **values):
    """Change settings of a made app, as the same keys given to `create_app` would have."""
    use_settings(app, app_settings(app).with_overrides(values))


class HandClock:
    """A clock that moves only when a test moves it (`now`), for the page cache."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def hand_clocked_cache(app, **values) -> HandClock:
    """Put the app's page cache on a hand clock, with these settings (PAGE_CACHE_S...)."""
    hand = HandClock()
    app.extensions[cache.EXTENSION] = cache.TtlCache(clock=hand)
    override_settings(app, **values)
    return hand


def make_user(session, name="alice", password="correct horse"):
    """A registered user, committed (other connections, the test client's, see it)."""
    user = accounts.register(session, name, password)
    session.commit()
    return user


def make_active_bot(session, config, user, name="b", game="toyrace", source=BOT_SOURCE):
    """An uploaded version that passed validation, committed."""
    version = bots.upload_version(session, config, user, game, name, "bot.py", source)
    version = bots.finish_validation(session, version.id, True, "passed")
    session.commit()
    return version


@pytest.fixture
def alice(session):
    return make_user(session, "alice")


@pytest.fixture
def bob(session):
    return make_user(session, "bob")


def csrf_token(client, url: str) -> str:
    """The CSRF token in the form on `url`."""
    page = client.get(url).get_data(as_text=True)
    found = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)
    assert found, f"no CSRF token on {url}"
    return found.group(1)


def login(client, username="alice", password="correct horse"):
    token = csrf_token(client, "/login")
    return client.post(
        "/login", data={"username": username, "password": password, "csrf_token": token}
    )


class ListRedis:
    """The few Redis list commands live tables use (`broker.store.push_move`, `take_move`),
    over plain lists: unit tests run without a Redis server. `blpop` never blocks: with
    nothing waiting it answers None at once, as a Redis whose timeout ran out would."""

    def __init__(self) -> None:
        self.lists: dict[str, list[bytes]] = {}
        self.expiry: dict[str, int] = {}

    def rpush(self, key: str, *values) -> int:
        found = self.lists.setdefault(key, [])
        found.extend(v.encode() if isinstance(v, str) else v for v in values)
        return len(found)

    def expire(self, key: str, seconds: int) -> bool:
        self.expiry[key] = seconds
        return key in self.lists

    def blpop(self, keys, timeout=0):
        for key in keys:
            if self.lists.get(key):
                return key.encode(), self.lists[key].pop(0)
        return None

    def delete(self, *keys) -> int:
        return sum(self.lists.pop(key, None) is not None for key in keys)

    def pipeline(self):
        return _Pipeline(self)

    def messages(self, key: str) -> list[dict]:
        import json

        return [json.loads(v) for v in self.lists.get(key, [])]


class _Pipeline:
    def __init__(self, target: ListRedis) -> None:
        self.target, self.calls = target, []

    def __getattr__(self, name):
        return lambda *args, **kwargs: self.calls.append((name, args, kwargs))

    def execute(self):
        return [getattr(self.target, name)(*a, **k) for name, a, k in self.calls]


@pytest.fixture
def house(session, config):
    """The house account with two toyrace house bots, `random` and `greedy`."""
    user = make_user(session, config["HOUSE_USER"])
    return {
        name: make_active_bot(session, config, user, name=name) for name in ("random", "greedy")
    }
