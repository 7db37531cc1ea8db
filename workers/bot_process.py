"""A running bot: the pipes the runner talks to it through, pausing it, and its end.

The bot was forked by a sandbox's zygote (`workers.slots.Slot`, its `host`).
Off its move a bot is paused with SIGSTOP: with a control group
(`workers.cgroups`) every process of the sandbox's group is stopped, which no
setsid or re-fork escapes; without one, the bot's process group is stopped
and the sandbox's process tree swept every few pauses.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time
from typing import Protocol

from workers.cgroups import Group
from workers.contract import SeatStatus
from workers.limits import Limits
from workers.procfs import process_group, send_signal

# Exit codes of bots/sdk.py (kept in step with it; the SDK imports nothing of ours).
EXIT_LOAD, EXIT_MEMORY, EXIT_FILE_LIMIT, EXIT_PROTOCOL = 2, 3, 4, 5
PIPE_SAFE_BYTES = 32 << 10  # well inside Linux's default 64 KiB pipe buffer
RELIST_QUIET = 3  # listings that add nothing before a pause trusts the group's count
SWEEP_EVERY = 16  # pauses between full walks of a sandbox's process tree (~50 us each)


class BotFault(Exception):
    """A bot broke a rule: `status` is its match status, the message says why."""

    def __init__(self, status: SeatStatus, reason: str) -> None:
        super().__init__(reason)
        self.status = SeatStatus(status)
        self.reason = reason


class Host(Protocol):
    """What a bot process needs from the sandbox it was forked in (`workers.slots.Slot`)."""

    group: Group | None  # the sandbox's control group, if this machine has them

    def own_pids(self) -> set[int]: ...

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
        self._stopped: list[int] = []  # with a group: every thread of the bot, all stopped
        self._stopped_count: int | None = None  # the group's thread count when last listed
        self._pauses = 0
        self.paused = False
        self.last_cpu_ms: float | None = None  # CPU time of the last `ask`, from the group
        # The group's CPU counter when the bot last answered: one read a move, as the
        # counter cannot move while the bot is paused, and what it uses awake between
        # two of its own moves is its own thinking (the runner's time is not in it).
        self._cpu_mark: int | None = None  # None until its first move: start-up is not a move
        self._oom_kills = host.group.oom_kills() if host.group else 0
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
                raise BotFault(
                    SeatStatus.INVALID, f"a stdout line longer than {self.limits.line_kb} KiB"
                )
            remaining = deadline - time.monotonic()
            # Past the deadline, still look once: a reply already waiting counts.
            events = self._poll.poll(max(remaining, 0.0) * 1000)
            if not events and remaining <= 0:
                raise BotFault(SeatStatus.TIMEOUT, f"no reply within {timeout_s * 1000:.0f} ms")
            for fd, _ in events:
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
            raise BotFault(SeatStatus.INVALID, "wrote to stdout when it was not asked to")
        group = self._host.group
        if group and self._cpu_mark is None:
            self._cpu_mark = group.cpu_ns()
        began = time.perf_counter()
        # A message that fits the pipe is written while the bot is still stopped, so
        # SIGCONT wakes it once with its input waiting; a larger one would block.
        if self.paused and len(message) <= PIPE_SAFE_BYTES:
            self.send(message)
            self.resume()
        else:
            self.resume()
            self.send(message)
        self.last_cpu_ms = None
        line = self.read_line(timeout_s)
        elapsed = (time.perf_counter() - began) * 1000
        if group and self._cpu_mark is not None:  # the mark was taken above
            mark, self._cpu_mark = self._cpu_mark, group.cpu_ns()
            self.last_cpu_ms = (self._cpu_mark - mark) / 1e6
        return line, elapsed

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
            raise BotFault(
                SeatStatus.KILLED, f"wrote more than {self.limits.stderr_kb} KiB to stderr"
            )

    def stderr_tail(self) -> str:
        """The capped tail of what the bot wrote to stderr, for its owner."""
        return self._tail.decode("utf-8", "replace")

    def _exit_fault(self) -> BotFault:
        """Name the fault of a bot whose output ended: how did it exit?"""
        if self.returncode is None:
            self.returncode = self._host.wait_exit(1)
        code = self.returncode
        if code is None:
            return BotFault(SeatStatus.CRASH, "closed its output without exiting")
        self._drain_stderr()
        signo = -code if code < 0 else 0
        group = self._host.group
        if signo == signal.SIGKILL and group and group.oom_kills() > self._oom_kills:
            return BotFault(
                SeatStatus.KILLED, f"memory limit ({self.limits.memory_mb} MiB) reached"
            )
        if code == EXIT_MEMORY:
            return BotFault(
                SeatStatus.KILLED, f"memory limit ({self.limits.memory_mb} MiB) reached"
            )
        if code == EXIT_FILE_LIMIT or signo == signal.SIGXFSZ:
            return BotFault(
                SeatStatus.KILLED, f"file size limit ({self.limits.file_mb} MiB) reached"
            )
        if signo == signal.SIGXCPU:
            return BotFault(SeatStatus.KILLED, f"CPU time limit ({self.limits.cpu_s} s) reached")
        if code == EXIT_LOAD:
            return BotFault(SeatStatus.CRASH, "the bot could not be loaded (see stderr)")
        if signo:
            return BotFault(SeatStatus.CRASH, f"died from signal {signal.Signals(signo).name}")
        return BotFault(SeatStatus.CRASH, f"exited with code {code}")

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

        With a control group, every member but the sandbox's own processes is
        stopped, listed again until no new one appears (a stopped process cannot
        fork, and a fork in flight is restarted by the kernel after the stop).
        Without one, the bot leads a process group of its own, so one signal to
        the group stops it and its children; every few pauses a walk of the
        whole tree also finds processes that left the group (setsid).
        """
        if self.paused or self.pid is None:
            return
        self.paused = True
        group = self._host.group
        if group is not None:
            self._stop_group(group)
            return
        send_signal(-self.pid, signal.SIGSTOP)
        for pid in self._strays:
            send_signal(pid, signal.SIGSTOP)
        if self._pauses % SWEEP_EVERY == 0:
            self._sweep()
        self._pauses += 1

    def _stop_group(self, group: Group) -> None:
        """Stop every thread of the group but the sandbox's own.

        Fast path: signal the threads known from the last pause and check the
        group's thread count. A new thread or process raises the count; one
        that ended makes its signal fail (a zombie still counts). Either way the
        group is listed again, stopping what is new, until a listing adds
        nothing and the count matches it. A stopped thread cannot fork, and a
        fork in flight when the signal lands is restarted by the kernel.
        """
        stale = False
        for tid in self._stopped:
            try:
                os.kill(tid, signal.SIGSTOP)
            except ProcessLookupError:
                stale = True
        if not stale and group.task_count() == self._stopped_count:
            return
        keep = self._host.own_pids()
        stopped = set(self._stopped)
        quiet = 0  # listings in a row that found nothing new
        while quiet < RELIST_QUIET:
            listed = group.tasks()
            fresh = [tid for tid in listed if tid not in keep and tid not in stopped]
            for tid in fresh:
                send_signal(tid, signal.SIGSTOP)
            stopped.update(fresh)
            count = group.task_count()
            if not fresh and count == len(listed):
                break
            # A zombie whose (stopped) parent has not reaped it counts but is not
            # listed: after a few quiet listings, that is all the difference is.
            quiet = 0 if fresh else quiet + 1
        self._stopped = [tid for tid in listed if tid not in keep]
        self._stopped_count = count

    def resume(self) -> None:
        """SIGCONT what `pause` stopped."""
        if not self.paused or self.pid is None:  # (`pause` stops nothing without a pid)
            return
        self.paused = False
        if self._host.group is not None:
            for tid in self._stopped:
                send_signal(tid, signal.SIGCONT)
            return
        for pid in self._strays:
            send_signal(pid, signal.SIGCONT)
        send_signal(-self.pid, signal.SIGCONT)

    def _sweep(self) -> None:
        """Stop every bot process, top down so none forks behind our back; note strays."""
        for pid in self._host.walk(signal.SIGSTOP):
            if pid not in self._strays and process_group(pid) not in (self.pid, None):
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
