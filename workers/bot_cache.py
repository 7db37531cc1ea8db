"""A worker host's own copies of bot files, by content hash, in a bounded folder.

The ladder hands a worker each seat's sha256 and a way to fetch the bytes (from
the artifact store); the cache lends a local path, fetching only on a miss, so a
bot that plays thousands of matches crosses the network once per host.

Several worker processes share one folder:
- a file appears by rename, so nobody sees half of one;
- a miss is fetched under the folder's exclusive `flock`, re-checked inside it,
  so one process fetches while the others wait and then find the file;
- a file lent out (`hold`) carries a shared `flock` until it is given back, and
  eviction, under the folder lock, skips every file it cannot lock exclusively:
  a bot is never removed between being found and being staged. So the bound is
  kept except while more than it is in use at once.
A file's modification time is its last use (set from the clock on every hold),
and past `max_bytes` the least recently used go first. Fetched bytes must hash to
the sha256 asked for.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from workers.contract import BadBotFile

KINDS = ("py", "zip")
SHA256 = re.compile(r"[0-9a-f]{64}")
ENTRY = re.compile(r"[0-9a-f]{64}\.(py|zip)")
LOCK = ".lock"
TMP = ".tmp-"
STALE_TMP_S = 3600  # a temporary file this old was left by a process that died


class BotCache:
    """Bot files under `folder`, at most about `max_bytes` of them (one file may exceed it)."""

    def __init__(self, folder: str | os.PathLike, max_bytes: int) -> None:
        if max_bytes < 0:
            raise ValueError("a cache bound is a number of bytes, at least 0")
        self.folder = Path(folder)
        self.max_bytes = max_bytes

    @contextlib.contextmanager
    def hold(self, sha256: str, kind: str, fetch: Callable[[], bytes]) -> Iterator[Path]:
        """Lend the local file of the bot with this hash, fetching it on a miss; it stays
        (no eviction) until the block ends.

        BadBotFile if the hash or kind is malformed or the fetched bytes do not
        match; whatever `fetch` raises passes through (nothing is kept then).
        """
        if not SHA256.fullmatch(sha256 or ""):
            raise BadBotFile(f"{sha256!r} is not a sha256 in hex")
        if kind not in KINDS:
            raise BadBotFile(f"a bot file is .py or .zip, not {kind!r}")
        target = self.folder / f"{sha256}.{kind}"
        fd = _open_shared(target)
        if fd is None:
            fd = self._fetch(target, sha256, fetch)
        try:
            yield target
        finally:
            os.close(fd)  # closing gives the shared lock back

    def _fetch(self, target: Path, sha256: str, fetch: Callable[[], bytes]) -> int:
        """A miss: under the folder lock, fetch, check, write, evict; the held descriptor."""
        with self._locked():
            fd = _open_shared(target)  # another process may have fetched it meanwhile
            if fd is not None:
                return fd
            data = fetch()
            found = hashlib.sha256(data).hexdigest()
            if found != sha256:
                raise BadBotFile(
                    f"the fetched bot file hashes to {found[:12]}…, not {sha256[:12]}…:"
                    " the stored copy is damaged"
                )
            _write_atomic(target, data)
            fd = _open_shared(target)  # nobody evicts while we hold the folder lock
            if fd is None:
                raise FileNotFoundError(f"{target} vanished as it was written")
            try:
                self._evict()
            except BaseException:
                os.close(fd)
                raise
            return fd

    def usage(self) -> int:
        """Bytes the cached files take now."""
        return sum(size for _, _, size in self._entries())

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """The host-wide lock of this folder (a fresh descriptor: threads exclude too)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.folder / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _entries(self) -> list[tuple[int, Path, int]]:
        """(last use in ns, path, size) of every cached file, oldest first."""
        entries = []
        for entry in os.scandir(self.folder):
            if ENTRY.fullmatch(entry.name):
                try:
                    stat = entry.stat()
                except FileNotFoundError:
                    continue
                entries.append((stat.st_mtime_ns, Path(entry.path), stat.st_size))
            elif entry.name.startswith(TMP):
                _drop_if_stale(Path(entry.path))
        return sorted(entries, key=lambda e: (e[0], e[1].name))

    def _evict(self) -> None:
        """Remove least recently used files, skipping those lent out, until the rest fit
        in max_bytes (called under the folder lock)."""
        entries = self._entries()
        total = sum(size for _, _, size in entries)
        for _, path, size in entries:
            if total <= self.max_bytes:
                break
            if _remove_unless_held(path):
                total -= size


def _open_shared(path: Path) -> int | None:
    """A descriptor of `path` under a shared lock, its use time set to now; None if there
    is no such file (or it was evicted between our open and our lock)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        if os.stat(path).st_ino != os.fstat(fd).st_ino:
            raise FileNotFoundError(path)
        # Set from the clock in nanoseconds rather than left to the file system, whose
        # timestamps may be coarser than the gap between two uses.
        now = time.time_ns()
        os.utime(fd, ns=(now, now))
    except FileNotFoundError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


def _remove_unless_held(path: Path) -> bool:
    """Unlink `path` unless a process holds it; True if it is gone now."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False  # lent out: it stays
    else:
        path.unlink(missing_ok=True)
        return True
    finally:
        os.close(fd)


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TMP)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)  # private (0600): staging copies it for the sandbox
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _drop_if_stale(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        if time.time() - path.stat().st_mtime > STALE_TMP_S:
            path.unlink()
