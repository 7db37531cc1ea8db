"""A stalled host is not a slow bot (issue 30): a real match, real bots, the real sandbox.

The runner plays in a child process, which the test freezes with SIGSTOP while a
bot is on move, for longer than the bot's move time and bank and longer than the
stall threshold, then lets go: the match raises HostStalled and has no outcome, so
no seat is charged. The converse: a bot that really is slow is still a timeout.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import engine
from tests.integration.conftest import needs_bwrap
from workers import Limits, run_match
from workers.procfs import descendants
from workers.stall import STALL_S, TICK_S

pytestmark = [pytest.mark.integration, needs_bwrap]

LIMITS = {"move_ms": 500, "bank_ms": 200}
FROZEN_S = TICK_S + STALL_S + 1.0  # past the threshold, and far past move_ms + bank_ms
# Thinks well inside its move time: it never deserves a timeout.
DOZER = "import time\ndef act(view, legal):\n    time.sleep(0.25)\n    return legal[0]\n"
RUNNER = """
import json, sys
from workers import HostStalled, Limits, run_match
game, limits, bots = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]
try:
    out = run_match(game, bots, seed=3, limits=Limits(**limits))
except HostStalled as exc:
    print(json.dumps({"stalled": str(exc)}))
else:
    print(json.dumps({"statuses": list(out.statuses), "errors": list(out.errors)}))
"""


def state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return None


def wait_for_a_move(runner: subprocess.Popen, timeout_s: float = 30) -> None:
    """Until a bot the runner had paused (state T) runs again: it is on move now."""
    paused: set[int] = set()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and runner.poll() is None:
        for pid in descendants(runner.pid):
            now = state(pid)
            if now == "T":
                paused.add(pid)
            elif pid in paused and now in ("S", "R"):
                return
        time.sleep(0.005)
    raise AssertionError("no bot was ever asked to move")


def test_a_runner_frozen_mid_move_raises_host_stalled_and_charges_no_seat(game, tmp_path):
    dozer = tmp_path / "bot.py"
    dozer.write_text(DOZER)
    players = engine.get_game(game).min_players
    command = [sys.executable, "-c", RUNNER, game, json.dumps(LIMITS), *[str(dozer)] * players]
    runner = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        wait_for_a_move(runner)
        os.kill(runner.pid, signal.SIGSTOP)  # the bot sleeps on; its runner (the host) stalls
        time.sleep(FROZEN_S)
        os.kill(runner.pid, signal.SIGCONT)
        out, _ = runner.communicate(timeout=60)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
    result = json.loads(out)
    assert "statuses" not in result, f"the match was recorded: {result}"
    assert "the host stalled" in result["stalled"]


@pytest.mark.parametrize("think", ["time.sleep(5)", "while True:\n        pass"])
def test_a_bot_that_really_overruns_its_move_is_still_a_timeout(game, tmp_path, think):
    slow = tmp_path / "bot.py"
    slow.write_text(f"import time\ndef act(view, legal):\n    {think}\n    return legal[0]\n")
    players = engine.get_game(game).min_players
    bots = [str(slow)] + [f"{game}/random"] * (players - 1)
    out = run_match(game, bots, seed=3, limits=Limits(move_ms=200, bank_ms=100))
    assert out.statuses[0] == "timeout"
    assert out.errors[0] == "no move within 300 ms (move time + bank)"
    assert list(out.statuses[1:]) == ["ok"] * (players - 1)
