"""Reading /proc and signalling processes that may already be gone."""

from __future__ import annotations

import contextlib
import os


def children(pid: int) -> list[int]:
    """Direct children of `pid`, across all its threads."""
    found: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as handle:
                found.extend(int(p) for p in handle.read().split())
        except OSError:
            continue
    return found


def descendants(pid: int) -> list[int]:
    """Every process below `pid`: its children, theirs, and so on."""
    found, todo = [], [pid]
    while todo:
        kids = children(todo.pop())
        found += kids
        todo += kids
    return found


def send_signal(pid: int, signo: int) -> None:
    """Signal a process (or, for a negative pid, a process group) that may be gone."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signo)


def process_group(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


def inner_pid(pid: int) -> int | None:
    """A process's pid inside its own (innermost) pid namespace."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"NSpid:"):
                    return int(line.split()[-1])
    except OSError:
        pass
    return None


def alive(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False
