"""What Caravelas does for speed in a search changes nothing a caller can see.

`determinize` fills a blank state instead of dealing a new game first, and
`clone` copies field by field: the worlds drawn are the ones drawn before
(pinned against the engine as it stood at ef55f55), and a clone shares no list
it could edit with its original. `apply`'s lookup (a move written out) leaves
the state `State.apply`'s search of the legal list leaves, and a hand outside
the tables is sailed the long way. The table of what a move's end brings is the
rules'.
"""

from __future__ import annotations

import hashlib
import json
import random

import engine
from engine.caravelas import data
from engine.caravelas.sailing import DESTINATIONS
from engine.caravelas.state import (
    ARRIVAL,
    ARRIVES,
    DICTS,
    IF_HELD,
    NESTED_LISTS,
    QUIET,
    SHALLOW_LISTS,
    CaravelasState,
)
from engine.core import State
from tests.unit.engine.caravelas.helpers import move, position

GAME = engine.get_game("caravelas")
MASK = (1 << 64) - 1
SAMPLED = ("hand", "deck", "secret", "pile", "drawn", "returned")


def _played(n: int, steps: int) -> CaravelasState:
    state, chooser = GAME.new_game(n, seed=n), random.Random(n)
    for _ in range(steps):
        state.apply(chooser.choice(state.legal_actions()))
    return state


def test_determinize_draws_the_worlds_it_drew_before():
    """Every 50th step of a game per table size: the hidden fields and the generator."""
    digest = hashlib.sha256()
    for n in (2, 3, 4):
        state, chooser = GAME.new_game(n, seed=n), random.Random(n)
        for step in range(600):
            if step % 50 == 49:
                view = json.loads(json.dumps(state.view(state.current_player())))
                world = GAME.determinize(view, step)
                hidden = [getattr(world, name) for name in SAMPLED]
                digest.update(json.dumps([hidden, world.rng.copy().below(1000)]).encode())
            state.apply(chooser.choice(state.legal_actions()))
    # The same figure from the engine at ef55f55, which dealt a new game first.
    assert digest.hexdigest()[:16] == "39e511a94c8bade5"


def test_a_blank_state_has_a_new_games_fields_in_its_order():
    assert list(vars(CaravelasState.blank(3, seed=1))) == list(vars(GAME.new_game(3, seed=1)))


def test_a_determinized_world_has_a_new_games_fields_in_its_order():
    state = _played(4, 90)
    world = GAME.determinize(state.view(state.current_player()), 1)
    assert list(vars(world)) == list(vars(state))


def test_clone_copies_every_list_a_state_has():
    """A field added later must be named for `clone`, or clone and original would share it."""
    state = _played(3, 120)
    state.legal_actions()
    lists = {name for name, value in vars(state).items() if isinstance(value, list)}
    assert lists - {"_legal_cache"} == {*SHALLOW_LISTS, *NESTED_LISTS}
    assert {name for name, value in vars(state).items() if isinstance(value, dict)} == {*DICTS}
    twin = state.clone()
    for name in (*SHALLOW_LISTS, *NESTED_LISTS):
        assert getattr(twin, name) == getattr(state, name)
        assert getattr(twin, name) is not getattr(state, name)
    for name in NESTED_LISTS:
        assert all(
            a is not b for a, b in zip(getattr(twin, name), getattr(state, name), strict=True)
        )
    for name in DICTS:
        assert getattr(twin, name) == getattr(state, name)
        assert getattr(twin, name) is not getattr(state, name)
    assert twin.rng is not state.rng and twin.rng._x == state.rng._x


def test_the_fast_apply_and_the_full_search_make_the_same_state():
    """Every legal action at sampled points, by `apply`'s lookups (the action handed out, an
    equal plain dict) and by `State.apply`'s search."""
    chooser = random.Random(7)
    for n in (2, 3, 4):
        state = GAME.new_game(n, seed=n + 10)
        for step in range(700):
            legal = state.legal_actions()
            if step % 11 == 0:
                for action in legal:
                    fast, plain, full = state.clone(), state.clone(), state.clone()
                    fast.apply(action)  # a shared move: found by its identity
                    plain.apply(json.loads(json.dumps(action)))
                    State.apply(full, action)
                    assert _fields(fast) == _fields(plain) == _fields(full), action
            state.apply(chooser.choice(legal))


def _fields(state: CaravelasState) -> str:
    """Every field but the cache; of the log and history (shared up to here), the new part."""
    skip = ("rng", "_legal_cache", "log", "history")
    fields = {k: v for k, v in vars(state).items() if k not in skip}
    news = [state.log[-6:], len(state.log), state.history[-1:], len(state.history)]
    return json.dumps([fields, news, state.rng._x], sort_keys=True, default=repr)


def test_a_hand_no_turn_deals_is_sailed_the_long_way():
    """Five cards (only a test's set-up holds them): the moves of each value, then the end."""
    state = position(at="lisboa", hand=(1, 1, 2, 3, 5))
    moves = [a for a in state.legal_actions() if a["type"] == "move"]
    assert moves == [move(v, to) for v in (1, 2, 3, 5) for to in DESTINATIONS["lisboa"][v]]
    assert state.legal_actions()[-1] == {"type": "end_turn"}


def test_what_a_moves_end_brings_is_the_slow_ways_answer():
    """QUIET: nothing at all; IF_HELD: only a discovery; ARRIVES: the Cape, cubes or Lisboa."""
    for circle, kind in ARRIVAL.items():
        cube_or_port = circle in (*data.CUBE_PLACES.values(), data.LISBOA_ID, data.CAPE_ID)
        if kind == QUIET:
            assert circle not in data.DISCOVERIES and not cube_or_port
        elif kind == IF_HELD:
            assert circle in data.DISCOVERIES and not cube_or_port
        else:
            assert kind == ARRIVES and cube_or_port
    assert set(ARRIVAL) == set(DESTINATIONS)
