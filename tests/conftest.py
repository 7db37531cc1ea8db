"""Fixtures shared by unit and integration tests: the session's PostgreSQL server."""

from __future__ import annotations

import pytest

from tests.pgcluster import start_cluster


@pytest.fixture(scope="session")
def pg_cluster():
    """A private PostgreSQL server for the whole session, started by the first test
    that asks for it (see tests/pgcluster.py); one for unit and integration tests."""
    cluster = start_cluster()
    yield cluster
    cluster.stop()
