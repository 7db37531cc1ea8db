"""What the engine hands out is the caller's, all the way down, in every game.

A search bot holds views, legal lists, logs and records of the states it plays
with in its own process: editing any list or dict inside them (or, where the
engine refuses the edit, trying to) must change nothing the game or any other
game of the process shows later. Legal actions may be shared and read-only; views,
logs (as `events_since_last_decision` hands them out) and records are plain data.
"""

from __future__ import annotations

import json
import random

import pytest

import engine


def _scribble(value) -> int:
    """Edit every list and dict inside `value`, depth first; how many took the edit."""
    edited = 0
    if isinstance(value, dict):
        for item in list(value.values()):
            edited += _scribble(item)
        try:
            value["scribbled"] = True
            edited += 1
        except TypeError:  # a shared read-only action
            pass
    elif isinstance(value, list):
        for item in list(value):
            edited += _scribble(item)
        try:
            value.append("scribbled")
            edited += 1
        except TypeError:  # a shared read-only list inside an action
            pass
    return edited


def _observed(state) -> str:
    return json.dumps(
        {
            "views": [state.view(s) for s in range(state.num_players)],
            "legal": state.legal_actions(),
            "record": state.record(),
            "log": state.log,
        }
    )


@pytest.mark.parametrize("name", engine.game_names())
def test_editing_everything_handed_out_changes_nothing_later(name):
    game = engine.get_game(name)
    players = game.min_players + 1
    state, twin = game.new_game(players, seed=3), game.new_game(players, seed=3)
    other = game.new_game(game.max_players, seed=4)
    other_before = _observed(other)
    chooser = random.Random(3)
    events_edited = 0
    for _ in range(150):
        if state.is_over():
            break
        before = _observed(state)
        seat = state.current_player()
        assert _scribble([state.view(s) for s in range(players)]) > 0
        events_edited += _scribble(state.events_since_last_decision(seat))
        assert _scribble(state.record()) > 0
        assert _scribble(state.legal_actions()) > 0  # the list is the caller's
        assert _observed(state) == before
        index = chooser.randrange(len(state.legal_actions()))
        state.apply(state.legal_actions()[index])
        twin.apply(twin.legal_actions()[index])
    assert events_edited > 0  # some decisions had events to hand out
    assert _observed(state) == _observed(twin)
    assert _observed(other) == other_before
