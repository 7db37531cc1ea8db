"""The spectator's view of each game: every secret shown, nothing else changed."""

from __future__ import annotations

import json
import random

import pytest

import engine
from engine.meuterer.data import sort_cards


def _play_to(name: str, n: int, steps: int, seed: int = 3):
    state = engine.get_game(name).new_game(n, seed=seed)
    chooser = random.Random(seed)
    for _ in range(steps):
        if state.is_over():
            break
        state.apply(chooser.choice(state.legal_actions()))
    return state


# game, players, steps into the game, seat -> the secret the spectator must show
SECRETS = [
    (
        "manila",
        3,
        5,
        lambda st, s: {"my_shares": st.held[s], "my_mortgaged": st.mortgaged[s]},
    ),
    (
        "meuterer",
        4,
        6,
        lambda st, s: {"hand": sort_cards(st.hands[s]), "character": st.characters[s]},
    ),
    (
        "caravelas",
        4,
        10,
        lambda st, s: {"movement": st.hand[s], "discovery_cards": st.secret[s]},
    ),
]


@pytest.mark.parametrize(("name", "n", "steps", "secret"), SECRETS, ids=[c[0] for c in SECRETS])
def test_spectator_shows_every_seats_secrets(name, n, steps, secret):
    state = _play_to(name, n, steps)
    full = state.spectate()
    assert full["spectator"] is True
    for seat in range(n):
        for key, value in secret(state, seat).items():
            assert full["private"][seat][key] == value
            assert key not in full  # a secret is never on the public table


@pytest.mark.parametrize("name", engine.game_names())
def test_spectate_changes_when_hidden_things_change(name):
    """Resampling what seat 0 cannot see changes the spectator's picture, not seat 0's."""
    state = _play_to(name, engine.get_game(name).max_players, 4)
    variant = state.hidden_variant(0, 12345)
    assert variant.view(0) == state.view(0)
    assert variant.spectate()["private"][0] == state.spectate()["private"][0]
    assert variant.spectate()["private"][1:] != state.spectate()["private"][1:]


@pytest.mark.parametrize("name", engine.game_names())
def test_spectate_is_a_copy(name):
    """Changing the returned dict never changes the game."""
    state = _play_to(name, engine.get_game(name).min_players, 3)
    before = json.dumps(state.spectate(), sort_keys=True)
    full = state.spectate()
    for part in full["private"]:
        for value in part.values():
            if isinstance(value, list):
                value.append("junk")
            elif isinstance(value, dict):
                value["junk"] = 1
    assert json.dumps(state.spectate(), sort_keys=True) == before
