"""A long-lived bot sandbox ("slot") whose zygote forks a fresh bot per match.

Before a slot serves a new bot, everything of the previous one is gone: the
runner kills every process of the sandbox but its bwrap and zygote (listed by
its control group, or found by walking the process tree) and waits until
none is left; the kernel then drops that bot's own /tmp and IPC namespace; the
seat's directory (bound read-only at /bot) is emptied and refilled. A slot
whose zygote stops answering, or refuses to fork, is closed and replaced.

Every name a bot could see from inside is neutral: the slot's folder is a
random one, and the outer uid (when the runner is root) is a number claimed
from a machine-wide range, not derived from the runner's pid.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import IO

from workers import cgroups
from workers.bot_process import BotProcess
from workers.claims import Claims
from workers.cpus import pin
from workers.limits import Limits
from workers.procfs import alive, children, inner_pid
from workers.runtime_files import RUNTIME_DIR, link_tree
from workers.sandbox import (
    BLAS_THREADS,
    SETPRIV,
    UID_BASE,
    Runtime,
    SandboxUnavailable,
    bare_command,
    bwrap_command,
    rlimits,
    tmp_mount_options,
)
from workers.staging import BotSource, stage

START_TIMEOUT_S = 10
REPLY_TIMEOUT_S = 5
UIDS = 50_000  # outer uids UID_BASE.. a machine's runners claim from, one per live slot
# Run as root before setpriv and bwrap: join the slot's control group, so everything
# the sandbox ever starts is a member from its first instruction.
JOIN_GROUP = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'

CONTROL_FD = 0  # the zygote's end of its control socket, inside the sandbox

_uids = Claims("uid")


def _own_tree(master: Path, tree: Path) -> None:
    """Link `tree` from `master` whole or not at all (a half-built tree would serve later
    slots of its index); a failure is the host's, never a bot's."""
    building = tree.with_name(tree.name + ".new")
    shutil.rmtree(building, ignore_errors=True)
    try:
        link_tree(master, building)
        os.rename(building, tree)
    except OSError as exc:
        shutil.rmtree(building, ignore_errors=True)
        raise SandboxUnavailable(f"a bot sandbox's runtime could not be linked: {exc}") from None


class SlotBroken(Exception):
    """The zygote did not answer as it should; the slot must be replaced."""


class Slot:
    """One sandbox whose zygote forks the bots of one seat, match after match."""

    def __init__(self, rt: Runtime, root: Path, index: int) -> None:
        self.index = index
        self.uid: int | None = None
        # The slot's own runtime folders, files linked to the machine's (runtime_files):
        # a name one seat looks up leaves no trace in another seat's folders.
        self.runtime_dir = root / f"r{index}"
        if rt.bwrap is not None and not self.runtime_dir.exists():
            _own_tree(root / RUNTIME_DIR, self.runtime_dir)
        if rt.unprivileged and os.geteuid() == 0:
            claimed = _uids.claim(range(UIDS))
            if claimed is None:
                raise SandboxUnavailable(f"all {UIDS} sandbox uids are in use on this machine")
            self.uid = UID_BASE + claimed
        self.bot_dir = root / f"b{index}"
        self.bot_dir.mkdir(exist_ok=True)
        self._rt = rt
        self._sdk_dir = root / "sdk"
        self._pending = bytearray()
        self._exit: int | None = None
        self._bot_running = False
        self._tree = cgroups.tree()
        self.group: cgroups.Group | None = None
        self._limited: tuple[int, int] | None = None
        try:
            self._launch()
        except BaseException:
            self._release_uid()
            raise

    # -- life of the sandbox ------------------------------------------------------
    def _launch(self) -> None:
        self.broken = False
        self._pending.clear()
        self._exit = None
        self._bot_running = False
        self.zygote: int | None = None
        ours, theirs = socket.socketpair()
        # The zygote's end is its stdin: always descriptor 0 in its argv, whatever this
        # process has open, so a bot's /proc/self/cmdline is the same in every mode.
        fd = CONTROL_FD
        if self._rt.bwrap is not None:
            sdk, bot = str(self._sdk_dir), str(self.bot_dir)
            command = bwrap_command(self._rt, sdk, bot, fd, str(self.runtime_dir))
            env: dict[str, str] = {}
        else:
            command = bare_command(self._rt, str(self._sdk_dir), fd)
            env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", **BLAS_THREADS}
        if self.uid is not None:
            # Only an unprivileged outer uid makes RLIMIT_NPROC bite. setpriv drops
            # to it; asking Popen to do so would fork the whole runner, not vfork.
            command = [
                SETPRIV, "--reuid", str(self.uid), "--regid", str(self.uid), "--clear-groups",
                *command,
            ]  # fmt: skip
        if self._tree is not None:
            self.group = self._tree.group(f"{os.getpid()}-{self.index}")
            self._limited = None
            command = ["/bin/sh", "-c", JOIN_GROUP, "sh", *self.group.procs_files, "--", *command]
        try:
            self.proc = subprocess.Popen(
                command,
                stdin=theirs.fileno(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=env,
                cwd="/",
                start_new_session=True,
            )
        except OSError as exc:
            ours.close()
            if self.group is not None:
                self.group.remove()
                self.group = None
            raise SandboxUnavailable(f"a bot sandbox could not be started: {exc}") from None
        finally:
            theirs.close()
        self._control = ours
        try:
            if self._reply(START_TIMEOUT_S) != "ready":
                raise SlotBroken("no ready")
        except SlotBroken:
            why = self._stderr_after_death()
            self._close_sandbox()
            raise SandboxUnavailable(f"a bot sandbox did not start: {why}") from None
        # bwrap's one child is the zygote (pid 1 inside); bare, the zygote is ours.
        found = children(self.proc.pid) if self._rt.bwrap is not None else [self.proc.pid]
        if len(found) != 1:
            self._close_sandbox()
            raise SandboxUnavailable(f"a bot sandbox has {len(found)} top processes, not 1")
        self.zygote = found[0]

    def _stderr_after_death(self) -> str:
        try:
            self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "its zygote did not answer"
        text = self._stderr().read().decode("utf-8", "replace").strip()
        return text or f"exit code {self.proc.returncode}"

    def _stderr(self) -> IO[bytes]:
        assert self.proc.stderr is not None  # started with stderr=PIPE
        return self.proc.stderr

    def _release_uid(self) -> None:
        if self.uid is not None:
            _uids.release(self.uid - UID_BASE)

    def close(self) -> None:
        """End the sandbox: the zygote, anything left in it, its group and its uid."""
        self._close_sandbox()
        self._release_uid()

    def _close_sandbox(self) -> None:
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
            self._stderr().close()
        if self.group is not None:
            self.group.remove()
            self.group = None

    def own_pids(self) -> set[int]:
        """The sandbox's own processes (bwrap, the zygote): never a bot's."""
        return {pid for pid in (self.proc.pid, self.zygote) if pid is not None}

    def pids(self) -> set[int]:
        """The sandbox's own live processes (bwrap and the zygote), which outlive matches."""
        if self.broken or not self.running():
            return set()
        return {pid for pid in (self.proc.pid, self.zygote) if pid is not None}

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
        """Give this slot's next bot its code (BadBotFile for an upload that cannot be staged)."""
        stage(source, self.bot_dir, self.uid)

    def spawn(self, limits: Limits, cpu: int | None = None) -> BotProcess:
        """Fork the staged bot in this sandbox (on `cpu`, if given), with fresh pipes to it.

        A sandbox that fails to serve is replaced once; SandboxUnavailable if
        the new one fails too (an infrastructure fault, never the bot's).
        """
        failure = None
        for _attempt in range(2):
            if self.broken or not self.running():
                self._close_sandbox()
                self._launch()
            self._confine(limits, cpu)
            try:
                return self._spawn(limits)
            except SlotBroken as exc:
                failure = exc
        raise SandboxUnavailable(f"a bot sandbox could not start a bot: {failure}")

    def _confine(self, limits: Limits, cpu: int | None) -> None:
        """The match's CPU (bots inherit the zygote's), and the group's caps for `limits`."""
        assert self.zygote is not None  # `_launch` found it, or raised
        pin(self.zygote, cpu)
        if self.group is None:
            return
        caps = (
            (limits.memory_mb << 20) + cgroups.SANDBOX_MEMORY,
            limits.processes + cgroups.SANDBOX_PIDS,
        )
        if caps != self._limited:
            self.group.limit(*caps)
            self._limited = caps

    def _spawn(self, limits: Limits) -> BotProcess:
        if self._bot_running:
            raise RuntimeError("slot already runs a bot")
        if self._rt.bwrap:
            bot_path, cwd, tmpfs = "/bot", "/tmp", tmp_mount_options(limits)
        else:
            bot_path, cwd, tmpfs = str(self.bot_dir), str(self.bot_dir), ""
        request = f"spawn {rlimits(limits)}\0{bot_path}\0{cwd}\0{tmpfs}".encode()
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
            self._close_sandbox()
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
        for pid in self._zygote_children():
            if inner_pid(pid) == inner:
                return pid
        return None

    def _zygote_children(self) -> list[int]:
        return [] if self.zygote is None else children(self.zygote)

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
        found, stack = [], self._zygote_children()
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
        keep = self.own_pids()
        while True:
            if self.group is not None:
                live = [pid for pid in self.group.members() if pid not in keep]
            else:
                live = [pid for pid in self.walk(signal.SIGSTOP) if alive(pid)]
            for pid in live:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    os.kill(pid, signal.SIGCONT)  # a stopped process dies at once either way
            if not live and (self._exit is not None or self.wait_exit(0.001) is not None):
                break
            if time.monotonic() > deadline or self.broken:
                self._close_sandbox()  # something would not die: the whole sandbox goes
                break
            time.sleep(0.0005)
        self._bot_running = False
        return self._exit
