"""What a seat sees: its own hand and character, the open table, nothing secret."""

from __future__ import annotations

import json

import pytest

from engine.meuterer.data import CHARACTERS
from tests.unit.engine.meuterer.helpers import HANDS, PASS, character, play, position, promise, run

PREFIX = [
    (0, promise(1)),
    (0, play("wine", 0)),
    (1, play("salt", 0)),
    (2, PASS),
    (2, character("mutineer")),
    (3, PASS),
    (3, character("boatswain")),
]


def test_a_seat_sees_its_own_hand_sorted_and_the_table_with_who_played():
    state = run(position(), PREFIX)
    view = state.view(1)
    assert view["hand"] == ["ruby", "wine", "wine", "conflict"]
    assert view["table"] == [
        {"seat": 0, "card": "wine", "island": 0, "stage": "offer"},
        {"seat": 1, "card": "salt", "island": 0, "stage": "offer"},
    ]
    assert view["reserved"] == [None, None, 5, 5]
    assert view["hand_sizes"] == [4, 4, 5, 5]
    assert view["scores"] == [0, 0, 0, 0] and view["ship"] == 0
    assert view["deck"] == 16 and sum(view["discards"].values()) == 0
    assert json.loads(json.dumps(view)) == view


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_another_hand_and_the_deck_order_do_not_show(seat):
    other = (seat + 1) % 4
    hands = list(HANDS)
    changed = list(HANDS)
    changed[other] = "cloth cloth cloth grain grain"  # same size, other cards
    a = run(position(hands=hands), PREFIX[:1])
    b = run(position(hands=changed), PREFIX[:1])
    b.deck.reverse()
    assert a.view(seat) == b.view(seat)
    assert a.view(other) != b.view(other)


def test_characters_stay_secret_until_the_reveal():
    state = run(position(), PREFIX)
    assert state.view(2)["character"] == "mutineer"
    assert state.view(3)["character"] == "boatswain"
    for seat in (0, 1):
        assert state.view(seat)["character"] is None
    for seat in range(4):
        assert state.view(seat)["characters"] is None
        assert state.view(seat)["available_characters"] is None
    # Swapping the two secret characters changes nothing the others see.
    swapped = run(position(), PREFIX)
    swapped.characters[2], swapped.characters[3] = "boatswain", "mutineer"
    for seat in (0, 1):
        assert swapped.view(seat) == state.view(seat)
    # No event names a character before the reveal.
    text = json.dumps(state.log)
    assert not any(f'"{name}"' in text for name in CHARACTERS)


def test_only_the_chooser_sees_which_characters_remain():
    state = run(position(), [*PREFIX, (0, PASS), (1, PASS)])
    remaining = ["cabin_boy", "merchant", "stevedore"]
    assert state.view(1)["available_characters"] == remaining
    for seat in (0, 2, 3):
        assert state.view(seat)["available_characters"] is None


def test_every_character_shows_after_the_reveal():
    state = run(position(), [*PREFIX, (0, PASS), (1, PASS), (1, character("merchant"))])
    expected = [None, "merchant", "mutineer", "boatswain"]
    for seat in range(4):
        view = state.view(seat)
        assert view["characters"] == expected
        assert view["phase"] == "mutiny" and view["mutineer_destination"] == 5
    assert {"event": "reveal", "characters": expected} in state.log


def test_a_view_lists_the_islands_with_their_sides():
    state = position(ship=4, active=[0, 4])
    islands = state.view(0)["islands"]
    assert len(islands) == 12
    assert [i["island"] for i in islands if i["active"]] == [0, 4]
    assert islands[4] == {
        "island": 4,
        "name": "Eisfelsen",
        "buys": "ruby",
        "navigation": 5,
        "sale": [6, 4, 3],
        "active": True,
    }


def test_events_show_what_happened_since_the_seat_last_acted():
    state = run(position(), PREFIX)
    kinds = [e["event"] for e in state.view(0)["events"]]
    # Its own play included: the log from the moment it decided.
    assert kinds == ["play", "play", "pass", "character_taken", "pass", "character_taken"]
