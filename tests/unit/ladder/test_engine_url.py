"""DATABASE_URL as people write it: a bare `postgresql://` (or `postgres://`) means psycopg 3."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import make_url

from ladder.extensions import engine_url, make_engine


@pytest.mark.parametrize(
    ("written", "used"),
    [
        ("postgresql://u@db.example:5433/ladder", "postgresql+psycopg://u@db.example:5433/ladder"),
        ("postgres://u:pw@db/ladder", "postgresql+psycopg://u:pw@db/ladder"),
        (
            "postgresql://u@/ladder?host=/run/pg&port=5",
            "postgresql+psycopg://u@/ladder?host=/run/pg&port=5",
        ),
        ("postgresql+psycopg2://u@db/ladder", "postgresql+psycopg2://u@db/ladder"),
        ("postgresql+psycopg://u@db/ladder", "postgresql+psycopg://u@db/ladder"),
        ("sqlite:///var/ladder.sqlite3", "sqlite:///var/ladder.sqlite3"),
        ("sqlite+pysqlite:///:memory:", "sqlite+pysqlite:///:memory:"),
    ],
)
def test_engine_url_names_psycopg_only_where_no_driver_is_given(written, used):
    assert engine_url(written) == used


def test_make_engine_loads_psycopg_for_a_bare_postgresql_url():
    engine = make_engine("postgresql://u@/ladder?host=/nonexistent&port=5")
    try:
        assert engine.dialect.name == "postgresql"
        assert engine.dialect.driver == "psycopg"
        assert make_url(str(engine.url)).query == {"host": "/nonexistent", "port": "5"}
    finally:
        engine.dispose()
