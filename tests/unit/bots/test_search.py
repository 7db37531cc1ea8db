"""House search bots (`<game>/search`): legal to the end, inside their clock, repeatable.

Each bot is loaded fresh and driven in-process through real games by the
engine, as the runner would drive it: views and legal lists cross a JSON round
trip, and every answer must be one of the legal actions with the same JSON
types. Win rates against `greedy` are figures, not tests: `bench/search_bots.py`.
"""

from __future__ import annotations

import importlib.util
import json
import time

import pytest

import engine
from engine.core import find_legal
from workers.staging import house_bots, house_file

GAMES = engine.game_names()
LIMITS = {"move_ms": 1000, "bank_ms": 10000, "init_ms": 5000}
# Options away from the defaults where a game has them: the bot must pass them on.
OPTIONS = {"manila": {"pirate_variant": True}}


def load(game: str, name: str, tag: str, **knobs):
    """A fresh copy of a house bot module (bots keep state in module globals)."""
    path = house_file(game, name)
    spec = importlib.util.spec_from_file_location(f"house_{game}_{name}_{tag}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for knob, value in knobs.items():
        assert hasattr(module, knob), f"{game}/{name} has no {knob}"
        setattr(module, knob, value)
    return module


def play(game, players, seed, *, search_seat=0, options=None, limits=LIMITS, stop_after=None,
         **knobs):  # fmt: skip
    """One game of `game/search` in `search_seat` against `greedy` in the others.

    Returns the state (over unless `stop_after` search decisions ended it early)
    and, per search decision, (legal count, wall seconds, CPU seconds).
    """
    bots = []
    for seat in range(players):
        if seat == search_seat:
            bot = load(game, "search", f"{seed}_{seat}", **knobs)
        else:
            bot = load(game, "greedy", f"{seed}_{seat}")
        if hasattr(bot, "setup"):
            bot.setup({"game": game, "seat": seat, "players": players, "options": options or {},
                       "limits": limits, "seed": seed * 10 + seat, "seats": None})  # fmt: skip
        bots.append(bot)
    state = engine.get_game(game).new_game(players, seed=seed, options=options)
    timings = []
    while not state.is_over():
        seat = state.current_player()
        legal = state.legal_actions()
        # What the bot sees has crossed the wire: JSON in, JSON out.
        view, wire_legal = json.loads(json.dumps([state.view(seat), legal]))
        wall, cpu = time.perf_counter(), time.process_time()
        action = bots[seat].act(view, wire_legal)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        action = json.loads(json.dumps(action))
        assert find_legal(legal, action) is not None, f"seat {seat} chose {action!r}"
        state.apply(action)
        if seat == search_seat:
            timings.append((len(legal), wall, cpu))
            if stop_after is not None and len(timings) >= stop_after:
                break
    return state, timings


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_a_search_house_bot(game):
    assert f"{game}/search" in house_bots()
    assert house_file(game, "search").name == "search.py"


@pytest.mark.parametrize("game", GAMES)
def test_search_bot_plays_legal_moves_to_the_end(game):
    spec = engine.get_game(game)
    for players in range(spec.min_players, spec.max_players + 1):
        seat = players - 1  # a different seat for every table size
        options = OPTIONS.get(game) if players == spec.max_players else None
        state, timings = play(game, players, seed=players, search_seat=seat, options=options,
                              MAX_WORLDS=1)  # fmt: skip
        assert state.is_over()
        assert len(state.result()["ranks"]) == players
        assert any(count > 1 for count, _, _ in timings)  # it had choices to make


@pytest.mark.parametrize("game", GAMES)
def test_search_bot_keeps_inside_its_time_budget(game):
    # move_ms=100 leaves it a quarter: 25 ms a move, under its own 150 ms cap.
    limits = {**LIMITS, "move_ms": 100}
    budget = 0.025
    _, timings = play(game, 3, seed=5, limits=limits, stop_after=30)
    searched = [(wall, cpu) for count, wall, cpu in timings if count > 1]
    assert searched
    # It stops at the first rollout past its deadline: CPU time never exceeds the
    # budget by more than one rollout (wall time would count other processes too).
    assert max(cpu for _, cpu in searched) < budget + 0.020
    # And it does think: a decision with a real choice runs to its deadline.
    assert max(wall for wall, _ in searched) >= budget


@pytest.mark.parametrize("game", GAMES)
def test_search_bot_moves_quickly_once_its_match_allowance_is_spent(game):
    _, timings = play(game, 3, seed=6, stop_after=15, MATCH_S=0.0, QUICK_S=0.005)
    assert max(cpu for _, _, cpu in timings) < 0.005 + 0.020


@pytest.mark.parametrize("game", GAMES)
def test_search_bot_is_deterministic_for_a_seed_and_a_world_budget(game):
    runs = [play(game, 3, seed=8, search_seat=1, stop_after=20, MAX_WORLDS=2) for _ in range(2)]
    assert runs[0][0].history == runs[1][0].history
    assert runs[0][0].view(1) == runs[1][0].view(1)


def test_manila_search_bids_for_the_office_that_greedy_leaves_free():
    # Greedy never bids; the search finds by simulation that the harbour master's
    # share, loading and first placement are worth a bid of 1.
    bot = load("manila", "search", "office", MAX_WORLDS=6)
    for seed in range(3):
        bot.setup({"game": "manila", "seat": 1, "players": 3, "options": {}, "limits": LIMITS,
                   "seed": seed, "seats": None})  # fmt: skip
        state = engine.get_game("manila").new_game(3, seed=seed)
        state.apply({"type": "pass"})  # seat 0, the harbour master, passes
        action = bot.act(state.view(1), state.legal_actions())
        assert action == {"type": "bid", "amount": 1}
