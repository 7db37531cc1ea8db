"""`State.clone()`: the fast copy a search plays forward on.

A clone must be the same position with the same generator, share nothing
mutable with its original (so each plays on alone), and after the same actions
still be the same state.
"""

from __future__ import annotations

import copy
import json
import random

import pytest

import engine


def _cases():
    for name in engine.game_names():
        game = engine.get_game(name)
        for n in range(game.min_players, game.max_players + 1):
            yield pytest.param(name, n, id=f"{name}-{n}p")


def _snapshot(state) -> str:
    """Every seat's view, the spectator's, the legal list, the generator and the history."""
    return json.dumps(
        {
            "views": [state.view(s) for s in range(state.num_players)],
            "spectate": state.spectate(),
            "legal": state.legal_actions(),
            "rng": state.rng.copy()._next(),
            "history": state.history,
            "log": state.log,
        },
        sort_keys=True,
    )


def _advance(state, chooser, steps):
    for _ in range(steps):
        if state.is_over():
            return
        state.apply(chooser.choice(state.legal_actions()))


def _mutables(value, path="", found=None):
    """Every list and dict reachable from `value` (through lists, dicts and tuples)."""
    found = {} if found is None else found
    if isinstance(value, list | dict):
        found[id(value)] = (path, value)
    if isinstance(value, list | dict | tuple):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            _mutables(item, f"{path}[{key!r}]", found)
    return found


@pytest.mark.parametrize(("name", "n"), list(_cases()))
def test_a_clone_is_the_same_state_and_shares_nothing_it_could_change(name, n):
    state = engine.get_game(name).new_game(n, seed=n)
    _advance(state, random.Random(n), 40)
    state.legal_actions()  # fill the cache, so the clone's copy of it is checked too
    twin = state.clone()
    assert type(twin) is type(state) and _snapshot(twin) == _snapshot(state)
    # Logged events, history entries and cached actions are never edited: shared safely.
    entries = [*state.log, *(a for _, a in state.history), *(state._legal_cache or [])]
    immutable_entries = set(_mutables(entries)) - {id(entries)}
    for field, value in vars(state).items():
        mine, theirs = _mutables(value, field), _mutables(getattr(twin, field), field)
        shared = set(mine) & set(theirs) - immutable_entries
        assert not shared, [mine[i][0] for i in shared]
    assert twin.rng is not state.rng


@pytest.mark.parametrize(("name", "n"), list(_cases()))
def test_a_clone_and_its_original_go_their_own_ways(name, n):
    """Different actions: each changes alone. The same actions: they stay equal."""
    game = engine.get_game(name)
    for seed in range(3):
        state = game.new_game(n, seed=seed)
        chooser = random.Random(seed)
        _advance(state, chooser, chooser.randrange(60))
        if state.is_over() or len(state.legal_actions()) < 2:
            continue
        before = _snapshot(state)
        reference = copy.deepcopy(state)
        twin = state.clone()
        first, second = state.legal_actions()[:2]
        twin.apply(second)
        _advance(twin, random.Random(seed + 1), 30)
        assert _snapshot(state) == before  # the clone's moves left the original alone
        state.apply(first)
        reference.apply(first)
        assert _snapshot(state) == _snapshot(reference)
        assert _snapshot(twin) != _snapshot(state)

        # From here on the same moves, dice and draws: equal at every step, to the end.
        again = state.clone()
        moves, other_moves = random.Random(seed + 2), random.Random(seed + 2)
        while not state.is_over():
            state.apply(moves.choice(state.legal_actions()))
            again.apply(other_moves.choice(again.legal_actions()))
            assert again.current_player() == state.current_player()
        assert _snapshot(again) == _snapshot(state) and again.result() == state.result()


@pytest.mark.parametrize("name", engine.game_names())
def test_a_determinized_state_clones_too(name):
    """A search clones the worlds it samples: the clone plays on like its original."""
    game = engine.get_game(name)
    state = game.new_game(game.max_players, seed=9)
    _advance(state, random.Random(9), 25)
    world = game.determinize(state.view(state.current_player()), 4)
    twin = world.clone()
    assert _snapshot(twin) == _snapshot(world)
    chooser, same = random.Random(5), random.Random(5)
    while not world.is_over():
        world.apply(chooser.choice(world.legal_actions()))
        twin.apply(same.choice(twin.legal_actions()))
    assert twin.result() == world.result()
