"""Numbered things that one process at a time may hold on this machine: CPUs, sandbox uids.

A claim is an flock on a file per number in a shared lock folder: the kernel
drops it when the holder dies, even by SIGKILL, so nothing is ever leaked.
TRADEWINDS_LOCK_DIR moves the folder (tests use a private one, so they never
contend with a live ladder on the same machine).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterable


def lock_dir() -> str:
    return os.environ.get("TRADEWINDS_LOCK_DIR") or os.path.join(
        tempfile.gettempdir(), "tradewinds-locks"
    )


class Claims:
    """Claims on numbered `kind` locks (`cpu3.lock`, `uid17.lock`) for this process."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._files: dict[tuple[str, int], int] = {}  # (folder, number) -> open lock file
        self._owner = os.getpid()

    def path(self, number: int) -> str:
        return os.path.join(lock_dir(), f"{self.kind}{number}.lock")

    def _file(self, number: int) -> int | None:
        """This process's descriptor on the lock file of `number` (None if it cannot be made).

        Opened per process: a forked child shares its parent's open files, and
        flock cannot tell two holders of one open file apart.
        """
        if self._owner != os.getpid():
            for fd in self._files.values():
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._files.clear()
            self._owner = os.getpid()
        key = (lock_dir(), number)
        if key not in self._files:
            try:
                if not os.path.isdir(key[0]):
                    os.makedirs(key[0], exist_ok=True)
                    os.chmod(key[0], 0o1777)  # workers of any user share it, like /tmp
                self._files[key] = os.open(self.path(number), os.O_RDWR | os.O_CREAT, 0o666)
            except OSError:
                return None
        return self._files[key]

    def claim(self, numbers: Iterable[int]) -> int | None:
        """The first of `numbers` nobody on this machine holds, now held by us; else None."""
        for number in numbers:
            fd = self._file(number)
            if fd is None:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue
            return number
        return None

    def release(self, number: int) -> None:
        fd = self._files.get((lock_dir(), number))
        if fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
