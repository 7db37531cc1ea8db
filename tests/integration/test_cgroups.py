"""Control groups per sandbox: the mode chosen, the signals fallback, stale groups, v2 files."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.integration.conftest import needs_bwrap
from workers import cgroups, isolation
from workers.limits import Limits
from workers.match import run_match
from workers.pool import close_pools

pytestmark = [pytest.mark.integration, needs_bwrap]
needs_cgroups = pytest.mark.skipif(cgroups.tree() is None, reason="no writable cgroups here")


@pytest.fixture
def no_cgroups(monkeypatch):
    """This process without cgroups, as on a host where none is writable."""
    close_pools()
    monkeypatch.setenv("TRADEWINDS_CGROUPS", "off")
    cgroups._detect.cache_clear()
    yield
    close_pools()
    monkeypatch.delenv("TRADEWINDS_CGROUPS")
    cgroups._detect.cache_clear()


def test_without_cgroups_bots_are_paused_by_signals_and_a_warning_says_so(no_cgroups, game):
    import engine

    state = isolation()
    assert state["mode"] == "signals"
    assert "paused by signals only" in state["warning"]
    players = engine.get_game(game).min_players
    out = run_match(game, [f"{game}/random"] * players, seed=4, limits=Limits()).to_dict()
    assert out["statuses"] == ["ok"] * players
    assert set(out["replay"]["decision_cpu_ms"]) == {None}


@needs_cgroups
def test_with_cgroups_the_mode_is_named_and_cpu_time_is_measured(game):
    import engine

    assert isolation() == {"mode": cgroups.tree().mode, "warning": None}
    players = engine.get_game(game).min_players
    out = run_match(game, [f"{game}/random"] * players, seed=4).to_dict()
    cpu = out["replay"]["decision_cpu_ms"]
    assert len(cpu) == len(out["replay"]["decision_ms"])
    assert all(ms is not None and ms >= 0 for ms in cpu)


@needs_cgroups
def test_the_groups_of_a_killed_owner_are_swept_with_their_processes():
    tree = cgroups.tree()
    owner = subprocess.Popen(["sleep", "60"])
    group = tree.group(f"{owner.pid}-0")
    leftover = subprocess.Popen(["sleep", "60"])
    for procs in group.procs_files:
        Path(procs).write_text(str(leftover.pid))
    assert group.members() == [leftover.pid]
    owner.kill()
    owner.wait()
    tree.sweep(lambda pid: Path(f"/proc/{pid}").exists())
    assert leftover.wait(timeout=5) == -9
    assert not any(folder.exists() for folder in group.dirs.values())


def test_a_v2_group_reads_and_writes_the_v2_files(tmp_path):
    """The v2 file names and formats (this machine may only have v1 to run on)."""
    folder = tmp_path / "slot"
    folder.mkdir()
    (folder / "cgroup.procs").write_text("12\n13\n")
    (folder / "cgroup.threads").write_text("12\n13\n14\n")
    (folder / "pids.current").write_text("3\n")
    (folder / "cpu.stat").write_text("usage_usec 2500\nuser_usec 2000\nsystem_usec 500\n")
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n")
    group = cgroups.Group(2, {c: folder for c in ("memory", "pids", "cpuacct")})
    assert group.members() == [12, 13]
    assert group.tasks() == [12, 13, 14]
    assert group.task_count() == 3
    assert group.cpu_ns() == 2_500_000
    assert group.oom_kills() == 1
    group.limit(600 << 20, 20)
    assert (folder / "memory.max").read_text() == str(600 << 20)
    assert (folder / "memory.swap.max").read_text() == "0"
    assert (folder / "pids.max").read_text() == "20"
    assert group.procs_files == [str(folder / "cgroup.procs")]
    os.close(group._usage)  # not group.remove(): it would signal the made-up pids
    os.close(group._count)


def test_mount_and_group_paths_are_read_from_proc():
    v1, v2 = cgroups._mounts()
    own = cgroups._own_paths()
    assert v1 or v2
    for controller, point in v1.items():
        assert controller in own and os.path.isdir(point)
