"""The shortcuts Meuterer takes for search keep the contract.

Its legal lists hold action dicts made once for every game, so a caller that
edits what it was given (a legal action, a record's action) must never reach
them; and a world built from a view parsed from JSON plays on the engine's own
strings.
"""

from __future__ import annotations

import json
import random

import pytest

from engine import IllegalAction, get_game
from engine.meuterer.data import CARDS
from engine.meuterer.state import OFFER, MeutererState

GAME = get_game("meuterer")


def _play(state: MeutererState, chooser: random.Random, steps: int) -> None:
    for _ in range(steps):
        if state.is_over():
            return
        state.apply(chooser.choice(state.legal_actions()))


def _scribble(action: dict) -> None:
    """Change an action dict every way a careless caller might."""
    for key in list(action):
        action[key] = "scribbled"
    action["extra"] = 1


def test_editing_legal_and_recorded_actions_changes_no_game():
    fresh = [GAME.new_game(n, seed=5) for n in (3, 4)]
    legal_before = [state.legal_actions() for state in fresh]
    state, chooser = GAME.new_game(4, seed=11), random.Random(11)
    for _ in range(1_000):  # a game is some 120 decisions; bounded should the rules break
        if state.is_over():
            break
        legal = state.legal_actions()
        state.apply(chooser.choice(legal))
        for action in legal:
            _scribble(action)
    assert state.is_over()
    for _seat, action in state.record()["actions"]:
        _scribble(action)
    # Other games, new and old, still offer and accept the actions they did.
    assert [s.legal_actions() for s in fresh] == legal_before
    for s in fresh:
        s.apply(s.legal_actions()[-1])
    again, chooser = GAME.new_game(4, seed=11), random.Random(11)
    _play(again, chooser, 1_000)
    assert again.result() == state.result()


def test_an_edited_legal_action_is_refused_and_the_list_stays():
    state = GAME.new_game(3, seed=2)
    _play(state, random.Random(2), 3)
    legal = state.legal_actions()
    edited = dict(legal[0], card="gold")
    with pytest.raises(IllegalAction):
        state.apply(edited)
    legal[0]["type"] = "scribbled"
    assert state.legal_actions()[0]["type"] != "scribbled"


@pytest.mark.parametrize("players", [3, 4])
def test_a_world_from_a_parsed_view_holds_the_engines_own_strings(players):
    state, chooser = GAME.new_game(players, seed=players), random.Random(players)
    for _ in range(200):  # to the first offer with a card on the table
        if state.phase == OFFER and state.table:
            break
        _play(state, chooser, 1)
    seat = state.current_player()
    view = json.loads(json.dumps(state.view(seat)))
    world = GAME.determinize(view, 7)
    assert world.phase is OFFER
    assert view["hand"][0] is not CARDS[CARDS.index(view["hand"][0])]  # parsed: another str
    own = {card: card for card in CARDS}
    assert all(card is own[card] for card in world.hands[seat])
    assert all(entry["card"] is own[entry["card"]] for entry in world.table)
    assert world.view(seat) | {"events": []} == view | {"events": []}
