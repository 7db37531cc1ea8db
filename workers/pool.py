"""The slots of one process: leased out a match at a time, closed when the process ends.

Pools are per process: a forked child (a Celery pool worker) never uses its
parent's slots. A pool's folder has a random, neutral name (bots see it in
/proc/self/mountinfo); a file in it names the owning pid, so the folders and
control groups of a pool whose process was SIGKILLed are swept by the next.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from workers import cgroups
from workers.runtime_files import RUNTIME_DIR, Pinned, build_tree, regular_files
from workers.sandbox import (
    Runtime,
    SandboxUnavailable,
    install_masks,
    numpy_dir,
    runtime_binds,
)
from workers.seccomp import program
from workers.slots import Slot
from workers.staging import install_sdk
from workers.zygote import FILTER_NAME

MAX_SLOTS = 16  # per process: more at once is a bug, not a load
ROOT_PREFIX = "sbx-"
OWNER_FILE = "owner"


def reachable_temp_dir(preferred: str) -> str:
    """`preferred` if every folder on its path lets other uids through, else /tmp.

    bwrap runs as the slot's own uid when the runner is root, and must reach
    the folders it binds; a private TMPDIR (say 0700) would hide them.
    """
    path = Path(preferred).resolve()
    for folder in (path, *path.parents):
        try:
            if not folder.stat().st_mode & 0o001:
                return "/tmp"
        except OSError:
            return "/tmp"
    return str(path)


def _owner(folder: Path) -> int | None:
    try:
        return int((folder / OWNER_FILE).read_text())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


def remove_stale_roots(base: str) -> None:
    """Delete the folders of pools whose process died without cleaning up (SIGKILL)."""
    for entry in Path(base).glob(f"{ROOT_PREFIX}*"):
        owner = _owner(entry)
        if owner is not None and not _alive(owner):
            shutil.rmtree(entry, ignore_errors=True)


def install_filter(sdk_dir: Path) -> None:
    """Write the bots' seccomp filter next to the SDK (none where no syscall table is known)."""
    bpf = program()
    if bpf is not None:
        (sdk_dir / FILTER_NAME).write_bytes(bpf)
        os.chmod(sdk_dir / FILTER_NAME, 0o644)


class SlotPool:
    """The slots of one process for one sandbox shape; leased out a match at a time."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.owner = os.getpid()
        base = tempfile.gettempdir()
        if rt.unprivileged:
            base = reachable_temp_dir(base)
        remove_stale_roots(base)
        tree = cgroups.tree()
        if tree is not None:
            tree.sweep(_alive)
        self.root = Path(tempfile.mkdtemp(prefix=ROOT_PREFIX, dir=base))
        (self.root / OWNER_FILE).write_text(str(self.owner))
        os.chmod(self.root / OWNER_FILE, 0o600)
        os.chmod(self.root, 0o711)  # sandbox uids may pass through to their own folders
        install_sdk(self.root / "sdk", numpy=numpy_dir(rt.python))
        install_filter(self.root / "sdk")
        install_masks(str(self.root / "sdk"))
        # Every page a sandbox can read stays in memory while the pool lives, so no seat
        # can tell another seat's first reads by their speed (workers.runtime_files).
        self.pinned = None
        if rt.bwrap:
            master = self.root / RUNTIME_DIR
            build_tree(runtime_binds(rt.python), master, self.root / "spare")
            self.pinned = Pinned(regular_files(((str(master), "/"),)))
        self.uids: set[int] = set()  # every outer uid a slot of this pool ran as
        self._free: list[Slot] = []
        self._all: list[Slot] = []
        self._lock = threading.Lock()
        self.closed = False

    @contextlib.contextmanager
    def lease(self, count: int) -> Iterator[list[Slot]]:
        """`count` slots for one match; each is cleared (or replaced) when it comes back."""
        slots: list[Slot] = []
        try:
            for _ in range(count):
                slots.append(self._take())
            yield slots
        finally:
            for slot in slots:
                self._give_back(slot)

    def _take(self) -> Slot:
        with self._lock:
            while self._free:
                slot = self._free.pop()
                if not slot.broken and slot.running():
                    return slot
                self._forget(slot)
            index = _indices.take()
        try:
            slot = Slot(self.rt, self.root, index)
        except BaseException:
            _indices.give(index)
            raise
        with self._lock:
            self._all.append(slot)
            if slot.uid is not None:
                self.uids.add(slot.uid)
        return slot

    def _give_back(self, slot: Slot) -> None:
        if not slot.broken:
            slot.clear()
        with self._lock:
            if slot.broken or not slot.running():
                self._forget(slot)
            else:
                self._free.append(slot)

    def _forget(self, slot: Slot) -> None:
        slot.close()
        if slot in self._all:
            self._all.remove(slot)
            _indices.give(slot.index)

    def pids(self) -> set[int]:
        """Every sandbox process of this pool that outlives matches."""
        with self._lock:
            return {pid for slot in self._all for pid in slot.pids()}

    def close(self) -> None:
        with self._lock:
            self.closed = True
            for slot in list(self._all):
                self._forget(slot)
            self._free.clear()
        if self.pinned is not None:
            self.pinned.close()
        shutil.rmtree(self.root, ignore_errors=True)


class _Indices:
    """Slot numbers in use in this process (they name each slot's folder and control group)."""

    def __init__(self) -> None:
        self._used: set[int] = set()
        self._lock = threading.Lock()

    def take(self) -> int:
        with self._lock:
            for index in range(MAX_SLOTS):
                if index not in self._used:
                    self._used.add(index)
                    return index
        raise SandboxUnavailable(f"more than {MAX_SLOTS} bot sandboxes at once in one process")

    def give(self, index: int) -> None:
        with self._lock:
            self._used.discard(index)


_indices = _Indices()
_pools: dict[Runtime, SlotPool] = {}
_pools_lock = threading.Lock()


def pool(rt: Runtime) -> SlotPool:
    """This process's pool for sandboxes of `rt`."""
    global _indices
    with _pools_lock:
        stale = [key for key, found in _pools.items() if found.owner != os.getpid()]
        if stale:
            # Forked from a process that had pools: those slots are the parent's.
            for key in stale:
                del _pools[key]
            _indices = _Indices()
        if rt not in _pools or _pools[rt].closed:
            _pools[rt] = SlotPool(rt)
        return _pools[rt]


def pool_uids() -> set[int]:
    """Every outer uid this process's sandboxes ran as (for tests and checks)."""
    with _pools_lock:
        return {uid for found in _pools.values() for uid in found.uids}


def pool_pids() -> set[int]:
    """Processes of this process's pools that rightly outlive a match (for tests and checks)."""
    with _pools_lock:
        return {pid for found in _pools.values() for pid in found.pids()}


def close_pools() -> None:
    """End every sandbox of this process (at exit, and when a worker process stops)."""
    with _pools_lock:
        mine = [found for found in _pools.values() if found.owner == os.getpid()]
        _pools.clear()
    for found in mine:
        found.close()


atexit.register(close_pools)
