"""`ladder db upgrade` makes the schema at DATABASE_URL."""

from click.testing import CliRunner
from sqlalchemy import inspect

from ladder.cli.db import _safe, db
from ladder.extensions import make_engine


def test_upgrade_creates_the_database(empty_database_url, monkeypatch):
    url = empty_database_url  # postgresql://user@/db?host=...: as people write it
    monkeypatch.setenv("DATABASE_URL", url)
    result = CliRunner().invoke(db, ["upgrade"])
    assert result.exit_code == 0, result.output
    assert "is at revision head" in result.output
    eng = make_engine(url)
    with eng.connect() as conn:
        assert "matches" in inspect(conn).get_table_names()
    eng.dispose()


def test_printed_url_hides_the_password():
    assert _safe("postgresql://ladder:hunter2@db/ladder") == "postgresql://***@db/ladder"
