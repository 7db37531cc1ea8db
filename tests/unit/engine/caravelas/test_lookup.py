"""Caravelas' shortcut in `apply` (a move, end of turn or discard found by lookup)
judges every action as the legal list does, and its shared tables never leak.

A table of position → action → outcome: what `==` takes for a legal action is
applied as the engine's own dict; anything else is refused with the error the
full list gives, and the state stays as it was.
"""

from __future__ import annotations

import json

import pytest

from engine import IllegalAction
from engine.core import SharedAction, SharedList
from tests.unit.engine.caravelas.helpers import move, position

# From Lisboa a 1 reaches mar_dos_acores, mar_de_portugal and (by the arrow) cabo_bojador.
SAILING = [
    (move(1, "mar_dos_acores"), move(1, "mar_dos_acores")),
    ({"type": "move", "card": 1.0, "to": "mar_dos_acores"}, move(1, "mar_dos_acores")),
    ({"type": "move", "card": True, "to": "mar_dos_acores"}, move(1, "mar_dos_acores")),
    ({"to": "cabo_bojador", "card": 1, "type": "move"}, move(1, "cabo_bojador")),
    ({"type": "end_turn"}, {"type": "end_turn"}),
    (move(5, "mar_dos_acores"), None),  # no 5 in hand
    (move(1, "acores"), None),  # a 1 does not reach it
    (move("1", "mar_dos_acores"), None),
    (move([1], "mar_dos_acores"), None),  # unhashable: the list search refuses it
    ({**move(1, "mar_dos_acores"), "extra": 1}, None),
    ({"card": 1, "to": "mar_dos_acores", "kind": "move"}, None),
    ({"type": "end_turn", "extra": 1}, None),
    ({"type": "draw"}, None),  # not arrived this turn
]


@pytest.mark.parametrize(("action", "recorded"), SAILING, ids=[json.dumps(a) for a, _ in SAILING])
def test_a_sailing_action_is_taken_if_it_equals_a_legal_one(action, recorded):
    state = position(at="lisboa", hand=(1, 1, 2, 3))
    before = json.dumps([state.view(0), state.legal_actions(), state.history])
    if recorded is None:
        with pytest.raises(IllegalAction, match="not a legal action for seat 0"):
            state.apply(action)
        assert json.dumps([state.view(0), state.legal_actions(), state.history]) == before
        return
    state.apply(action)
    seat, mine = state.history[-1]
    assert seat == 0 and mine == recorded and mine is not action
    assert [type(v) for v in mine.values()] == [type(v) for v in recorded.values()]


DISCARDS = [
    ({"type": "discard", "cards": [2, 5]}, [2, 5]),
    ({"type": "discard", "cards": [2.0, 5]}, [2, 5]),
    ({"type": "discard", "cards": []}, []),
    ({"type": "discard", "cards": [5, 2]}, None),  # the legal list names them sorted
    ({"type": "discard", "cards": (2, 5)}, None),  # a tuple is not equal to a list
    ({"type": "discard", "cards": [2, 2]}, None),  # only one 2 in hand
    ({"type": "discard", "cards": [[2]]}, None),
    ({"type": "discard", "cards": [2], "extra": 1}, None),
]


@pytest.mark.parametrize(
    ("action", "cards"), DISCARDS, ids=[json.dumps(a, default=list) for a, _ in DISCARDS]
)
def test_a_discard_is_taken_if_it_equals_a_legal_one(action, cards):
    state = position(at="lisboa", hand=(2, 5))
    state.apply({"type": "end_turn"})
    assert state.phase == "discard"
    if cards is None:
        with pytest.raises(IllegalAction, match="not a legal action for seat 0"):
            state.apply(action)
        assert state.phase == "discard" and state.hand[0] == [2, 5]
        return
    state.apply(action)
    assert state.history[-1] == (0, {"type": "discard", "cards": cards})
    assert [type(v) for v in state.history[-1][1]["cards"]] == [int] * len(cards)
    assert state.log[-2] == {"event": "discard", "seat": 0, "cards": cards}


def test_changing_what_the_engine_handed_out_changes_no_other_game():
    """Handed-out moves are read-only; the list, records and views are the caller's own."""
    expected = position(at="lisboa", hand=(1, 2, 3, 4)).legal_actions()
    first = position(at="lisboa", hand=(1, 2, 3, 4))
    legal = first.legal_actions()
    for action in legal:
        with pytest.raises(TypeError, match="read-only"):
            action["to"] = "nowhere"
    legal.append({"type": "move", "card": 9, "to": "nowhere"})
    legal.remove(move(2, "acores"))
    del legal[0]
    assert first.legal_actions() == expected
    first.apply(move(1, "mar_dos_acores"))
    with pytest.raises(TypeError, match="read-only"):
        first.history[-1][1]["card"] = 99
    first.record()["actions"][-1][1]["to"] = "nowhere"
    # The logged move is a shared dict; a view hands out copies of it.
    first.view(1)["events"][-1]["to"] = "nowhere"
    second = position(at="lisboa", hand=(1, 2, 3, 4))
    assert second.legal_actions() == expected
    second.apply(move(1, "mar_dos_acores"))
    assert second.history[-1] == (0, move(1, "mar_dos_acores"))
    assert second.log[-1] == {"event": "move", "seat": 0, "card": 1, "to": "mar_dos_acores"}


def test_a_handed_out_move_is_found_by_identity_and_recorded_as_it_is():
    state = position(at="lisboa", hand=(1, 2, 3, 4))
    legal = state.legal_actions()
    assert all(type(a) is SharedAction for a in legal)
    state.apply(legal[0])
    assert state.history[-1][1] is legal[0]
    assert type(state.record()["actions"][-1][1]) is dict
    state.apply(end := state.legal_actions()[-1])
    assert end == {"type": "end_turn"} and state.history[-1][1] is end


def test_a_move_handed_out_elsewhere_is_judged_by_this_position():
    """The same shared move is legal from one circle and not from another, or without its card."""
    far = position(at="goa", hand=(1, 2, 3, 4)).legal_actions()
    state = position(at="lisboa", hand=(2, 3, 4, 4))
    here = state.legal_actions()
    for action in far + position(at="lisboa", hand=(1, 1, 1, 1)).legal_actions():
        if action not in here:
            with pytest.raises(IllegalAction, match="not a legal action for seat 0"):
                state.apply(action)
    assert state.legal_actions() == here and state.history == []


def test_a_discard_is_handed_out_shared_and_read_only_and_recorded_plain():
    state = position(at="lisboa", hand=(2, 5))
    state.apply({"type": "end_turn"})
    legal = state.legal_actions()
    assert legal == [{"type": "discard", "cards": c} for c in ([], [2], [5], [2, 5])]
    assert legal == state.legal_actions() and legal is not state.legal_actions()
    for action in legal:
        assert type(action) is SharedAction and type(action["cards"]) is SharedList
        with pytest.raises(TypeError, match="read-only"):
            action["cards"].append(9)
    state.apply(legal[3])
    assert state.history[-1][1] is legal[3]
    recorded = state.record()["actions"][-1][1]
    assert type(recorded["cards"]) is list
    recorded["cards"].clear()
    assert state.record()["actions"][-1][1] == {"type": "discard", "cards": [2, 5]}
    assert state.log[-2] == {"event": "discard", "seat": 0, "cards": [2, 5]}


def test_a_hand_no_turn_deals_still_offers_every_discard_and_takes_one():
    """Five cards (a test's set-up, never a turn's): the discards are made the long way,
    the same shared actions the tables hold, and one is applied through the plain search."""
    state = position(at="lisboa", hand=(1, 2, 2, 3, 5))
    state.apply({"type": "end_turn"})
    legal = state.legal_actions()
    assert len(legal) == 2 * 3 * 2 * 2  # how many of each value: 0-1, 0-2, 0-1, 0-1
    assert legal[0] == {"type": "discard", "cards": []}
    assert legal[-1] == {"type": "discard", "cards": [1, 2, 2, 3, 5]}
    assert all(type(a) is SharedAction and type(a["cards"]) is SharedList for a in legal)
    assert state.legal_actions()[1] is legal[1]  # one action per set of cards
    state.apply({"type": "discard", "cards": [2, 2]})
    assert state.history[-1] == (0, {"type": "discard", "cards": [2, 2]})
    assert state.log[-2] == {"event": "discard", "seat": 0, "cards": [2, 2]}
