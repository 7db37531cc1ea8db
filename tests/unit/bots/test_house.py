"""House bots: every move legal in every registered game, and greedy beats random."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import engine
from bots import sdk
from workers.staging import house_file

HOUSE = Path(__file__).resolve().parents[3] / "bots" / "house"
GAMES = engine.game_names()


def load(game: str, name: str, tag: str):
    """A fresh copy of a house bot module (bots keep state in module globals)."""
    path = house_file(game, name)
    spec = importlib.util.spec_from_file_location(f"house_{game}_{name}_{tag}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def play(game: str, seats: list[str], seed: int) -> dict:
    """Play one game in-process between house bots; every action must be legal."""
    bots = [load(game, name, f"{seed}_{i}") for i, name in enumerate(seats)]
    state = engine.get_game(game).new_game(len(seats), seed=seed)
    while not state.is_over():
        seat = state.current_player()
        legal = state.legal_actions()
        action = bots[seat].act(state.view(seat), legal)
        assert action in legal, f"{seats[seat]} chose {action!r}"
        state.apply(action)
    return state.result()


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("name", ["random", "greedy"])
def test_house_bot_plays_only_legal_actions_to_the_end(game, name):
    spec = engine.get_game(game)
    for players in (spec.min_players, spec.max_players):
        assert len(play(game, [name] * players, seed=players)["ranks"]) == players


@pytest.mark.parametrize("game", GAMES)
def test_random_bot_is_deterministic_for_a_seed(game):
    players = engine.get_game(game).min_players
    assert play(game, ["random"] * players, seed=9) == play(game, ["random"] * players, seed=9)


@pytest.mark.parametrize("game", GAMES)
def test_greedy_beats_random_clearly(game):
    players = engine.get_game(game).min_players
    games, wins = 12, 0
    for seed in range(games):
        seat = seed % players
        seats = ["random"] * players
        seats[seat] = "greedy"
        wins += play(game, seats, seed=100 + seed)["ranks"][seat] == 1
    # A fair share would be 1/players; greedy must win most games outright.
    assert wins / games >= 0.6, f"greedy won {wins} of {games}"


@pytest.mark.parametrize("game", GAMES)
def test_starter_template_plays_only_legal_actions(game):
    path = HOUSE.parent / "starter" / game / "bot.py"
    spec = importlib.util.spec_from_file_location(f"starter_{game}", path)
    starter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(starter)
    players = engine.get_game(game).min_players
    # The info the SDK gives, every key of it (a starter reading one it lacks fails here).
    info = {"game": game, "seat": 0, "players": players, "options": {}, "seed": 7,
            "limits": {"move_ms": 1000, "bank_ms": 10000, "init_ms": 5000},
            "seats": [{"name": "starter", "owner": "me", "version": 1}] * players}  # fmt: skip
    assert set(info) == set(sdk.INFO_KEYS)
    starter.setup(info)
    # Its docstring names the same keys, in the SDK's order: a copy of it teaches the API.
    assert '{"' + '", "'.join(sdk.INFO_KEYS) + '"}' in starter.setup.__doc__
    assert "Random(0)" not in path.read_text()  # its choices follow the match's seed
    others = [load(game, "random", f"starter_{i}") for i in range(1, players)]
    state = engine.get_game(game).new_game(players, seed=4)
    while not state.is_over():
        seat = state.current_player()
        legal = state.legal_actions()
        action = (starter if seat == 0 else others[seat - 1]).act(state.view(seat), legal)
        assert action in legal
        state.apply(action)
