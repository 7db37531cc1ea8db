"""A game's `pause_after` event is logged through `State.emit`, every time.

The replay viewer pauses there by watching `emit` on its own state (it shows the
board the same move then clears), so an engine that logs this event any other way
(a faster literal straight into its log) breaks the viewer without breaking a
replay. One random game per table size and seed of each game that declares it.
"""

from __future__ import annotations

import random

import pytest

import engine


def _cases():
    for name in engine.game_names():
        game = engine.get_game(name)
        if game.capabilities.pause_after is None:
            continue
        for players in range(game.min_players, game.max_players + 1):
            yield pytest.param(name, players, id=f"{name}-{players}p")


@pytest.mark.parametrize(("name", "players"), list(_cases()))
def test_every_pause_after_event_goes_through_emit(name, players):
    game = engine.get_game(name)
    kind = game.capabilities.pause_after
    state = game.new_game(players, seed=5)
    emitted = []
    emit = state.emit

    def watched(event: str, **fields) -> None:
        emit(event, **fields)
        if event == kind:
            emitted.append(len(state.log))

    state.emit = watched
    chooser = random.Random(5)
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
    logged = [i + 1 for i, entry in enumerate(state.log) if entry["event"] == kind]
    assert logged, f"a whole {name} game logs no {kind!r} event"
    assert emitted == logged
