"""What a seat sees: its own hand and character, the open table, nothing secret."""

from __future__ import annotations

import json

import pytest

import engine
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
        assert state.view(seat)["available_characters"] is None
    for seat in range(4):
        assert state.view(seat)["characters"] is None
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
    assert state.view(0)["available_characters"] is None  # the captain chooses none
    # Seats that chose earlier keep what they were offered then, nothing newer.
    assert state.view(2)["available_characters"] == list(CHARACTERS)
    assert state.view(3)["available_characters"] == [
        "cabin_boy",
        "boatswain",
        "merchant",
        "stevedore",
    ]


# Digest and source (meuterer_es.txt): «Al pasar, [...] si no, elige en secreto un
# personaje todavía disponible. [...] Devolved los personajes en el centro.»
# — "On passing, [...] otherwise choose in secret a character still available.
# [...] Return the characters to the middle" (the last step of the round).
# A seat saw the characters it chose from; from meuterer-2 on its view keeps
# them until the round ends (meuterer-1 forgot them once it had chosen).
MUTINY_ROUND = [
    *PREFIX,
    (0, PASS),
    (1, PASS),
    (1, character("merchant")),
    (0, {"type": "mutiny", "conflicts": 0}),
    (2, {"type": "mutiny", "conflicts": 0}),
    (3, {"type": "mutiny", "conflicts": 0}),
]
OFFERED = [
    None,
    ["cabin_boy", "merchant", "stevedore"],
    list(CHARACTERS),
    ["cabin_boy", "boatswain", "merchant", "stevedore"],
]
FORGOTTEN = [None] * 4
CHOOSING = ["cabin_boy", "merchant", "stevedore"]  # what seat 1 is shown at step 9


@pytest.mark.parametrize(
    ("version", "steps", "offered"),
    [
        ("meuterer-2", 5, [None, None, list(CHARACTERS), None]),  # seat 2 has chosen
        ("meuterer-2", 9, [None, CHOOSING, *OFFERED[2:]]),  # seat 1 is choosing
        ("meuterer-2", 10, OFFERED),  # all chose: the reveal, the mutiny starts
        ("meuterer-2", 12, OFFERED),  # still in the mutiny
        ("meuterer-2", 13, FORGOTTEN),  # the round is over: a new one starts
        ("meuterer-1", 5, FORGOTTEN),
        ("meuterer-1", 9, [None, CHOOSING, None, None]),
        ("meuterer-1", 10, FORGOTTEN),
        ("meuterer-1", 13, FORGOTTEN),
    ],
)
def test_a_seat_keeps_the_characters_it_chose_from_until_the_round_ends(version, steps, offered):
    state = run(position(version=version), MUTINY_ROUND[:steps])
    assert state.version == version
    assert [state.view(seat)["available_characters"] for seat in range(4)] == offered
    if steps == len(MUTINY_ROUND):
        assert state.round == 2 and state.phase == "promise"


def test_the_characters_a_seat_chose_from_survive_a_hidden_variant():
    state = run(position(), MUTINY_ROUND[:7])  # seats 2 and 3 chose; seat 0 to pass
    for seat in range(4):
        for seed in range(20):
            assert state.hidden_variant(seat, seed).view(seat) == state.view(seat)


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


def test_a_meuterer_1_record_replays_with_the_view_it_was_played_with():
    game = engine.get_game("meuterer")
    state = game.new_game(4, seed=6, version="meuterer-1")
    while not any(state.characters) or state.phase == "character":
        state.apply(state.legal_actions()[-1])  # pass at once, then the last character
    assert state.round == 1 and not state.revealed  # one seat chose, others still offer
    chooser = next(s for s in range(4) if state.characters[s] is not None)
    record = state.record()
    assert record["engine_version"] == "meuterer-1"
    old = engine.replay(record)
    assert old.version == "meuterer-1" and old.view(chooser)["available_characters"] is None
    assert old.view(chooser) == state.view(chooser)
    # The play is the same under meuterer-2; only the view keeps what the seat saw.
    new = engine.replay({**record, "engine_version": "meuterer-2"})
    assert new.view(chooser)["available_characters"] == list(new.seen_available[chooser])
    with pytest.raises(ValueError, match="'meuterer-0'"):
        engine.replay({**record, "engine_version": "meuterer-0"})
