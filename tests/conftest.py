"""Fixtures shared by unit and integration tests: the session's PostgreSQL server."""

from __future__ import annotations

import pytest

from tests.pgcluster import bin_dir, start_cluster


@pytest.fixture(scope="session")
def pg_cluster():
    """A private PostgreSQL server for the whole session, started by the first test
    that asks for it (see tests/pgcluster.py); one for unit and integration tests.

    `make test` installs PostgreSQL; only a bare pytest without it skips these tests.
    """
    try:
        bin_dir()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    cluster = start_cluster()
    yield cluster
    cluster.stop()
