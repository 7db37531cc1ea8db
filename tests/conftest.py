"""Fixtures shared by unit and integration tests: the session's PostgreSQL server, and
cheap password hashes."""

from __future__ import annotations

import functools

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


# A test registers and logs in users by the hundred; at full cost (scrypt, ~0.1 s of
# CPU each way) that was minutes of the suite. Tests that are about the hash's cost
# ask for the real one with @pytest.mark.real_password_hash. Hashes made here verify
# anywhere: werkzeug reads the method from the stored hash.
TEST_HASH = "pbkdf2:sha256:1000"


@pytest.fixture(autouse=True)
def cheap_password_hashes(request, monkeypatch):
    from werkzeug.security import generate_password_hash

    from ladder.services import accounts

    # The decoy hash checked for unknown names is made once a process: made afresh
    # in each test, it costs what that test's hashes cost.
    accounts._decoy_hash.cache_clear()
    if not request.node.get_closest_marker("real_password_hash"):
        cheap = functools.partial(generate_password_hash, method=TEST_HASH)
        monkeypatch.setattr(accounts, "generate_password_hash", cheap)
    yield
    accounts._decoy_hash.cache_clear()
