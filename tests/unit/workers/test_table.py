"""Live tables (workers.table): people asked through a callable, bots in the real sandbox
(or, on a machine without bwrap, in the unsafe mode), whole games of every title."""

from __future__ import annotations

import os
import random
import shutil
import threading
import time
from pathlib import Path

import pytest

import engine
from workers.contract import SeatStatus
from workers.limits import Limits
from workers.match import run_match
from workers.pool import pool_pids
from workers.procfs import children
from workers.stall import HostStalled, StallWatch
from workers.table import Move, OutOfTime, Resign, run_table

UNSAFE = shutil.which("bwrap") is None  # the sandbox where there is one


def bot_processes() -> list[int]:
    """Live bot processes under this test process (not the sandboxes' bwrap and zygote)."""
    keep, found, todo = pool_pids(), [], [os.getpid()]
    while todo:
        kids = children(todo.pop())
        todo += kids
        found += [pid for pid in kids if pid not in keep and state(pid) not in (None, "Z")]
    # A bwrap's own child (pid 1 of the sandbox) is no bot: it is not a python.
    return [pid for pid in found if b"python" in cmdline(pid)]


def state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


class Person:
    """A person who plays a random legal move; records what they were asked."""

    def __init__(self, seed: int = 0, think_s: float = 0.0, thinks: int = 10**9) -> None:
        self.rng = random.Random(seed)
        self.think_s = think_s
        self.thinks = thinks  # how many of their moves take think_s
        self.asked: list[tuple[int, int]] = []  # (seat, time_left_ms)

    def __call__(self, seat: int, view: dict, legal: list[dict], time_left_ms: int):
        self.asked.append((seat, time_left_ms))
        if self.think_s and len(self.asked) <= self.thinks:
            time.sleep(self.think_s)
        return Move(self.rng.choice(legal))


class Steps(list):
    def __call__(self, step: int, seat: int, action: dict, by: str) -> None:
        self.append((step, seat, action, by))


def check_outcome(out, steps: Steps, humans: set[int]) -> None:
    """The outcome holds together, replays to its own result, and on_step saw every action
    in order, each said to be the human's, a bot's or the fallback's as it was."""
    record = out.replay
    assert engine.replay(record).result()["scores"] == list(out.scores)
    assert record["result"]["scores"] == list(out.scores)
    assert [s[0] for s in steps] == list(range(len(record["actions"])))
    assert [[seat, action] for _, seat, action, _ in steps] == record["actions"]
    for (step, seat, _, by), ms in zip(steps, record["decision_ms"], strict=True):
        faulted = out.statuses[seat] != SeatStatus.OK
        if by == "fallback":
            assert ms is None and faulted, step
        else:
            assert by == ("human" if seat in humans else "bot"), step
            assert ms is not None
    for seat in humans:
        assert all(cpu is None for (_, s, _, _), cpu in
                   zip(steps, record["decision_cpu_ms"], strict=True) if s == seat)  # fmt: skip


@pytest.mark.parametrize("game", engine.game_names())
def test_a_whole_game_of_each_title_with_a_person_ends_and_replays(game):
    person, steps = Person(seed=7), Steps()
    spec = engine.get_game(game)
    players = max(spec.min_players, 3)
    bots = ["random", f"{game}/random", "greedy", "random"][: players - 1]
    out = run_table(
        game, [*bots[:1], None, *bots[1:]], 11, person, steps,
        labels={1: "alice (human)"}, unsafe=UNSAFE,
    )  # fmt: skip
    assert out.statuses == (SeatStatus.OK,) * players
    assert out.replay["seats"][1] == "alice (human)"
    assert out.replay["bot_infos"][0]["seats"][1] == {
        "name": "alice (human)", "owner": "human", "version": 0,
    }  # fmt: skip
    assert out.replay["seats"][0] == f"{game}/random"
    check_outcome(out, steps, {1})
    assert {seat for seat, _ in person.asked} == {1}
    assert len(person.asked) == sum(1 for s in steps if s[1] == 1)
    assert all(left == 300_000 for _, left in person.asked[:1])


def test_a_person_who_resigns_is_played_out_by_the_fallback():
    calls = []

    def resign_on_third(seat, view, legal, left):
        calls.append(seat)
        return Resign() if len(calls) == 3 else Move(legal[0])

    steps = Steps()
    out = run_table("meuterer", [None, "random", "random"], 4, resign_on_third, steps,
                    unsafe=UNSAFE)  # fmt: skip
    assert len(calls) == 3  # never asked again
    assert out.statuses[0] == SeatStatus.TIMEOUT
    assert out.errors[0] == "resigned"
    assert out.statuses[1:] == (SeatStatus.OK, SeatStatus.OK)
    assert out.ranks[0] == 3  # below every seat still playing
    mine = [by for _, seat, _, by in steps if seat == 0]
    assert mine[:2] == ["human", "human"] and set(mine[2:]) == {"fallback"} and mine[2:]
    check_outcome(out, steps, {0})
    assert out.replay["seats"][0] == "seat 0 (human)"


def test_a_move_after_the_move_clock_ran_out_is_out_of_time():
    person, steps = Person(think_s=0.08), Steps()
    out = run_table("meuterer", ["random", None, "random"], 5, person, steps,
                    human_move_ms=40, unsafe=UNSAFE)  # fmt: skip
    assert (out.statuses[1], out.errors[1]) == (SeatStatus.TIMEOUT, "out of time")
    assert len(person.asked) == 1 and person.asked[0][1] == 40
    assert next(by for _, seat, _, by in steps if seat == 1) == "fallback"
    check_outcome(out, steps, {1})


def test_out_of_time_said_by_the_caller_and_the_match_clock_both_end_a_seat():
    out = run_table("meuterer", [None, "random", "random"], 5,
                    lambda *args: OutOfTime(), unsafe=UNSAFE)  # fmt: skip
    assert (out.statuses[0], out.errors[0]) == (SeatStatus.TIMEOUT, "out of time")
    # The match clock: 300 ms of thinking in all, 200 ms a move, 120 ms taken each time.
    person = Person(think_s=0.12)
    out = run_table("meuterer", [None, "random", "random"], 5, person,
                    human_move_ms=200, human_match_ms=300, unsafe=UNSAFE)  # fmt: skip
    assert (out.statuses[0], out.errors[0]) == (SeatStatus.TIMEOUT, "out of time")
    lefts = [left for _, left in person.asked]
    assert len(lefts) == 3 and lefts[0] == 200  # a move's time, then what the match had left
    assert 150 < lefts[1] < 180 and lefts[2] <= 60


def test_two_people_at_one_table():
    person, steps = Person(seed=3), Steps()
    out = run_table("manila", [None, "greedy", None, "random"], 8, person, steps,
                    labels={0: "alice (human)", 2: "bob (human)"}, unsafe=UNSAFE)  # fmt: skip
    assert out.statuses == (SeatStatus.OK,) * 4
    assert out.replay["seats"] == ["alice (human)", "manila/greedy", "bob (human)", "manila/random"]
    assert {seat for seat, _ in person.asked} == {0, 2}
    check_outcome(out, steps, {0, 2})


def test_a_person_thinking_longer_than_a_bots_bank_costs_the_bot_nothing():
    person, steps = Person(think_s=0.25, thinks=10), Steps()
    limits = Limits(move_ms=200, bank_ms=100, match_ms=2000)
    started = time.monotonic()
    out = run_table("meuterer", [None, "random", "random"], 2, person, steps,
                    limits=limits, unsafe=UNSAFE)  # fmt: skip
    waited = time.monotonic() - started
    assert waited > 2.5  # longer than both bots' whole-match allowance, and then some
    assert len(person.asked) > 10
    assert out.statuses == (SeatStatus.OK,) * 3
    bot_ms = [ms for (_, seat, _, _), ms in zip(steps, out.replay["decision_ms"], strict=True)
              if seat != 0]  # fmt: skip
    assert max(bot_ms) < 200


def test_every_bot_is_paused_while_a_person_decides():
    seen: list[list[str | None]] = []

    def look(seat, view, legal, left):
        if len(seen) < 3:
            deadline = time.monotonic() + 2  # SIGSTOP lands within microseconds
            while True:
                states = [state(pid) for pid in bot_processes()]
                if all(s == "T" for s in states) or time.monotonic() > deadline:
                    break
                time.sleep(0.005)
            seen.append(states)
        return Move(legal[0])

    run_table("meuterer", [None, "random", "random"], 6, look, unsafe=UNSAFE)
    assert len(seen) == 3
    assert all(states == ["T", "T"] for states in seen), seen


def test_an_exception_from_on_step_ends_the_table_and_every_bot():
    alive: list[int] = []

    def fail_at_ten(step, seat, action, by):
        if step == 10:
            alive.extend(bot_processes())
            raise RuntimeError("the database is gone")

    with pytest.raises(RuntimeError, match="the database is gone"):
        run_table("meuterer", [None, "random", "random"], 1, Person(), fail_at_ten, unsafe=UNSAFE)
    assert len(alive) == 2
    assert [pid for pid in alive if state(pid) not in (None, "Z")] == []
    assert bot_processes() == []


def test_a_move_not_among_the_legal_ones_is_the_callers_bug():
    with pytest.raises(ValueError, match="not one of the legal actions"):
        run_table("meuterer", [None, "random", "random"], 1,
                  lambda *args: Move({"type": "no such move"}), unsafe=UNSAFE)  # fmt: skip
    assert bot_processes() == []
    with pytest.raises(ValueError, match="labels name seats"):
        run_table("meuterer", [None, "random", "random"], 1, Person(), labels={1: "x"})


SLOW_BOT = "import time\n\ndef act(view, legal):\n    time.sleep(0.6)\n    return legal[0]\n"


class JumpyClock:
    """A monotonic clock the test moves on by hand: a host stall, as the watch sees one."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.monotonic() + self.offset


def test_a_stall_while_a_person_decides_is_forgiven_but_not_one_while_a_bot_thinks(
    monkeypatch, tmp_path
):
    import workers.match

    clock = JumpyClock()
    monkeypatch.setattr(workers.match, "StallWatch", lambda: StallWatch(clock=clock))

    stalls = []

    def stall_while_asked(seat, view, legal, left):
        if len(stalls) < 2:
            clock.offset += 10  # the host stood still for 10 s while the person thought
            time.sleep(0.3)  # and the ticker has seen it
            stalls.append(seat)
        return Move(legal[0])

    out = run_table("meuterer", [None, "random", "random"], 3, stall_while_asked, unsafe=UNSAFE)
    assert out.statuses == (SeatStatus.OK,) * 3 and len(stalls) == 2

    # A bot that thinks 0.6 s; the host stalls 0.2 s after the person answered.
    slow = tmp_path / "slow.py"
    slow.write_text(SLOW_BOT)

    def stall_soon_after(seat, view, legal, left):
        def jump() -> None:
            time.sleep(0.2)
            clock.offset += 10

        threading.Thread(target=jump, daemon=True).start()
        return Move(legal[0])

    with pytest.raises(HostStalled):
        run_table("meuterer", [None, str(slow), str(slow)], 3, stall_soon_after,
                  limits=Limits(move_ms=5000), unsafe=UNSAFE)  # fmt: skip
    assert bot_processes() == []


def test_run_match_is_unchanged_by_the_seating_it_shares():
    out = run_match("meuterer", ["meuterer/random"] * 3, seed=9, unsafe=UNSAFE)
    record = out.replay
    assert out.statuses == (SeatStatus.OK,) * 3
    assert engine.replay(record).result()["scores"] == list(out.scores)
    assert record["seats"] == ["meuterer/random"] * 3
    assert all(ms is not None for ms in record["decision_ms"])
