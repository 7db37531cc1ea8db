"""Fixtures for integration tests that run real bots in the real sandbox."""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path

import pytest

import engine

HOSTILE = Path(__file__).parent / "hostile"


# Sandbox tests need bwrap; `make test` installs it, so only a bare pytest skips them.
needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bwrap is not installed (`make test` installs it)"
)


@pytest.fixture(scope="session")
def game() -> str:
    """A registered game to play hostile matches in (the quickest one we have)."""
    names = engine.game_names()
    for preferred in ("meuterer", "caravelas", "manila"):
        if preferred in names:
            return preferred
    pytest.skip("no game is registered yet")


@pytest.fixture(scope="session")
def pg_live_template(pg_cluster) -> str:
    """A PostgreSQL database at head, copied for each live ladder that runs on PostgreSQL."""
    from ladder.cli import db as schema

    schema.upgrade(pg_cluster.create_database("live_template"))
    return "live_template"


_live_names = itertools.count(1)


@pytest.fixture(params=["sqlite", "postgresql"])
def live_database_url(request) -> str | None:
    """The database of a live ladder, each kind in turn: None (LiveLadder's own SQLite
    file), or a fresh migrated PostgreSQL database, dropped after the test."""
    if request.param == "sqlite":
        return None
    cluster = request.getfixturevalue("pg_cluster")
    name = f"live_{next(_live_names)}"
    url = cluster.create_database(name, template=request.getfixturevalue("pg_live_template"))
    request.addfinalizer(lambda: cluster.drop_database(name))
    return url


@pytest.fixture
def hostile(tmp_path):
    """Write a hostile bot from tests/integration/hostile/, filling its @@NAME@@ holes."""

    def make(name: str, **holes: str) -> str:
        text = (HOSTILE / f"{name}.py").read_text()
        for key, value in holes.items():
            text = text.replace(f"@@{key}@@", value)
        assert "@@" not in text, f"unfilled hole in hostile bot {name}"
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        return str(path)

    return make


def live_processes_with(marker: str) -> list[int]:
    """Pids of live (not zombie) processes whose command line contains `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z" and int(entry) != os.getpid():
            found.append(int(entry))
    return found


def sandbox_processes() -> list[int]:
    """Live bot processes (pid, state, command): those running as one of this test process's
    sandbox uids, other than the sandboxes' own bwrap and zygote, which outlive matches."""
    from workers.pool import pool_pids, pool_uids

    uids = pool_uids()
    keep = pool_pids()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        uid = int(status.split("\nUid:", 1)[1].split()[0])
        state = status.split("\nState:", 1)[1].split()[0]
        if uid in uids and state != "Z" and int(entry) not in keep:
            found.append((int(entry), state, Path(f"/proc/{entry}/cmdline").read_bytes()[:80]))
    return found
