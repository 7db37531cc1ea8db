"""Fixtures for the ladder: a toy game, a migrated SQLite database, an app, users, bots."""

from __future__ import annotations

import re
import shutil

import pytest
from sqlalchemy.orm import Session

import engine
from ladder import create_app, settings
from ladder.cli import db as schema
from ladder.extensions import make_engine
from ladder.services import accounts, bots

BOT_SOURCE = b"import random\n\n\ndef act(view, legal):\n    return random.choice(legal)\n"


@pytest.fixture(autouse=True)
def toy_game(monkeypatch):
    """Register the toy game for the test (the real games may not exist yet)."""
    monkeypatch.setitem(engine._GAMES, "toyrace", "tests.unit.ladder.toygame")
    return "toyrace"


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory):
    """One database brought to head by Alembic; each test gets a copy."""
    path = tmp_path_factory.mktemp("template") / "ladder.sqlite3"
    schema.upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture
def config(tmp_path, migrated_template):
    db_path = tmp_path / "ladder.sqlite3"
    shutil.copy(migrated_template, db_path)
    values = settings.from_env({"LADDER_VAR": str(tmp_path), "SECRET_KEY": "test-secret"})
    values.update(
        {
            "TESTING": True,
            "DATABASE_URL": f"sqlite:///{db_path}",
            "REPLAY_DIR": str(tmp_path / "replays"),
            "UPLOAD_DIR": str(tmp_path / "uploads"),
            "STARTER_DIR": str(tmp_path / "starter"),
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


def make_user(session, name="alice", password="correct horse"):
    return accounts.register(session, name, password)


def make_active_bot(session, config, user, name="b", game="toyrace", source=BOT_SOURCE):
    version = bots.upload_version(session, config, user, game, name, "bot.py", source)
    return bots.finish_validation(session, version.id, True, "passed")


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
