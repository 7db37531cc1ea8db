"""Telling a stalled host from a slow bot: a ticker on the runner's own clock.

Every deadline a bot has (init_ms, move_ms plus its bank, match_ms) is measured
on the runner's monotonic clock. When the whole host stops (a paused VM, a
machine deep in swap, a container frozen by SIGSTOP or the cgroup freezer) that
clock runs on while nothing runs, and a bot that did nothing wrong overruns its
move; a monotonic clock that jumps (a VM migrated or resumed) does the same.
Such a match says nothing about its bots, so it is not recorded: the runner
raises `HostStalled`, an infrastructure failure, and the match is played again:
the ladder puts it back in the queue (a SandboxUnavailable, so an attempt like
any other failure of the infrastructure, up to MAX_ATTEMPTS); `ladder play`,
`ladder tournament run` and `ladder replay` play it again at once with the same
seed (`retry_stalled`, up to STALL_TRIES times), so a laptop that sleeps
through a run costs no bot a fault either.

How a stall is seen: `StallWatch` runs a thread that wakes every TICK_S and
notes the clock. A wake-up more than STALL_S later than asked means nothing of
this process ran in between: the host stalled. The runner asks `check()` after
each window in which a bot's clock ran, before anything is charged, and once
more before the match's outcome is made; a stall seen anywhere in the match
raises. `check()` also counts a stall still under way (the ticker has not woken
yet since the host came back), so it does not matter which thread runs first.

A live table (`workers.table`) also waits on people, for minutes: the ticker runs
on meanwhile, so a long wait is no stall; a real stall during it stopped no bot's
clock (every bot is paused), so `forget()` drops it once the person has answered.
A stall while a bot is asked is seen by the `check()` after that bot's answer, as
in any match.

Why not the bot's CPU time: a bot that sleeps or blocks (its fault) and a bot
frozen with its host (not its fault) both use no CPU, so CPU time cannot tell
them apart; and not every host has the control group that measures it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import TypeVar

from workers.sandbox import SandboxUnavailable

# Four wake-ups a second: a few microseconds of CPU each, nothing measurable.
TICK_S = 0.25
# How much later than asked a tick may wake before it counts as a stall. Measured
# (2 CPUs, 2026-12): a few ms on an idle machine; 0.11 s with 16 busy processes on
# the runner's CPU; 0.63 s with 64 busy processes there, the unit tests running
# beside them and the runner's main thread holding the GIL in a busy loop. 2 s is
# three times the worst seen under load no worker host should ever carry. A shorter
# stall is not told from load: it is spent like a slow move (from the bot's bank), so
# it times out only a bot whose move time and bank left were under 2 s anyway.
STALL_S = 2.0
# How often a local run plays a match again after a stall before it gives up (as the
# ladder's MAX_ATTEMPTS does): a host that stalls every time has a problem to report.
STALL_TRIES = 3

log = logging.getLogger(__name__)
T = TypeVar("T")


class HostStalled(SandboxUnavailable):
    """The runner's host stalled during a match: no bot is charged, play it again."""

    def __init__(self, gap_s: float) -> None:
        super().__init__(
            f"the host stalled for {gap_s:.1f} s during the match (a paused VM, a frozen"
            " container, heavy swapping or a clock jump): not the bots' fault, the match"
            " was not recorded; play it again"
        )
        self.gap_s = gap_s

    def __reduce__(self) -> tuple[type[HostStalled], tuple[float]]:
        # Rebuilt from its gap, not its message: `ladder play --jobs` pickles it across.
        return (type(self), (self.gap_s,))


class StallWatch:
    """Notices when this process stops running for longer than STALL_S.

    Use as a context manager around one match (the thread runs inside it); or,
    with a clock of one's own, call `tick` by hand (the unit tests do).
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        tick_s: float = TICK_S,
        stall_s: float = STALL_S,
    ) -> None:
        self._clock = clock
        self._tick_s = tick_s
        self._late_s = tick_s + stall_s  # the longest gap between two ticks that is no stall
        self._lock = threading.Lock()
        self._last = clock()
        self._worst: float | None = None  # the longest stall seen, in seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self) -> None:
        """Note the clock now; a gap since the last tick longer than allowed is a stall."""
        now = self._clock()
        with self._lock:
            gap = now - self._last
            if gap > self._late_s:
                self._worst = max(gap, self._worst or 0.0)
            self._last = now

    def stalled(self) -> float | None:
        """The longest stall seen so far, or the one under way now; None if none."""
        now = self._clock()
        with self._lock:
            ongoing = now - self._last
            if ongoing > self._late_s:
                return max(ongoing, self._worst or 0.0)
            return self._worst

    def check(self) -> None:
        """Raise HostStalled if the host has stalled since the watch began."""
        gap = self.stalled()
        if gap is not None:
            raise HostStalled(gap)

    def forget(self) -> float | None:
        """Drop every stall seen so far (returned, None if none), and start afresh now: for
        a window in which no bot's clock ran (a live table waiting on a person), so a stall
        in it charges nobody and raises nothing. A stall seen later still counts."""
        gap = self.stalled()
        with self._lock:
            self._worst = None
            self._last = self._clock()
        if gap is not None:
            log.warning("the host stalled for %.1f s while no bot's clock ran: ignored", gap)
        return gap

    def _run(self) -> None:
        while not self._stop.wait(self._tick_s):
            self.tick()

    def __enter__(self) -> StallWatch:
        with self._lock:
            self._last = self._clock()  # the watch begins now, however old it is
        self._thread = threading.Thread(target=self._run, name="stall-watch", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None


def retry_stalled(play: Callable[[], T], tries: int = STALL_TRIES) -> T:
    """`play()`, called again when it raises HostStalled (the same seed makes it the same
    match); the last HostStalled after `tries` stalls in a row."""
    for attempt in range(1, tries):
        try:
            return play()
        except HostStalled as exc:
            log.warning("%s (attempt %d of %d)", exc, attempt, tries)
    return play()
