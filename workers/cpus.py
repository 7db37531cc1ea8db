"""One CPU per match: the runner and its bots take turns, so they share one CPU.

The protocol is strictly sequential: while a bot thinks, the runner waits and
every other bot is paused. Run on different CPUs, each hand-over between
runner and bot costs a cross-CPU wake-up (tens of microseconds on a virtual
machine, several times the work of the hand-over); on one CPU it is a plain
context switch. So a match claims a CPU that no other match on this machine
holds (an flock on a per-CPU file, released even if the process dies) and
pins itself and its bots there. With more matches than CPUs, a match stays on
the CPU it started on. Either way a bot computes on one CPU at a time.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from workers.claims import Claims

_claims = Claims("cpu")


def current_cpu() -> int | None:
    """The CPU this process last ran on (field 39 of /proc/self/stat)."""
    try:
        with open("/proc/self/stat", "rb") as handle:
            return int(handle.read().rsplit(b")", 1)[1].split()[36])
    except (OSError, IndexError, ValueError):
        return None


@contextlib.contextmanager
def one_cpu() -> Iterator[int | None]:
    """Pin this process to one CPU for a match; the CPU (None: not pinned)."""
    allowed = os.sched_getaffinity(0)
    if len(allowed) < 2:
        yield None
        return
    here = current_cpu()
    # The CPU we are on first: no migration when it is free.
    order = sorted(allowed, key=lambda cpu: (cpu != here, cpu))
    cpu = claimed = _claims.claim(order)
    if cpu is None:
        cpu = here if here in allowed else order[0]
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError:
        cpu = None
    try:
        yield cpu
    finally:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, allowed)
        if claimed is not None:
            _claims.release(claimed)


def pin(pid: int, cpu: int | None) -> None:
    """Put process `pid` (a sandbox's zygote, whose forks inherit it) on `cpu`."""
    if cpu is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(pid, {cpu})
