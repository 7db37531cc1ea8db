"""Sandbox slots live on between matches: nothing of one bot may reach the next."""

from __future__ import annotations

import json
import os
import signal
import uuid
from pathlib import Path

import pytest

from tests.integration.conftest import live_processes_with, needs_bwrap, sandbox_processes
from workers import protocol
from workers.limits import Limits
from workers.match import run_match
from workers.pool import _pools, close_pools, pool, pool_pids
from workers.procfs import alive
from workers.sandbox import runtime
from workers.staging import resolve

pytestmark = [pytest.mark.integration, needs_bwrap]

START = protocol.start("test", 0, 2, {}, Limits().wire())


def start_in(slot, path: str) -> str:
    """Run a bot's setup in `slot`, end it, and return its stderr."""
    slot.stage(resolve(path))
    bot = slot.spawn(Limits())
    try:
        bot.send(START)
        protocol.ready(bot.read_line(5))
    finally:
        bot.kill()
    return bot.stderr_tail()


def lines_with(text: str, prefix: str) -> list[str]:
    return [line.removeprefix(prefix) for line in text.splitlines() if line.startswith(prefix)]


def test_the_next_bot_in_a_slot_finds_nothing_of_the_last_one(hostile):
    marker = f"tw-traces-{uuid.uuid4().hex}"
    slots = pool(runtime())
    with slots.lease(1) as [slot]:
        zygote = slot.zygote
        first = start_in(slot, hostile("leave_traces", MARKER=marker))
    assert live_processes_with(marker) == [], "its detached process died with the match"
    with slots.lease(1) as [again]:
        assert again.zygote == zygote, "the same sandbox serves the next match"
        second = start_in(again, hostile("look_around"))
        third = start_in(again, hostile("look_around"))
    assert lines_with(second, "TMP ") == ["[]"], second
    assert lines_with(second, "PIDS ") == ["[]"], second
    assert lines_with(second, "SIGINT ") == ["default_int_handler"], "as in any Python process"
    [sockets] = lines_with(second, "SOCKETS ")
    assert sockets.startswith("0 of "), "the zygote's control socket never reaches a bot"
    randoms = lines_with(first, "RANDOM ") + lines_with(second, "RANDOM ")
    randoms += lines_with(third, "RANDOM ")
    assert len(set(randoms)) == 3, "every forked bot draws fresh random numbers"


def test_a_bot_cannot_kill_stop_trace_or_read_its_zygote(hostile):
    slots = pool(runtime())
    with slots.lease(1) as [slot]:
        zygote = slot.zygote
        stderr = start_in(slot, hostile("attack_zygote"))
        assert alive(zygote)
        state = Path(f"/proc/{zygote}/stat").read_text().rsplit(")", 1)[1].split()[0]
        assert state in "RS", f"the zygote is neither killed nor stopped (state {state})"
        for name in ("mem", "environ", "maps", "fd", "ptrace"):
            assert any(line.startswith(f"DENIED {name}") for line in stderr.splitlines()), stderr
        assert "READ" not in stderr and "TRACED" not in stderr
        # ...and it still serves the next bot.
        assert lines_with(start_in(slot, hostile("look_around")), "TMP ") == ["[]"]
        assert slot.zygote == zygote


def test_a_sandbox_that_died_is_replaced_at_the_next_start(hostile, game):
    import engine

    slots = pool(runtime())
    with slots.lease(1) as [slot]:
        dead = slot.zygote
        os.kill(dead, signal.SIGKILL)
        assert lines_with(start_in(slot, hostile("look_around")), "TMP ") == ["[]"]
        assert slot.zygote != dead
    for pid in pool_pids():  # every sandbox gone at once: the next match still plays
        os.kill(pid, signal.SIGKILL)
    players = engine.get_game(game).min_players
    out = run_match(game, [f"{game}/random"] * players, seed=8).to_dict()
    assert out["statuses"] == ["ok"] * players
    assert sandbox_processes() == []


def test_a_forked_process_gets_sandboxes_of_its_own(game):
    import engine

    players = engine.get_game(game).min_players
    run_match(game, [f"{game}/random"] * players, seed=9)
    parents = pool_pids()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked child
        code = 1
        try:
            out = run_match(game, [f"{game}/random"] * players, seed=9).to_dict()
            mine = pool_pids()
            code = 0 if out["statuses"] == ["ok"] * players and not mine & parents else 3
            close_pools()
        finally:
            os.write(write, bytes([code]))
            os._exit(code)
    os.close(write)
    verdict = os.read(read, 1)
    os.close(read)
    os.waitpid(child, 0)
    assert verdict == b"\x00"
    assert pool_pids() == parents
    assert [pid for pid in parents if not alive(pid)] == []


def test_closing_the_pools_ends_every_sandbox_process(game):
    import engine

    players = engine.get_game(game).min_players
    run_match(game, [f"{game}/random"] * players, seed=10)
    before = pool_pids()
    assert before
    roots = [found.root for found in _pools.values()]
    assert roots and all(root.exists() for root in roots)
    close_pools()
    assert pool_pids() == set()
    assert not any(alive(pid) for pid in before)
    assert sandbox_processes() == []
    assert not any(root.exists() for root in roots)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs or more")
def test_a_match_and_its_bots_share_one_cpu(hostile, game):
    import engine

    players = engine.get_game(game).min_players
    allowed = os.sched_getaffinity(0)
    out = run_match(
        game, [hostile("look_around")] + [f"{game}/random"] * (players - 1), seed=4
    ).to_dict()
    assert out["statuses"] == ["ok"] * players
    [cpus] = lines_with(out["stderr"][0], "CPUS ")
    assert len(json.loads(cpus)) == 1 and set(json.loads(cpus)) <= allowed
    assert os.sched_getaffinity(0) == allowed, "the runner is unpinned after the match"


def test_a_sandbox_that_dies_under_a_running_bot_is_marked_broken_and_replaced(hostile):
    slots = pool(runtime())
    with slots.lease(1) as [slot]:
        slot.stage(resolve(hostile("look_around")))
        bot = slot.spawn(Limits())
        bot.send(START)
        protocol.ready(bot.read_line(5))
        dead = slot.zygote
        os.kill(dead, signal.SIGKILL)  # takes the whole sandbox, the bot with it
        bot.kill()
        assert slot.broken
        assert lines_with(start_in(slot, hostile("look_around")), "TMP ") == ["[]"]
        assert slot.zygote != dead and not slot.broken
