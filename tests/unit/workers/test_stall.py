"""The stall detector: a tick that wakes far later than asked marks a stall, normal
lateness does not. The rules run on a clock of the test's own (the watch takes one);
the thread, its cost and a real stop of this process run on the real clock."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import threading
import time

import pytest

from workers import HostStalled, Limits, SandboxUnavailable, retry_stalled
from workers.bot_process import BotFault
from workers.contract import SeatStatus
from workers.match import _ask, _Seat
from workers.stall import STALL_S, TICK_S, StallWatch


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def ticking(clock: Clock, *gaps: float) -> StallWatch:
    """A watch whose ticks came `gaps` seconds apart."""
    watch = StallWatch(clock)
    for gap in gaps:
        clock.now += gap
        watch.tick()
    return watch


def test_ticks_on_time_or_late_by_less_than_the_threshold_are_no_stall():
    clock = Clock()
    watch = ticking(clock, *[TICK_S] * 20, TICK_S + STALL_S - 0.01, TICK_S, TICK_S + 0.6)
    assert watch.stalled() is None
    watch.check()


def test_a_tick_that_wakes_later_than_the_threshold_is_a_stall_remembered_for_the_match():
    clock = Clock()
    watch = ticking(clock, TICK_S, TICK_S, 5.0, *[TICK_S] * 10)
    assert watch.stalled() == pytest.approx(5.0)
    with pytest.raises(HostStalled, match=r"stalled for 5\.0 s") as caught:
        watch.check()
    assert caught.value.gap_s == pytest.approx(5.0)


def test_the_longest_stall_is_the_one_reported():
    clock = Clock()
    watch = ticking(clock, 3.0, TICK_S, 7.5, TICK_S, 4.0)
    assert watch.stalled() == pytest.approx(7.5)


def test_a_stall_still_under_way_counts_before_the_ticker_wakes():
    """Back from a stop, the runner may ask before the ticker thread has run again."""
    clock = Clock()
    watch = ticking(clock, TICK_S, TICK_S)
    clock.now += TICK_S + STALL_S - 0.01
    assert watch.stalled() is None
    clock.now += 0.02
    assert watch.stalled() == pytest.approx(TICK_S + STALL_S + 0.01)


def test_a_watch_begins_when_entered_however_long_ago_it_was_made():
    clock = Clock()
    watch = StallWatch(clock, tick_s=0.01)
    clock.now += 60
    with watch:
        assert watch.stalled() is None


def test_a_stall_is_an_infrastructure_failure_not_a_bots_and_crosses_processes():
    assert issubclass(HostStalled, SandboxUnavailable)
    again = pickle.loads(pickle.dumps(HostStalled(3.25)))  # as `ladder play --jobs` sends it
    assert isinstance(again, HostStalled)
    assert (again.gap_s, str(again)) == (3.25, str(HostStalled(3.25)))


class Bot:
    """A sandboxed bot as `_ask` sees it: it takes `think_s` of the test's clock, the
    watch ticking on time all along unless the host stalls for `stall_s` meanwhile."""

    def __init__(self, clock: Clock, watch: StallWatch, think_s: float, stall_s: float = 0):
        self.clock, self.watch, self.think_s, self.stall_s = clock, watch, think_s, stall_s

    def ask(self, message: bytes, timeout_s: float) -> tuple[bytes, float]:
        waited = min(self.think_s + self.stall_s, timeout_s)
        for _ in range(int((waited - self.stall_s) / TICK_S)):
            self.clock.now += TICK_S
            self.watch.tick()
        self.clock.now += self.stall_s  # nothing ran: no tick (the ticker wakes after)
        if self.think_s + self.stall_s > timeout_s:
            raise BotFault(SeatStatus.TIMEOUT, f"no reply within {timeout_s} s")
        return b'{"type":"action","action":{"a":1}}', 1000 * waited


LEGAL = [{"a": 1}]
LIMITS = Limits(move_ms=1000, bank_ms=2000)


def asked(think_s: float, stall_s: float = 0, bank_ms: float = 2000) -> tuple[_Seat, object]:
    """Ask a seat with `bank_ms` left once; the seat and what `_ask` gave (or raised)."""
    clock = Clock()
    watch = StallWatch(clock)
    seat = _Seat("bot")
    seat.bank_ms = bank_ms
    seat.bot = Bot(clock, watch, think_s, stall_s)  # type: ignore[assignment]
    try:
        return seat, _ask(seat, {}, LEGAL, LIMITS, watch)
    except (BotFault, HostStalled) as exc:
        return seat, exc


@pytest.mark.parametrize(
    ("think_s", "stall_s", "bank_ms", "expected"),
    [
        (0.5, 0, 2000, "ok"),  # on time
        (2.5, 0, 2000, "ok"),  # slow: 1.5 s from the bank
        (4.0, 0, 2000, "timeout"),  # past move time + bank: the bot's fault
        (10.0, 0, 2000, "timeout"),  # a bot that hangs
        (0.5, 5.0, 2000, "stalled"),  # on time, but the host froze: past its deadline
        (0.5, 5.0, 200_000, "stalled"),  # within its deadline even so: no bank spent
        (4.0, 5.0, 2000, "stalled"),  # maybe slow, but the host froze: cannot tell, no fault
        (0.5, STALL_S - 0.1, 2000, "ok"),  # a hiccup under the threshold: from the bank
    ],
)
def test_a_bot_is_charged_a_timeout_only_when_the_host_ran_all_along(
    think_s, stall_s, bank_ms, expected
):
    seat, got = asked(think_s, stall_s, bank_ms)
    if expected == "ok":
        assert got == ({"a": 1}, pytest.approx(1000 * (think_s + stall_s)))
    elif expected == "timeout":
        assert isinstance(got, BotFault) and got.status == SeatStatus.TIMEOUT
    else:
        assert isinstance(got, HostStalled)
        assert (seat.used_ms, seat.bank_ms) == (0, bank_ms)  # nothing charged


def test_a_stall_is_played_again_and_given_up_after_its_tries():
    calls = []

    def stalls_then_plays(times: int):
        def play() -> str:
            calls.append(1)
            if len(calls) <= times:
                raise HostStalled(3.0)
            return "played"

        return play

    assert retry_stalled(stalls_then_plays(2), tries=3) == "played"
    assert len(calls) == 3
    calls.clear()
    with pytest.raises(HostStalled):
        retry_stalled(stalls_then_plays(3), tries=3)
    assert len(calls) == 3


def test_retry_stalled_lets_every_other_error_through_at_once():
    calls = []

    def broken() -> None:
        calls.append(1)
        raise SandboxUnavailable("no bubblewrap")

    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        retry_stalled(broken)
    assert len(calls) == 1


def test_the_thread_ticks_costs_next_to_no_cpu_and_ends_with_the_watch():
    before = time.process_time()
    with StallWatch(tick_s=0.02, stall_s=0.5) as watch:
        time.sleep(0.6)  # 30 ticks; none is late by half a second on any machine
        assert watch.stalled() is None
    cpu_s = time.process_time() - before
    assert cpu_s < 0.05
    assert not [t for t in threading.enumerate() if t.name == "stall-watch"]


def test_a_real_stop_of_this_process_is_seen():
    """SIGSTOP ourselves; a child sends SIGCONT 0.6 s later: a stall of the whole process."""
    with StallWatch(tick_s=0.02, stall_s=0.3) as watch:
        waker = subprocess.Popen(["sh", "-c", f"sleep 0.6; kill -CONT {os.getpid()}"])
        os.kill(os.getpid(), signal.SIGSTOP)
        waker.wait()
        with pytest.raises(HostStalled):
            watch.check()
