"""The schema comes from Alembic alone and matches the models, on SQLite and PostgreSQL."""

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from ladder import settings
from ladder.cli import db as schema
from ladder.extensions import make_engine
from ladder.models import Base


def test_upgrade_creates_every_table_and_matches_models(tmp_path):
    url = f"sqlite:///{tmp_path / 'sub' / 'db.sqlite3'}"
    schema.upgrade(url)
    eng = make_engine(url)
    with eng.connect() as conn:
        tables = set(inspect(conn).get_table_names())
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    eng.dispose()
    assert set(Base.metadata.tables) <= tables
    assert diff == []


def schema_of(url: str) -> tuple[set[str], list, list[str], list[str]]:
    """Tables, differences from the models, and (PostgreSQL) enum types and sequences."""
    eng = make_engine(url)
    try:
        with eng.connect() as conn:
            insp = inspect(conn)
            tables = set(insp.get_table_names())
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
            postgresql = conn.dialect.name == "postgresql"
            enums = [e["name"] for e in insp.get_enums()] if postgresql else []
            sequences = insp.get_sequence_names() if postgresql else []
    finally:
        eng.dispose()
    return tables, diff, enums, sequences


def test_migrations_go_up_from_empty_down_to_empty_and_up_again(empty_database_url):
    url = empty_database_url
    schema.upgrade(url)
    tables, diff, _, _ = schema_of(url)
    assert set(Base.metadata.tables) <= tables
    assert diff == []

    command.downgrade(schema.alembic_config(url), "base")
    tables, _, enums, sequences = schema_of(url)
    assert tables == {"alembic_version"}  # Alembic's own table stays, empty
    assert enums == [] and sequences == []  # nothing a downgrade forgot to drop

    schema.upgrade(url)
    tables, diff, _, _ = schema_of(url)
    assert set(Base.metadata.tables) <= tables
    assert diff == []


def test_leaderboard_and_history_indexes_exist(session):
    insp = inspect(session.connection())
    assert "ix_ratings_game_skill" in {i["name"] for i in insp.get_indexes("ratings")}
    assert "ix_match_seats_version_match" in {i["name"] for i in insp.get_indexes("match_seats")}


def test_database_url_defaults_to_var_and_env_overrides(tmp_path):
    assert settings.database_url({"LADDER_VAR": str(tmp_path)}) == (
        f"sqlite:///{tmp_path / 'ladder.sqlite3'}"
    )
    assert settings.database_url({"DATABASE_URL": "postgresql://x/y"}) == "postgresql://x/y"


def test_bad_integer_setting_is_named():
    import pytest

    with pytest.raises(ValueError, match="MAX_BOT_BYTES"):
        settings.Settings.from_env({"SECRET_KEY": "k", "MAX_BOT_BYTES": "lots"})


def test_app_with_explicit_secret_makes_no_key_file(tmp_path, monkeypatch):
    from ladder import create_app

    monkeypatch.delenv("SECRET_KEY", raising=False)
    monkeypatch.setenv("LADDER_VAR", str(tmp_path))
    create_app({"SECRET_KEY": "given", "DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}"})
    assert not (tmp_path / "secret_key").exists()
    create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}"})
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0


def test_upgrading_a_populated_sqlite_database_keeps_every_row(tmp_path):
    """Batch migrations copy a table and drop the old one: with foreign keys on, that drop
    cascaded and an upgrade from the first revision deleted every bot."""
    from sqlalchemy import text

    from ladder.cli import db as schema
    from ladder.extensions import make_engine

    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    schema.upgrade(url, "bb170ce6ecf0")
    eng = make_engine(url)
    with eng.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO users (id, username, password_hash, created_at)"
                " VALUES (1, 'old', 'x', '2026-01-01 00:00:00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO bots (id, owner_id, game, name, created_at)"
                " VALUES (1, 1, 'manila', 'b', '2026-01-01 00:00:00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO bot_versions (id, bot_id, number, uploaded_by_id, filename, kind,"
                " size, sha256, path, state, validation_log, created_at) VALUES"
                " (1, 1, 1, 1, 'bot.py', 'py', 1, 'x', 'p1', 'active', '', '2026-01-01 00:00:00')"
            )
        )
    schema.upgrade(url)
    with eng.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM users")).scalar() == 1
        assert conn.execute(text("SELECT count(*) FROM bots")).scalar() == 1
        assert conn.execute(text("SELECT count(*) FROM bot_versions")).scalar() == 1
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
    eng.dispose()


def test_the_queue_migration_sends_existing_matches_back_where_they_came_from(tmp_path):
    """matches.queue is back-filled: a tournament's matches go to its queue, a user's
    challenge to the challenges', every other match to the ladder's."""
    from sqlalchemy import text

    from ladder.cli import db as schema
    from ladder.extensions import make_engine

    url = f"sqlite:///{tmp_path / 'before-queue.sqlite3'}"
    schema.upgrade(url, "d64fd4747960")
    eng = make_engine(url)
    when = "'2026-01-01 00:00:00'"
    with eng.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO users (id, username, password_hash, created_at, is_staff)"
                f" VALUES (1, 'old', 'x', {when}, 0)"
            )
        )
        for ident, requested_by in ((1, "NULL"), (2, "1"), (3, "NULL")):
            conn.execute(
                text(
                    "INSERT INTO matches (id, game, seed, players, options, ranked, state,"
                    f" requested_by_id, created_at, attempts) VALUES ({ident}, 'manila', 1, 3,"
                    f" '{{}}', 1, 'finished', {requested_by}, {when}, 0)"
                )
            )
        conn.execute(
            text(
                "INSERT INTO tournaments (id, name, game, format, duplicate, seed, state,"
                f" created_at) VALUES (1, 'Cup', 'manila', 'swiss', 0, 1, 'running', {when})"
            )
        )
        conn.execute(
            text(
                "INSERT INTO tournament_matches (match_id, tournament_id, round, table_no,"
                " rotation) VALUES (3, 1, 1, 1, 0)"
            )
        )
    schema.upgrade(url)
    with eng.connect() as conn:
        queues = dict(conn.execute(text("SELECT id, queue FROM matches ORDER BY id")).all())
    eng.dispose()
    assert queues == {1: "celery", 2: "challenges", 3: "tournaments"}
