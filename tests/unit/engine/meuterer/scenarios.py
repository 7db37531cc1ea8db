"""Scripted rounds of Meuterer from `helpers.position()`, each with the points and the state
it ends in: the table test_rounds.py checks, whose successful mutiny test_refill.py plays on.
"""

from __future__ import annotations

from tests.unit.engine.meuterer.helpers import PASS, character, mutiny, play, promise

# Seat 3 passes first (5 cards reserved), the captain next (4 cards: island 4).
OFFER_START = [
    (0, promise(2)),
    (0, play("wine", 0)),
    (1, play("wine", 0)),
    (2, play("salt", 0)),
    (3, PASS),
]


def rest_of_offer(seat3, seat2, seat1):
    """The offer after OFFER_START: seat 1 plays one more wine; seats 3, 2 and 1, in that
    order, take the characters given."""
    return [
        (3, character(seat3)),
        (0, PASS),
        (1, play("wine", 0)),
        (2, PASS),
        (2, character(seat2)),
        (1, PASS),
        (1, character(seat1)),
    ]


SCENARIOS = [
    # case, script, points per seat, then phase, seat on move, captain, ship, active islands
    (
        # Captain 5 - 2 paid; boatswain 2 + 1; seat 1 sells 2 wines alone at Hochland.
        "no mutiny",
        OFFER_START + rest_of_offer("boatswain", "merchant", "stevedore"),
        [3, 4, 0, 3],
        ("discard", 1, 0, 4, [0, 4]),
    ),
    (
        "boatswain absent: the captain keeps the promise",
        OFFER_START + rest_of_offer("cabin_boy", "merchant", "stevedore"),
        [5, 4, 0, 0],
        ("discard", 1, 0, 4, [0, 4]),
    ),
    (
        # Captain side 2 + 0 + 1 (boatswain) = 3 beats the mutineer's 2.
        "failed mutiny",
        OFFER_START
        + rest_of_offer("mutineer", "boatswain", "stevedore")
        + [(0, mutiny(2)), (2, mutiny(0)), (3, mutiny(2))],
        [3, 4, 3, 0],
        ("discard", 1, 0, 4, [0, 4]),
    ),
    (
        # 1 + 0 + 1 against 0 + 2: a tie, so the mutineer wins and sails to 5.
        "successful mutiny",
        OFFER_START
        + rest_of_offer("mutineer", "boatswain", "cabin_boy")
        + [(0, mutiny(1)), (1, mutiny(0)), (2, mutiny(0)), (3, mutiny(2))],
        [0, 6, 0, 2],
        ("promise", 3, 3, 5, [0, 5]),
    ),
    (
        # One wine, one wine, one salt: three tied leaders at 2 each.
        "3-way tie",
        [
            (0, promise(0)),
            (0, play("wine", 0)),
            (1, play("wine", 0)),
            (2, play("salt", 0)),
            (3, PASS),
            (3, character("stevedore")),
            (0, PASS),
            (1, PASS),
            (1, character("cabin_boy")),
            (2, PASS),
            (2, character("boatswain")),
        ],
        [7, 2, 3, 0],
        ("discard", 3, 0, 4, [0, 4]),
    ),
    (
        # Seats 0 and 1 tie on one wine each: 3 for the captain, the merchant's full 4.
        "merchant tied",
        [
            (0, promise(1)),
            (0, play("wine", 0)),
            (1, play("wine", 0)),
            (2, PASS),
            (2, character("boatswain")),
            (3, PASS),
            (3, character("stevedore")),
            (0, PASS),
            (1, PASS),
            (1, character("merchant")),
        ],
        [7, 4, 2, 0],
        ("discard", 3, 0, 4, [0, 4]),
    ),
    (
        # Everyone else passes early; the captain plays on alone but cannot sell
        # his grain where his wine lies, so he reserves 1 card: Frosthöhle for 3.
        "captain plays on alone",
        [
            (0, promise(0)),
            (0, play("wine", 0)),
            (1, PASS),
            (1, character("merchant")),
            (2, PASS),
            (2, character("stevedore")),
            (3, PASS),
            (3, character("cabin_boy")),
            (0, play("wine", 0)),
            (0, play("conflict")),
            (0, play("conflict")),
            (0, PASS),
        ],
        [7, 0, 0, 0],
        ("discard", 2, 0, 1, [0, 1]),
    ),
]
