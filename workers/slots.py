"""Long-lived bot sandboxes ("slots"), each with a zygote that forks a fresh bot per match.

A worker process keeps a pool of slots and leases one per seat for a match.
Before a slot serves a new bot, everything of the previous one is gone: the
runner kills every process below the zygote and waits until none is left,
the seat's directory (bound read-only at /bot) is emptied and refilled, and
the zygote empties /tmp. A slot whose zygote stops answering is closed and
replaced. Pools are per process: a forked child (a Celery pool worker) never
uses its parent's slots.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from workers.cpus import pin
from workers.limits import Limits
from workers.sandbox import (
    SETPRIV,
    UID_BASE,
    BotProcess,
    Runtime,
    SandboxUnavailable,
    alive,
    bare_command,
    bwrap_command,
    children,
    inner_pid,
    rlimits,
)
from workers.staging import BotSource, install_sdk, stage

MAX_SLOTS = 16  # per process: the uid range each process owns when it runs as root
START_TIMEOUT_S = 10
REPLY_TIMEOUT_S = 5
ROOT_PREFIX = "tradewinds-slots-"  # then the owning pid: a dead owner's folder is swept


def slot_uid(index: int) -> int | None:
    """The outer uid of slot `index` of this process when the runner is root (else its own)."""
    if os.geteuid() != 0:
        return None
    return UID_BASE + (os.getpid() % 50_000) * MAX_SLOTS + index


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


def remove_stale_roots(base: str) -> None:
    """Delete the folders of pools whose process died without cleaning up (SIGKILL)."""
    for entry in Path(base).glob(f"{ROOT_PREFIX}*-*"):
        pid = entry.name.removeprefix(ROOT_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(entry, ignore_errors=True)


class SlotBroken(Exception):
    """The zygote did not answer as it should; the slot must be replaced."""


class Slot:
    """One sandbox whose zygote forks the bots of one seat, match after match."""

    def __init__(self, rt: Runtime, root: Path, index: int, tmpfs_mb: int) -> None:
        self.index = index
        self.uid = slot_uid(index) if rt.unprivileged else None
        self.bot_dir = root / f"slot{index}"
        self.bot_dir.mkdir(exist_ok=True)
        self._rt = rt
        self._sdk_dir = root / "sdk"
        self._tmpfs_mb = tmpfs_mb
        self._pending = bytearray()
        self._exit: int | None = None
        self._bot_running = False
        self._launch()

    # -- life of the sandbox ------------------------------------------------------
    def _launch(self) -> None:
        self.broken = False
        self._pending.clear()
        self._exit = None
        self._bot_running = False
        self.zygote: int | None = None
        ours, theirs = socket.socketpair()
        fd = theirs.fileno()
        if self._rt.bwrap is not None:
            sdk, bot = str(self._sdk_dir), str(self.bot_dir)
            command = bwrap_command(self._rt, sdk, bot, self._tmpfs_mb, fd)
            env: dict[str, str] = {}
        else:
            command = bare_command(self._rt, str(self._sdk_dir), fd)
            env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        if self.uid is not None:
            # Only an unprivileged outer uid makes RLIMIT_NPROC bite. setpriv drops
            # to it; asking Popen to do so would fork the whole runner, not vfork.
            command = [
                SETPRIV, "--reuid", str(self.uid), "--regid", str(self.uid), "--clear-groups",
                *command,
            ]  # fmt: skip
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                pass_fds=(fd,),
                env=env,
                cwd="/",
                start_new_session=True,
            )
        except OSError as exc:
            ours.close()
            raise SandboxUnavailable(f"a bot sandbox could not be started: {exc}") from None
        finally:
            theirs.close()
        self._control = ours
        try:
            if self._reply(START_TIMEOUT_S) != "ready":
                raise SlotBroken("no ready")
        except SlotBroken:
            why = self._stderr_after_death()
            self.close()
            raise SandboxUnavailable(f"a bot sandbox did not start: {why}") from None
        # bwrap's one child is the zygote (pid 1 inside); bare, the zygote is ours.
        found = children(self.proc.pid) if self._rt.bwrap is not None else [self.proc.pid]
        if len(found) != 1:
            self.close()
            raise SandboxUnavailable(f"a bot sandbox has {len(found)} top processes, not 1")
        self.zygote = found[0]

    def _stderr_after_death(self) -> str:
        try:
            self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "its zygote did not answer"
        text = self.proc.stderr.read().decode("utf-8", "replace").strip()
        return text or f"exit code {self.proc.returncode}"

    def close(self) -> None:
        """End the sandbox: the zygote and anything left in it."""
        self.broken = True
        with contextlib.suppress(OSError):
            self._control.close()
        if self.proc.returncode is None:
            # Killing the namespace's pid 1 kills everything in it; bwrap then
            # reaps it and exits, so nothing is left when the wait returns.
            zygote = self.zygote or self.proc.pid
            with contextlib.suppress(ProcessLookupError):
                os.kill(zygote, signal.SIGKILL)
            try:
                self.proc.wait(timeout=REPLY_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        with contextlib.suppress(OSError):
            self.proc.stderr.close()

    def pids(self) -> set[int]:
        """The sandbox's own live processes (bwrap and the zygote), which outlive matches."""
        if self.broken or not self.running():
            return set()
        return {self.proc.pid, self.zygote} - {None}

    # -- the control socket ---------------------------------------------------------
    def _reply(self, timeout_s: float) -> str:
        """The zygote's next reply line; SlotBroken when it is silent, or hung up (broken)."""
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SlotBroken(f"no reply within {timeout_s} s")
            ready, _, _ = select.select([self._control], [], [], remaining)
            if not ready:
                continue
            try:
                data = self._control.recv(4096)
            except OSError as exc:
                self.broken = True
                raise SlotBroken(str(exc)) from None
            if not data:
                self.broken = True  # the zygote is gone: nothing more will come
                raise SlotBroken("the zygote hung up")
            self._pending += data
        line, _, rest = bytes(self._pending).partition(b"\n")
        self._pending = bytearray(rest)
        return line.decode()

    # -- one bot --------------------------------------------------------------------
    def stage(self, source: BotSource) -> None:
        """Give this slot's next bot its code (ValueError for an upload that cannot be staged)."""
        stage(source, self.bot_dir, self.uid)

    def spawn(self, limits: Limits, cpu: int | None = None) -> BotProcess:
        """Fork the staged bot in this sandbox (on `cpu`, if given), with fresh pipes to it.

        A sandbox that fails to serve is replaced once; SandboxUnavailable if
        the new one fails too (an infrastructure fault, never the bot's).
        """
        failure = None
        for _attempt in range(2):
            if self.broken or not self.running():
                self.close()
                self._launch()
            pin(self.zygote, cpu)  # the bot inherits the zygote's CPU
            try:
                return self._spawn(limits)
            except SlotBroken as exc:
                failure = exc
        raise SandboxUnavailable(f"a bot sandbox could not start a bot: {failure}")

    def _spawn(self, limits: Limits) -> BotProcess:
        if self._bot_running:
            raise RuntimeError("slot already runs a bot")
        bot_path, cwd = ("/bot", "/tmp") if self._rt.bwrap else (str(self.bot_dir),) * 2
        request = f"spawn {rlimits(limits)}\0{bot_path}\0{cwd}".encode()
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        theirs, ours = (stdin_r, stdout_w, stderr_w), (stdin_w, stdout_r, stderr_r)
        try:
            socket.send_fds(self._control, [request], list(theirs))
            reply = self._reply(REPLY_TIMEOUT_S)
            kind, _, value = reply.partition(" ")
            if kind != "pid":
                raise SlotBroken(reply)  # `error ...`: the zygote could not serve
        except (OSError, SlotBroken) as exc:
            for fd in ours:
                os.close(fd)
            self.close()
            raise SlotBroken(str(exc)) from None
        finally:
            for fd in theirs:
                os.close(fd)
        self._exit = None
        self._bot_running = True
        return BotProcess(self, self._outer_pid(int(value)), *ours, limits)

    def _outer_pid(self, inner: int) -> int | None:
        """Our pid for the bot the zygote forked as `inner` (None if it is gone already)."""
        if self._rt.bwrap is None:
            return inner
        for pid in children(self.zygote):
            if inner_pid(pid) == inner:
                return pid
        return None

    def wait_exit(self, timeout_s: float) -> int | None:
        """The bot's exit code (negative: killed by that signal); None if it has not ended."""
        if self._exit is None and self._bot_running:
            try:
                line = self._reply(timeout_s)
            except SlotBroken:  # silent for now, or gone (then `broken` says so)
                return None
            kind, _, value = line.partition(" ")
            if kind != "exit":
                self.broken = True
                return None
            self._exit = int(value)
        return self._exit

    def running(self) -> bool:
        """Whether the sandbox (its bwrap, or the bare zygote) is still there."""
        return self.proc.poll() is None

    def walk(self, signo: int) -> list[int]:
        """Signal every process below the zygote, parents before children; their pids.

        Orphans come to the zygote (pid 1 of the namespace, or a subreaper when
        bare), so this finds everything a bot started. Stopping parents first
        means none can fork behind the walk.
        """
        found, stack = [], children(self.zygote)
        while stack:
            pid = stack.pop()
            try:
                os.kill(pid, signo)
            except ProcessLookupError:
                continue
            found.append(pid)
            stack.extend(children(pid))
        return found

    def clear(self) -> int | None:
        """Kill every process of the current bot and wait until none is left; its exit code."""
        if not self._bot_running:
            return self._exit
        deadline = time.monotonic() + REPLY_TIMEOUT_S
        while True:
            live = [pid for pid in self.walk(signal.SIGSTOP) if alive(pid)]
            for pid in live:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            if not live and (self._exit is not None or self.wait_exit(0.001) is not None):
                break
            if time.monotonic() > deadline or self.broken:
                self.close()  # something would not die: the whole sandbox goes
                break
            time.sleep(0.0005)
        self._bot_running = False
        return self._exit


class SlotPool:
    """The slots of one process for one sandbox shape; leased out a match at a time."""

    def __init__(self, rt: Runtime, tmpfs_mb: int) -> None:
        self.rt = rt
        self.tmpfs_mb = tmpfs_mb
        self.owner = os.getpid()
        base = tempfile.gettempdir()
        if rt.unprivileged:
            base = reachable_temp_dir(base)
        remove_stale_roots(base)
        self.root = Path(tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{self.owner}-", dir=base))
        os.chmod(self.root, 0o711)  # sandbox uids may pass through to their own folders
        install_sdk(self.root / "sdk")
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
            slot = Slot(self.rt, self.root, index, self.tmpfs_mb)
        except BaseException:
            _indices.give(index)
            raise
        with self._lock:
            self._all.append(slot)
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
        shutil.rmtree(self.root, ignore_errors=True)


class _Indices:
    """Slot numbers in use in this process (each number is a uid when running as root)."""

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
_pools: dict[tuple[Runtime, int], SlotPool] = {}
_pools_lock = threading.Lock()


def pool(rt: Runtime, limits: Limits) -> SlotPool:
    """This process's pool for sandboxes of `rt` with the /tmp size of `limits`."""
    global _indices
    with _pools_lock:
        stale = [key for key, found in _pools.items() if found.owner != os.getpid()]
        if stale:
            # Forked from a process that had pools: those slots are the parent's.
            for key in stale:
                del _pools[key]
            _indices = _Indices()
        key = (rt, limits.tmpfs_mb)
        if key not in _pools or _pools[key].closed:
            _pools[key] = SlotPool(rt, limits.tmpfs_mb)
        return _pools[key]


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
