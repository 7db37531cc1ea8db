"""Pools of slots: start-up failures, where their folders go, sweeping dead ones."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from workers import sandbox
from workers.sandbox import SandboxUnavailable


def test_a_sandbox_that_cannot_start_is_an_infrastructure_error_with_its_reason(monkeypatch):
    from workers import pool as pools
    from workers import slots

    complain = "import sys; sys.stderr.write('no namespaces here'); sys.exit(1)"
    failing = [sys.executable, "-c", complain]
    monkeypatch.setattr(slots, "bare_command", lambda *args: failing)
    rt = sandbox.Runtime(sys.executable, None, False)
    pool = pools.SlotPool(rt)
    try:
        with (
            pytest.raises(SandboxUnavailable, match="did not start: no namespaces here"),
            pool.lease(1),
        ):
            pass
        assert pool.pids() == set()
    finally:
        pool.close()
    assert not pool.root.exists()


def test_sandbox_folders_go_where_other_uids_can_reach_them():
    import shutil
    import tempfile

    from workers.pool import reachable_temp_dir

    top = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        top.chmod(0o711)
        (top / "open").mkdir(mode=0o711)
        (top / "private").mkdir(mode=0o700)
        (top / "private" / "inner").mkdir(mode=0o711)
        assert reachable_temp_dir(str(top / "open")) == str(top / "open")
        assert reachable_temp_dir(str(top / "private" / "inner")) == "/tmp"
        assert reachable_temp_dir(str(top / "missing")) == "/tmp"
    finally:
        shutil.rmtree(top)


def test_folders_of_dead_pools_are_swept_and_live_ones_kept(tmp_path):
    from workers.pool import OWNER_FILE, ROOT_PREFIX, remove_stale_roots

    dead = next(p for p in range(4_000_000, 4_100_000) if not Path(f"/proc/{p}").exists())
    stale = tmp_path / f"{ROOT_PREFIX}abc"
    live = tmp_path / f"{ROOT_PREFIX}def"
    other = tmp_path / "unrelated-123-x"
    for folder, owner in ((stale, dead), (live, os.getpid()), (other, dead)):
        (folder / "sdk").mkdir(parents=True)
        (folder / OWNER_FILE).write_text(str(owner))
    remove_stale_roots(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name])
