"""One CPU per match: claimed without clashing, released afterwards."""

from __future__ import annotations

import os

import pytest

from workers.cpus import current_cpu, one_cpu

pytestmark = pytest.mark.skipif(
    len(os.sched_getaffinity(0)) < 2, reason="needs a machine with two CPUs or more"
)


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


def test_the_claim_is_released_when_the_match_ends():
    with one_cpu() as first:
        pass
    with one_cpu() as second:
        assert second == first  # free again, and the one this process is on
