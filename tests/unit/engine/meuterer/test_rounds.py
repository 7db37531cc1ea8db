"""Whole rounds of Meuterer played from set positions: roles, sales, sailing, captaincy.

Every scenario (the table is in scenarios.py) starts from `helpers.HANDS` with seat 0
as captain, the ship at Hochland (island 0, the only active island). Island 4 sails for
5, island 5 for 2; Hochland pays 4 / 3 / 2 for sales.
"""

from __future__ import annotations

import pytest

from engine import get_game
from tests.unit.engine.meuterer.helpers import (
    PASS,
    character,
    mutiny,
    play,
    points_by_seat,
    position,
    promise,
    run,
)
from tests.unit.engine.meuterer.scenarios import OFFER_START, SCENARIOS, rest_of_offer


@pytest.mark.parametrize(
    ("case", "script", "points", "after"), SCENARIOS, ids=[s[0] for s in SCENARIOS]
)
def test_round_scoring_and_sailing(case, script, points, after):
    state = run(position(), script)
    assert points_by_seat(state) == points
    assert state.scores == points
    phase, on_move, captain, ship, active = after
    view = state.view(0)
    assert (view["phase"], view["current_player"], view["captain"]) == (phase, on_move, captain)
    assert view["ship"] == ship
    assert [i["island"] for i in view["islands"] if i["active"]] == active


def test_the_mutineer_becomes_captain_only_from_the_next_round():
    script = {s[0]: s[1] for s in SCENARIOS}["successful mutiny"]
    state = position()
    run(state, script[:-1])
    assert state.captain == 0  # still captain while the mutiny is fought
    run(state, script[-1:])
    assert state.captain == 3 and state.round == 2
    assert state.legal_actions() == [promise(p) for p in range(4)]


def test_mutiny_asks_the_captain_first_then_involved_seats_clockwise():
    state = run(position(), OFFER_START + rest_of_offer("mutineer", "boatswain", "stevedore"))
    asked = []
    while state.phase == "mutiny":
        seat = state.current_player()
        asked.append((seat, state.legal_actions()))
        state.apply(mutiny(0))
    # Seat 1 (stevedore) takes no part; each may add up to his reserved conflicts.
    assert asked == [
        (0, [mutiny(0), mutiny(1), mutiny(2)]),
        (2, [mutiny(0), mutiny(1)]),
        (3, [mutiny(0), mutiny(1), mutiny(2)]),
    ]


def test_a_seat_without_conflicts_is_still_asked_so_its_hand_stays_secret():
    hands = ["wine", "grain", "salt", "cloth"]
    state = run(
        position(hands=hands),
        [
            (0, promise(0)),
            (0, PASS),
            (1, PASS),
            (1, character("mutineer")),
            (2, PASS),
            (2, character("boatswain")),
            (3, PASS),
            (3, character("cabin_boy")),
        ],
    )
    for seat in (0, 1, 2, 3):
        assert state.current_player() == seat
        assert state.legal_actions() == [mutiny(0)]
        state.apply(mutiny(0))
    # The round is over and the next begun; its log tells how the mutiny went.
    outcome = [e for e in state.log if e["event"] == "mutiny"]
    assert outcome == [
        {"event": "mutiny", "captain_strength": 1, "mutineer_strength": 0, "winner": "captain"}
    ]


def test_mutiny_cards_are_shown_on_the_table_then_discarded():
    script = OFFER_START + rest_of_offer("mutineer", "boatswain", "stevedore")
    state = run(position(), [*script, (0, mutiny(2)), (2, mutiny(1))])
    mutiny_cards = [c for c in state.view(1)["table"] if c["stage"] == "mutiny"]
    assert mutiny_cards == [
        {"seat": 0, "card": "conflict", "island": None, "stage": "mutiny"},
        {"seat": 0, "card": "conflict", "island": None, "stage": "mutiny"},
        {"seat": 2, "card": "conflict", "island": None, "stage": "mutiny"},
    ]
    assert state.view(1)["conflicts"] == [2, 0, 1, 0]
    state.apply(mutiny(0))
    view = state.view(1)
    assert view["table"] == []
    # 3 goods + 3 mutiny conflicts exposed this round, 3 more wines from seats 0 and 1.
    assert view["discards"] == {
        "ruby": 0,
        "salt": 1,
        "wine": 3,
        "cloth": 0,
        "grain": 0,
        "conflict": 3,
    }


@pytest.mark.parametrize(
    ("ship", "captain_hand", "destination"),
    [
        (0, "wine wine wine wine wine", 5),
        (0, "", 0),  # no cards reserved: the ship stays
        (10, "salt salt salt salt salt", 3),  # counting wraps round the circle
        (11, "salt", 0),
        (6, "ruby ruby ruby", 9),
    ],
)
def test_captain_destination_is_his_reserved_count_clockwise(ship, captain_hand, destination):
    hands = [captain_hand, "grain", "grain", "grain"]
    state = run(position(hands=hands, ship=ship, active=[ship]), [(0, promise(0)), (0, PASS)])
    assert state.view(2)["destination"] == destination
    assert state.log[-1] == {"event": "destination", "seat": 0, "island": destination}


@pytest.mark.parametrize(
    ("ship", "mutineer_hand", "destination"),
    [(0, "grain grain", 2), (0, "", 0), (9, "wine wine wine wine wine", 2)],
)
def test_mutineer_destination_is_his_reserved_count_clockwise(ship, mutineer_hand, destination):
    hands = ["wine", mutineer_hand, "grain", "grain"]
    state = run(
        position(hands=hands, ship=ship, active=[ship]),
        [
            (0, promise(0)),
            (0, PASS),
            (1, PASS),
            (1, character("mutineer")),
            (2, PASS),
            (2, character("merchant")),
        ],
    )
    assert state.view(0)["mutineer_destination"] is None  # not before the reveal
    run(state, [(3, PASS), (3, character("stevedore"))])
    assert state.view(0)["mutineer_destination"] == destination


@pytest.mark.parametrize(("players", "last_round"), [(4, 8), (3, 9)])
def test_the_game_ends_after_the_last_round_with_shared_ranks(players, last_round):
    hands = ["wine wine wine wine wine", "grain", "grain", "grain"][:players]
    scores = [3, 5, 5, 1][:players]
    script = [(0, promise(0)), (0, PASS)]
    names = ["merchant", "stevedore", "cabin_boy"]
    for seat in range(1, players):
        script += [(seat, PASS), (seat, character(names[seat - 1]))]
    # One round earlier the game goes on to a refill.
    early = run(position(hands=hands, round=last_round - 1, scores=scores), script)
    assert not early.is_over()
    state = run(position(hands=hands, round=last_round, scores=scores), script)
    # Captain sails 5 islands to Affeninsel for 2: a three-way tie on 5.
    assert state.is_over() and state.current_player() is None
    assert state.result() == {
        "scores": [5, 5, 5, 1][:players],
        "ranks": [1, 1, 1, 4][:players],
    }


def test_sales_score_at_every_island_active_during_the_offer():
    # Ship at Eisfelsen (ruby, 6/4/3) with Hochland (4/3/2) still active from
    # the last voyage. Seat 1 sells ruby at 4 alone; seats 0 and 3 tie at 0.
    hands = ["wine wine grain", "ruby salt", "grain", "ruby ruby wine"]
    state = run(
        position(hands=hands, ship=4, active=[0, 4]),
        [
            (0, promise(0)),
            (0, play("wine", 0)),
            (1, play("ruby", 4)),
            (2, PASS),
            (2, character("merchant")),
            (3, play("wine", 0)),
            (0, PASS),  # 2 cards reserved: Kalte Klippe, navigation 4
            (1, PASS),
            (1, character("stevedore")),
            (3, PASS),
            (3, character("cabin_boy")),
        ],
    )
    sales = [e for e in state.log if e["event"] == "score" and e["reason"] != "role"]
    assert sales == [
        {"event": "score", "seat": 0, "points": 3, "reason": "island 0"},
        {"event": "score", "seat": 3, "points": 3, "reason": "island 0"},
        {"event": "score", "seat": 1, "points": 6, "reason": "island 4"},
    ]
    assert state.scores == [7, 6, 0, 3]
    # The ship leaves Eisfelsen for Kalte Klippe; Hochland turns inactive.
    assert state.ship == 6 and state.active == [4, 6]


@pytest.mark.parametrize("players", [3, 4])
def test_the_first_captain_is_drawn_at_random_and_promises_first(players):
    captains = set()
    for seed in range(30):
        state = get_game("meuterer").new_game(players, seed=seed)
        assert state.current_player() == state.captain
        assert state.view(0)["phase"] == "promise"
        assert state.view(0)["hand_sizes"] == [5] * players
        captains.add(state.captain)
    assert captains == set(range(players))
