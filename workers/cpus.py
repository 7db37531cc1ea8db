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
import fcntl
import os
import tempfile
from collections.abc import Iterator

_LOCK_DIR = os.path.join(tempfile.gettempdir(), "tradewinds-cpus")
_files: dict[int, int] = {}  # cpu -> an open lock file of this process
_owner = os.getpid()


def _lock_file(cpu: int) -> int | None:
    """This process's descriptor on the lock file of `cpu` (None if it cannot be made).

    Opened per process: a forked child shares its parent's open files, and
    flock cannot tell two holders of one open file apart.
    """
    global _owner
    if _owner != os.getpid():
        for fd in _files.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        _files.clear()
        _owner = os.getpid()
    if cpu not in _files:
        try:
            if not os.path.isdir(_LOCK_DIR):
                os.makedirs(_LOCK_DIR, exist_ok=True)
                os.chmod(_LOCK_DIR, 0o1777)  # workers of any user share it, like /tmp
            _files[cpu] = os.open(
                os.path.join(_LOCK_DIR, f"cpu{cpu}.lock"), os.O_RDWR | os.O_CREAT, 0o666
            )
        except OSError:
            return None
    return _files[cpu]


def _claim(cpus: list[int]) -> tuple[int | None, int | None]:
    """(a CPU no other match holds, its locked descriptor), or (None, None)."""
    for cpu in cpus:
        fd = _lock_file(cpu)
        if fd is None:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue
        return cpu, fd
    return None, None


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
    cpu, fd = _claim(order)
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
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)


def pin(pid: int, cpu: int | None) -> None:
    """Put process `pid` (a sandbox's zygote, whose forks inherit it) on `cpu`."""
    if cpu is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(pid, {cpu})
