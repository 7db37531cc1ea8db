"""One CPU per match: claimed without clashing, released afterwards."""

from __future__ import annotations

import fcntl
import os

import pytest

from workers import cpus
from workers.cpus import current_cpu, one_cpu

pytestmark = pytest.mark.skipif(
    len(os.sched_getaffinity(0)) < 2, reason="needs a machine with two CPUs or more"
)


@pytest.fixture(autouse=True)
def private_locks(tmp_path, monkeypatch):
    """Claims in a folder of this test's own: a live ladder on the machine holds the real ones."""
    monkeypatch.setenv("TRADEWINDS_LOCK_DIR", str(tmp_path / "locks"))
    return tmp_path / "locks"


def test_a_match_is_pinned_to_one_allowed_cpu_and_unpinned_after():
    allowed = os.sched_getaffinity(0)
    with one_cpu() as cpu:
        assert cpu in allowed
        assert os.sched_getaffinity(0) == {cpu}
        assert current_cpu() == cpu
    assert os.sched_getaffinity(0) == allowed


def test_two_matches_at_once_claim_different_cpus():
    allowed = os.sched_getaffinity(0)
    read, write = os.pipe()
    with one_cpu() as mine:
        child = os.fork()
        if child == 0:  # pragma: no cover - runs in the forked child
            try:
                os.sched_setaffinity(0, allowed)  # as a worker process that forked earlier
                with one_cpu() as theirs:
                    os.write(write, str(theirs).encode())
            finally:
                os._exit(0)
        os.waitpid(child, 0)
    theirs = int(os.read(read, 64))
    os.close(read)
    os.close(write)
    assert theirs != mine


def free_for_others(cpu: int) -> bool:
    """Whether another process could claim `cpu` now (its own open of the lock file)."""
    fd = os.open(cpus._claims.path(cpu), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # closing the only descriptor of this open drops any lock it took
    return True


def test_the_claim_holds_during_the_match_and_is_released_after():
    with one_cpu() as cpu:
        assert not free_for_others(cpu)
    assert free_for_others(cpu)


def test_claims_live_in_the_lock_folder_given(private_locks):
    with one_cpu() as cpu:
        assert (private_locks / f"cpu{cpu}.lock").exists()


def test_a_number_is_held_by_one_claimer_at_a_time_and_freed_by_release():
    from workers.claims import Claims

    mine = Claims("uid")
    assert mine.claim(range(3)) == 0
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked child
        try:
            os.write(write, str(Claims("uid").claim(range(3))).encode())
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert int(os.read(read, 64)) == 1  # 0 is ours: another process gets the next
    mine.release(0)
    assert Claims("uid").claim(range(3)) == 0
    os.close(read)
    os.close(write)
