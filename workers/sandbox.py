"""Bot processes in bubblewrap sandboxes, and the pipes the runner talks to them through.

Each sandbox is long-lived (a `workers.slots.Slot`): its pid 1 is a zygote
that forks one fresh bot process per match, so a bot starts in about a
millisecond instead of paying for bwrap and a new interpreter every time.
The sandbox has no network, its own user/pid/ipc/uts namespaces, a non-root
uid, a read-only runtime and bot directory, a size-capped private /tmp as the
only writable place, an empty environment and rlimits. When the runner runs as
root, bwrap itself is started as an unprivileged uid of its own, because the
kernel never applies RLIMIT_NPROC to root (a fork bomb would go unchecked).
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from workers.limits import Limits

SDK_NAME = "tradewinds_sdk.py"
ZYGOTE_NAME = "tradewinds_zygote.py"


def zygote_entry(sdk_dir: str) -> str:
    """`python -c` code that starts the zygote from `sdk_dir`, so cached bytecode is used."""
    module = ZYGOTE_NAME.removesuffix(".py")
    return f"import sys; sys.path.insert(0, {sdk_dir!r}); import {module}; {module}.main()"


# Exit codes of bots/sdk.py (kept in step with it; the SDK imports nothing of ours).
EXIT_LOAD, EXIT_MEMORY, EXIT_FILE_LIMIT, EXIT_PROTOCOL = 2, 3, 4, 5
# Outer uids for sandboxes when the runner is root: one per process and slot,
# so one bot's fork bomb cannot use up another's process budget.
UID_BASE = 200_000
INNER_UID = 1000
# Drops the outer bwrap to a slot's own uid when the runner is root (util-linux, always there).
SETPRIV = shutil.which("setpriv") or "/usr/bin/setpriv"
PIPE_SAFE_BYTES = 32 << 10  # well inside Linux's default 64 KiB pipe buffer
SWEEP_EVERY = 16  # pauses between full walks of a sandbox's process tree (~50 us each)


class SandboxUnavailable(RuntimeError):
    """bwrap is missing or cannot create namespaces here."""


class BotFault(Exception):
    """A bot broke a rule: `status` is its match status, the message says why."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class Runtime:
    """How to start bot processes: bwrap or (unsafe, development only) bare."""

    python: str
    bwrap: str | None  # None: unsafe development mode, no sandbox
    unprivileged: bool  # bwrap started as a non-root uid of its own


def sandbox_python() -> str:
    """The interpreter bots run on: the system python3 (readable by any uid) when present."""
    for candidate in ("/usr/bin/python3", os.path.realpath(sys.executable)):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise SandboxUnavailable("no python3 to run bots with")


def runtime(unsafe: bool = False) -> Runtime:
    """The runtime to use; refuses without bwrap unless `unsafe` (which warns)."""
    python = sandbox_python()
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        if not unsafe:
            raise SandboxUnavailable(
                "bwrap (Debian package bubblewrap) is not installed: refusing to run bots"
                " without a sandbox. Install it, or pass the unsafe development flag."
            )
        print(
            "WARNING: running bots WITHOUT a sandbox (unsafe development mode):"
            " a bot can read and change anything this user can.",
            file=sys.stderr,
        )
        return Runtime(python, None, False)
    if os.geteuid() == 0 and _probe(bwrap, python, UID_BASE - 1) is None:
        return Runtime(python, bwrap, True)
    # Not root, or root where unprivileged user namespaces are off: bwrap runs as
    # we are (as root RLIMIT_NPROC cannot bind, the other limits still do).
    error = _probe(bwrap, python, None)
    if error is not None:
        raise SandboxUnavailable(f"bwrap cannot start a sandbox on this machine: {error}")
    return Runtime(python, bwrap, os.geteuid() != 0)


@functools.cache
def _probe(bwrap: str, python: str, uid: int | None) -> str | None:
    """Start an empty sandbox as `uid` (None: as we are); None if it works, else why not."""
    probe = [bwrap, *_namespace_args(), *_runtime_binds(python), "--", python, "-S", "-c", ""]
    ids = {"user": uid, "group": uid, "extra_groups": []} if uid is not None else {}
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=10, **ids)
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    return None if done.returncode == 0 else done.stderr.strip() or f"exit {done.returncode}"


def _namespace_args() -> list[str]:
    return [
        "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
        "--unshare-cgroup-try", "--uid", str(INNER_UID), "--gid", str(INNER_UID),
        "--hostname", "bot", "--die-with-parent", "--new-session", "--clearenv",
    ]  # fmt: skip


def _runtime_binds(python: str) -> list[str]:
    """Read-only binds for the interpreter and the libraries it loads."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/lib", "/lib64", "/lib32", "/sbin"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    prefix = str(Path(os.path.realpath(python)).parent.parent)
    if not (prefix == "/usr" or prefix.startswith("/usr/")):
        args += ["--ro-bind", prefix, prefix]
    return args


def bwrap_command(
    rt: Runtime, sdk_dir: str, bot_dir: str, tmpfs_mb: int, control_fd: int
) -> list[str]:
    """The bwrap command line of one slot's sandbox, whose pid 1 is the zygote."""
    return [
        rt.bwrap,
        *_namespace_args(),
        *([] if rt.unprivileged else ["--cap-drop", "ALL"]),
        # The zygote is the namespace's init: the kernel then drops every signal a
        # bot sends it, so no bot can take the sandbox down for the next one.
        "--as-pid-1",
        "--setenv", "HOME", "/tmp", "--setenv", "PATH", "/usr/bin:/bin",
        "--setenv", "LANG", "C.UTF-8",
        *_runtime_binds(rt.python),
        "--proc", "/proc", "--dev", "/dev",
        "--size", str(tmpfs_mb << 20), "--tmpfs", "/tmp",
        "--ro-bind", sdk_dir, "/sdk",
        "--ro-bind", bot_dir, "/bot",
        # The root is bwrap's own tmpfs and /dev another: both read-only, so /tmp
        # (emptied by the zygote before every bot) is the only writable place.
        "--remount-ro", "/dev",
        "--remount-ro", "/",
        "--chdir", "/tmp",
        "--", rt.python, "-I", "-S", "-B", "-c", zygote_entry("/sdk"), str(control_fd), "/tmp",
    ]  # fmt: skip


def bare_command(rt: Runtime, sdk_dir: str, control_fd: int) -> list[str]:
    """The zygote without a sandbox (unsafe development mode)."""
    return [rt.python, "-I", "-S", "-B", "-c", zygote_entry(sdk_dir), str(control_fd), "-"]


def rlimits(limits: Limits) -> str:
    """The rlimits the SDK sets on itself before it loads any bot code."""
    caps = {
        "as": limits.memory_mb << 20,
        "cpu": limits.cpu_s,
        "nproc": limits.processes,
        "nofile": limits.open_files,
        "fsize": limits.file_mb << 20,
        "core": 0,
    }
    return ",".join(f"{name}={value}" for name, value in caps.items())


class Host(Protocol):
    """What a bot process needs from the sandbox it was forked in (`workers.slots.Slot`)."""

    def walk(self, signo: int) -> list[int]: ...

    def wait_exit(self, timeout_s: float) -> int | None: ...

    def clear(self) -> int | None: ...


class BotProcess:
    """One running bot: talk JSON lines to it, pause, resume and kill it.

    `pid` is the bot's pid as the runner sees it (None if it ended before it
    was found); the bot leads a process group of its own. `host` is the slot
    whose zygote forked it: it reports the exit code and finds every process
    the bot started, wherever it moved in the tree.
    """

    def __init__(
        self, host: Host, pid: int | None, stdin: int, stdout: int, stderr: int, limits: Limits
    ) -> None:
        self.limits = limits
        self.pid = pid
        self.returncode: int | None = None
        self.stderr_total = 0
        self._host = host
        self._tail = bytearray()
        self._out = bytearray()
        self._strays: list[int] = []
        self._pauses = 0
        self.paused = False
        self._stdin = open(stdin, "wb")  # noqa: SIM115 - closed by kill()
        self._out_fd, self._err_fd = stdout, stderr
        os.set_blocking(self._out_fd, False)
        os.set_blocking(self._err_fd, False)
        self._poll = select.poll()
        self._poll.register(self._out_fd, select.POLLIN)
        self._poll.register(self._err_fd, select.POLLIN)
        self._err_open = True
        self._closed = False

    # -- talking ------------------------------------------------------------
    def send(self, line: bytes) -> None:
        """Write one protocol line; a bot that has closed its input has crashed."""
        try:
            self._stdin.write(line)
            self._stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._exit_fault() from None

    def read_line(self, timeout_s: float) -> bytes:
        """The next stdout line (without newline) within `timeout_s`, else a BotFault."""
        deadline = time.monotonic() + timeout_s
        cap = self.limits.line_kb << 10
        scanned = 0
        while True:
            nl = self._out.find(b"\n", scanned)
            if nl >= 0:
                line = bytes(self._out[:nl])
                del self._out[: nl + 1]
                return line
            scanned = len(self._out)
            if scanned > cap:
                raise BotFault("invalid", f"a stdout line longer than {self.limits.line_kb} KiB")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BotFault("timeout", f"no reply within {timeout_s * 1000:.0f} ms")
            for fd, _ in self._poll.poll(remaining * 1000):
                if fd == self._err_fd:
                    self._read_stderr()
                    continue
                data = os.read(fd, 1 << 16)
                if not data:
                    raise self._exit_fault()
                self._out += data

    def ask(self, message: bytes, timeout_s: float) -> tuple[bytes, float]:
        """Let the bot answer one message: (its reply line, wall-clock ms).

        The bot is left running: the runner pauses it when another bot is asked,
        so a seat that decides several times in a row is not stopped in between.
        """
        if self.pending_output():
            raise BotFault("invalid", "wrote to stdout when it was not asked to")
        began = time.perf_counter()
        # A message that fits the pipe is written while the bot is still stopped, so
        # SIGCONT wakes it once with its input waiting; a larger one would block.
        if self.paused and len(message) <= PIPE_SAFE_BYTES:
            self.send(message)
            self.resume()
        else:
            self.resume()
            self.send(message)
        line = self.read_line(timeout_s)
        return line, (time.perf_counter() - began) * 1000

    def pending_output(self) -> bool:
        """Whether the bot wrote stdout beyond its last reply (off-protocol output)."""
        if self._out:
            return True
        ready = self._poll.poll(0)
        for fd, _ in ready:
            if fd == self._err_fd:
                self._read_stderr()
            else:
                data = os.read(fd, 1 << 16)
                self._out += data
        return bool(self._out)

    def _read_stderr(self) -> None:
        try:
            data = os.read(self._err_fd, 1 << 16)
        except BlockingIOError:
            return
        if not data:
            self._poll.unregister(self._err_fd)
            self._err_open = False
            return
        self.stderr_total += len(data)
        self._tail += data
        keep = self.limits.stderr_tail_kb << 10
        if len(self._tail) > keep:
            del self._tail[:-keep]
        if self.stderr_total > self.limits.stderr_kb << 10:
            raise BotFault("killed", f"wrote more than {self.limits.stderr_kb} KiB to stderr")

    def stderr_tail(self) -> str:
        """The capped tail of what the bot wrote to stderr, for its owner."""
        return self._tail.decode("utf-8", "replace")

    def _exit_fault(self) -> BotFault:
        """Name the fault of a bot whose output ended: how did it exit?"""
        if self.returncode is None:
            self.returncode = self._host.wait_exit(1)
        code = self.returncode
        if code is None:
            return BotFault("crash", "closed its output without exiting")
        self._drain_stderr()
        signo = -code if code < 0 else 0
        if code == EXIT_MEMORY:
            return BotFault("killed", f"memory limit ({self.limits.memory_mb} MiB) reached")
        if code == EXIT_FILE_LIMIT or signo == signal.SIGXFSZ:
            return BotFault("killed", f"file size limit ({self.limits.file_mb} MiB) reached")
        if signo == signal.SIGXCPU:
            return BotFault("killed", f"CPU time limit ({self.limits.cpu_s} s) reached")
        if code == EXIT_LOAD:
            return BotFault("crash", "the bot could not be loaded (see stderr)")
        if signo:
            return BotFault("crash", f"died from signal {signal.Signals(signo).name}")
        return BotFault("crash", f"exited with code {code}")

    def _drain_stderr(self) -> None:
        while self._err_open:
            if not self._poll.poll(0):
                return
            try:
                self._read_stderr()
            except BotFault:
                return

    # -- scheduling ---------------------------------------------------------
    def pause(self) -> None:
        """SIGSTOP the bot and everything it started, so it uses no CPU off its move.

        The bot leads a process group of its own, so one signal to the group
        stops it and its children; every few pauses a walk of the whole tree
        also finds processes that left the group (setsid) and stops those one
        by one from then on.
        """
        if self.paused or self.pid is None:
            return
        self.paused = True
        _signal(-self.pid, signal.SIGSTOP)
        for pid in self._strays:
            _signal(pid, signal.SIGSTOP)
        if self._pauses % SWEEP_EVERY == 0:
            self._sweep()
        self._pauses += 1

    def resume(self) -> None:
        """SIGCONT what `pause` stopped."""
        if not self.paused:
            return
        self.paused = False
        for pid in self._strays:
            _signal(pid, signal.SIGCONT)
        _signal(-self.pid, signal.SIGCONT)

    def _sweep(self) -> None:
        """Stop every bot process, top down so none forks behind our back; note strays."""
        for pid in self._host.walk(signal.SIGSTOP):
            if pid not in self._strays and _group(pid) not in (self.pid, None):
                self._strays.append(pid)

    def kill(self) -> None:
        """Kill every process the bot started and collect its exit code; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        code = self._host.clear()
        if self.returncode is None:
            self.returncode = code
        self._drain_stderr()
        with contextlib.suppress(OSError):
            self._stdin.close()
        for fd in (self._out_fd, self._err_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


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


def _signal(pid: int, signo: int) -> None:
    """Signal a process (or, for a negative pid, a process group) that may be gone."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signo)


def _group(pid: int) -> int | None:
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
