"""Seats that cannot talk: a sender and a receiver at one table, every channel closed.

The colluder bot (tests/integration/collusion/colluder.py) publishes a fresh
secret on each of the sender's moves through every channel class the sandbox
must close, and the receiver reads them all on each of its own moves. Each
detector is shown to fire when the two bots run without the sandbox (the
runner's bare development mode, same match otherwise), then shown silent in
the sandbox.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
from pathlib import Path

import pytest

import workers.match
import workers.pool
from tests.integration.conftest import needs_bwrap
from workers.limits import Limits
from workers.match import run_match
from workers.sandbox import Runtime, sandbox_python

pytestmark = [pytest.mark.integration, needs_bwrap]

COLLUDER = Path(__file__).parent / "collusion" / "colluder.py"
LIMITS = Limits(stderr_kb=4096, stderr_tail_kb=1024)
CHANNELS = [
    "flock", "posix_lock", "ofd_lock", "inotify", "process_name", "proc_locks",
    "abstract_socket", "sysv_shm", "posix_shm", "keyring", "page_cache", "negative_dentry",
]  # fmt: skip
BARE = Runtime(sandbox_python(), None, False)
# Secrets that must arrive for a channel to count as open: a 16-bit secret read back by
# chance is about one in 65 536 a read, so two cannot be luck; the timing-bound channels
# (inotify) carried only two on a machine loaded four times over.
ENOUGH = 2


def colluders(folder: Path) -> list[str]:
    """Sender in seat 0, receiver in seat 1, a house bot in seat 2."""
    path = folder / "colluder.py"
    tag = f'RUN_TAG = "{os.urandom(6).hex()}"'  # names no earlier run looked up
    path.write_text(COLLUDER.read_text().replace('RUN_TAG = "run"', tag))
    return [str(path), str(path), "manila/random"]


def logs(out: dict) -> tuple[set[str], dict[str, list[str]], dict[str, list[str]]]:
    """What the sender sent, and per channel what the receiver got and its errors."""
    sent = set(re.findall(r"^SENT ([0-9a-f]{4})$", out["stderr"][0], re.M))
    got: dict[str, list[str]] = {name: [] for name in CHANNELS}
    errors: dict[str, list[str]] = {name: [] for name in CHANNELS}
    for kind, name, value in re.findall(r"^(GOT|ERR) (\w+) (.*)$", out["stderr"][1], re.M):
        (got if kind == "GOT" else errors)[name].append(value)
    return sent, got, errors


def clean_host() -> None:
    """What the bare run left on the host: the POSIX and SysV segments."""
    with contextlib.suppress(OSError):
        os.unlink("/dev/shm/tradewinds-colluder")
    libc = ctypes.CDLL(None, use_errno=True)
    shmid = libc.shmget(0x7477, 0, 0)
    if shmid >= 0:
        libc.shmctl(shmid, 0, None)  # IPC_RMID


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory) -> dict:
    out = run_match(
        "manila", colluders(tmp_path_factory.mktemp("c")), seed=5, limits=LIMITS
    ).to_dict()
    assert out["statuses"] == ["ok", "ok", "ok"], out["errors"]
    return out


@pytest.fixture(scope="module")
def bare(tmp_path_factory) -> dict:
    """The same match with the sandbox taken away: every detector must fire here."""
    patch = pytest.MonkeyPatch()
    patch.setattr(workers.match, "runtime", lambda unsafe=False: BARE)
    patch.setattr(workers.pool, "program", lambda: None)  # and no system-call filter
    workers.pool.pool(BARE).close()  # a pool an earlier test made has the filter
    clean_host()
    try:
        return run_match(
            "manila", colluders(tmp_path_factory.mktemp("b")), seed=5, limits=LIMITS
        ).to_dict()
    finally:
        patch.undo()
        workers.pool.pool(BARE).close()  # its slots have no filter: no later test may get one
        clean_host()


@pytest.mark.parametrize("channel", CHANNELS)
def test_the_detector_fires_without_the_sandbox(bare, channel):
    sent, got, errors = logs(bare)
    arrived = [value for value in got[channel] if value in sent]
    assert len(arrived) >= ENOUGH, (channel, got[channel][:5], errors[channel][:2])


@pytest.mark.parametrize("channel", CHANNELS)
def test_the_sandbox_closes_the_channel(sandboxed, channel):
    sent, got, errors = logs(sandboxed)
    assert len(sent) >= 10, "the sender moved often enough to be heard"
    assert [value for value in got[channel] if value in sent] == [], channel
    assert got[channel] or errors[channel], "the receiver tried"


def test_refused_calls_are_permission_errors(sandboxed):
    _sent, _got, errors = logs(sandboxed)
    for channel in ("flock", "posix_lock", "ofd_lock", "inotify", "sysv_shm", "keyring"):
        assert errors[channel], channel
        assert all(e.startswith("PermissionError") for e in errors[channel]), errors[channel][0]
    assert "fcntl.flock is refused in the sandbox" in errors["flock"][0]


CALLBACK_BOT = """
import ctypes
def act(view, legal):
    ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int)(lambda x: x + 1)
    return legal[0]
"""


def test_a_ctypes_callback_fails_with_a_hint_at_the_reason(tmp_path):
    bot = tmp_path / "callback.py"
    bot.write_text(CALLBACK_BOT)
    out = run_match("manila", [str(bot), "manila/random", "manila/random"], seed=3).to_dict()
    assert out["statuses"] == ["killed", "ok", "ok"], out["errors"]
    assert "a ctypes callback needs executable memory" in out["stderr"][0]
    assert "CFUNCTYPE" in out["stderr"][0], "the traceback shows the bot's line"
