"""The promise and the offer round: what may be played where, turns, characters.

Positions come from `helpers.position` (seat 0 captain, ship at Hochland).
"""

from __future__ import annotations

import json

import pytest

from engine import IllegalAction, get_game
from tests.unit.engine.meuterer.helpers import (
    PASS,
    character,
    discard,
    mutiny,
    play,
    position,
    promise,
    run,
)


def test_the_captain_promises_0_to_3_first():
    state = position()
    assert state.current_player() == 0
    assert state.legal_actions() == [promise(p) for p in range(4)]
    state.apply(promise(3))
    assert state.view(2)["promise"] == 3
    assert state.current_player() == 0  # and then opens the offer


@pytest.mark.parametrize(
    ("case", "hand", "active", "before", "expected"),
    [
        (
            "only Hochland active: it buys anything",
            "wine wine conflict conflict grain",
            [0],
            [],
            [play("wine", 0), play("grain", 0), play("conflict"), PASS],
        ),
        (
            "two active islands: each that buys the card",
            "ruby salt conflict",
            [0, 4],
            [],
            [play("ruby", 0), play("ruby", 4), play("salt", 0), play("conflict"), PASS],
        ),
        (
            "an inactive island buys nothing",
            "grain cloth",
            [4, 10],
            [],
            [PASS],
        ),
        (
            "one good type per island: grain now only at Karge Zunge",
            "wine wine conflict conflict grain",
            [0, 3],
            [play("wine", 0)],
            [play("wine", 0), play("grain", 3), play("conflict"), PASS],
        ),
        ("an empty hand can only pass", "", [0], [], [PASS]),
    ],
)
def test_what_the_captain_may_play(case, hand, active, before, expected):
    hands = [hand, "grain", "grain", "grain"]
    state = position(hands=hands, ship=active[-1], active=active)
    state.apply(promise(0))
    for action in before:
        state.apply(action)
        # Others pass so that the captain is on move again.
        for seat in (1, 2, 3):
            if not state.passed[seat]:
                run(state, [(seat, PASS), (seat, character(state.available[0]))])
    assert state.current_player() == 0
    assert state.legal_actions() == expected, case


def test_turns_go_clockwise_from_the_captain_and_skip_those_who_passed():
    state = position(captain=2)
    order = []
    state.apply(promise(1))
    while state.phase in ("offer", "character"):
        seat = state.current_player()
        order.append(seat)
        legal = state.legal_actions()
        # Seat 3 passes at once; the rest play one card then pass.
        if seat == 3 or state.phase == "character" or len(state.hands[seat]) < 5:
            state.apply(legal[-1] if state.phase == "offer" else legal[0])
        else:
            state.apply(legal[0])
    # 2 plays, 3 passes (+ character), 0 plays, 1 plays, 2 passes, 0 passes (+), 1 passes (+)
    assert order == [2, 3, 3, 0, 1, 2, 0, 0, 1, 1]


def test_passing_reserves_the_rest_of_the_hand_publicly():
    state = run(position(), [(0, promise(0)), (0, play("wine", 0)), (1, PASS)])
    view = state.view(3)
    assert view["passed"] == [False, True, False, False]
    assert view["reserved"] == [None, 5, None, None]
    assert view["hand_sizes"] == [4, 5, 5, 5]
    assert state.current_player() == 1 and view["phase"] == "character"


def test_characters_are_taken_from_those_still_available():
    state = run(position(), [(0, promise(0)), (0, PASS), (1, PASS)])
    assert state.legal_actions() == [
        character(n) for n in ("mutineer", "cabin_boy", "boatswain", "merchant", "stevedore")
    ]
    run(state, [(1, character("boatswain")), (2, PASS)])
    assert state.view(2)["available_characters"] == [
        "mutineer",
        "cabin_boy",
        "merchant",
        "stevedore",
    ]
    run(state, [(2, character("mutineer")), (3, PASS)])
    assert state.legal_actions() == [character(n) for n in ("cabin_boy", "merchant", "stevedore")]


def test_the_captain_takes_no_character():
    state = run(position(), [(0, promise(0)), (0, PASS)])
    assert state.current_player() == 1 and state.phase == "offer"
    assert state.view(0)["character"] is None


def _offer_start():
    """The captain on move again with wine at Hochland; Eisfelsen (ruby) active too."""
    return run(
        position(ship=4, active=[0, 4]),
        [
            (0, promise(1)),
            (0, play("wine", 0)),
            (1, PASS),
            (1, character("merchant")),
            (2, PASS),
            (2, character("boatswain")),
            (3, PASS),
            (3, character("stevedore")),
        ],
    )


def _mutiny_start():
    return run(
        position(),
        [
            (0, promise(1)),
            (0, PASS),
            (1, PASS),
            (1, character("mutineer")),
            (2, PASS),
            (2, character("boatswain")),
            (3, PASS),
            (3, character("stevedore")),
        ],
    )


def _stevedore_discard():
    state = _mutiny_start()
    run(state, [(0, mutiny(0)), (1, mutiny(0)), (2, mutiny(0))])
    assert state.phase == "discard" and state.current_player() == 3
    return state


@pytest.mark.parametrize(
    ("case", "make", "bad"),
    [
        ("promise above 3", position, promise(4)),
        ("negative promise", position, promise(-1)),
        ("promise as text", position, {"type": "promise", "points": "2"}),
        ("play before the promise", position, play("wine", 0)),
        ("grain where wine already lies", _offer_start, play("grain", 0)),
        ("card not in hand", _offer_start, play("ruby", 0)),
        ("inactive island", _offer_start, play("wine", 8)),
        ("island that does not buy it", _offer_start, play("wine", 4)),
        ("conflict placed at an island", _offer_start, {**play("conflict"), "island": 0}),
        ("goods without an island", _offer_start, play("wine")),
        ("island out of range", _offer_start, play("wine", 12)),
        (
            "unknown character",
            lambda: run(position(), [(0, promise(0)), (0, PASS), (1, PASS)]),
            character("pirate"),
        ),
        (
            "character already taken",
            lambda: run(
                position(),
                [(0, promise(0)), (0, PASS), (1, PASS), (1, character("merchant")), (2, PASS)],
            ),
            character("merchant"),
        ),
        ("more conflicts than reserved", _mutiny_start, mutiny(3)),
        ("negative conflicts", _mutiny_start, mutiny(-1)),
        ("discard too few", _stevedore_discard, discard("grain", "grain")),
        ("discard out of canonical order", _stevedore_discard, None),
        ("discard cards not held", _stevedore_discard, discard("ruby", "ruby", "ruby")),
    ],
)
def test_illegal_actions_are_refused_without_change(case, make, bad):
    state = make()
    if bad is None:  # the same cards as a legal discard, listed backwards
        bad = discard(*reversed(state.legal_actions()[-1]["cards"]))
        assert bad not in state.legal_actions()
    before = json.dumps([state.view(s) for s in range(4)] + [len(state.history)])
    with pytest.raises(IllegalAction):
        state.apply(bad)
    assert json.dumps([state.view(s) for s in range(4)] + [len(state.history)]) == before, case


@pytest.mark.parametrize(
    ("players", "options", "message"),
    [
        (2, None, "3 to 4 players"),
        (5, None, "3 to 4 players"),
        (4, {"pirate": True}, "unknown meuterer option"),
    ],
)
def test_bad_game_setup_is_refused(players, options, message):
    with pytest.raises(ValueError, match=message):
        get_game("meuterer").new_game(players, seed=1, options=options)
