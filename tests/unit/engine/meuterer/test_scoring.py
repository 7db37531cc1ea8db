"""Meuterer's scoring arithmetic, case by case (pure functions)."""

from __future__ import annotations

import itertools
import random

import pytest

from engine.meuterer import scoring
from engine.meuterer.data import ISLANDS, ROUNDS
from engine.meuterer.state import MeutererState

M, C, B, ME, S = "mutineer", "cabin_boy", "boatswain", "merchant", "stevedore"


@pytest.mark.parametrize(
    ("case", "characters", "pay", "dest", "mutineer_dest", "won", "expected"),
    [
        # Captain seat 0 in every row; island 4 sails for 5, island 5 for 2.
        ("no mutiny, boatswain paid", [None, B, ME, S], 2, 4, None, False, [3, 3, 0, 0]),
        ("no mutiny, boatswain absent", [None, C, ME, S], 2, 4, None, False, [5, 0, 0, 0]),
        ("promise of nothing", [None, B, ME, S], 0, 4, None, False, [5, 1, 0, 0]),
        ("captain below zero", [None, B, ME, S], 3, 5, None, False, [-1, 4, 0, 0]),
        ("failed mutiny", [None, B, C, M], 1, 4, 5, False, [4, 2, 0, 0]),
        ("failed mutiny, no boatswain", [None, S, C, M], 1, 4, 5, False, [5, 0, 0, 0]),
        ("mutiny won with cabin boy", [None, B, C, M], 1, 4, 5, True, [0, 0, 2, 2]),
        ("mutiny won alone", [None, B, ME, M], 1, 4, 4, True, [0, 0, 0, 5]),
        ("3 players, mutiny won", [M, None, C], 3, 2, 0, True, [5, 0, 2]),
    ],
)
def test_role_scores(case, characters, pay, dest, mutineer_dest, won, expected):
    captain = characters.index(None)
    got = scoring.role_scores(captain, characters, pay, dest, mutineer_dest, won)
    assert got == expected, case


@pytest.mark.parametrize(
    ("case", "island", "counts", "merchant", "expected"),
    [
        # Hochland 4/3/2, Eisfelsen 6/4/3, Fingerhut 2/1/0.
        ("nobody sold", 0, [0, 0, 0, 0], None, [0, 0, 0, 0]),
        ("sole leader", 0, [1, 3, 2, 0], None, [0, 4, 0, 0]),
        ("two tied", 4, [2, 2, 1, 0], None, [4, 4, 0, 0]),
        ("three tied", 4, [1, 1, 1, 0], None, [3, 3, 3, 0]),
        ("four tied score the 3+ value", 4, [1, 1, 1, 1], None, [3, 3, 3, 3]),
        ("merchant tied scores full value", 4, [2, 2, 1, 0], 1, [4, 6, 0, 0]),
        ("merchant in a 3-way tie", 0, [1, 1, 1, 0], 2, [2, 2, 4, 0]),
        ("merchant sole leader", 0, [0, 2, 1, 0], 1, [0, 4, 0, 0]),
        ("merchant not leading scores nothing", 0, [0, 1, 2, 0], 1, [0, 0, 4, 0]),
        ("3-way tie worth nothing", 10, [1, 1, 1], None, [0, 0, 0]),
    ],
)
def test_sale_scores(case, island, counts, merchant, expected):
    assert scoring.sale_scores(island, counts, merchant) == expected, case


@pytest.mark.parametrize(
    ("case", "characters", "conflicts", "strengths", "mutineer_wins"),
    [
        ("boatswain adds one", [None, B, C, M], [0, 0, 0, 0], (1, 0), False),
        ("tie goes to the mutineer", [None, B, C, M], [1, 0, 0, 2], (2, 2), True),
        ("cabin boy helps", [None, B, C, M], [1, 1, 1, 1], (3, 2), False),
        ("no boatswain, no bonus", [None, S, C, M], [0, 0, 0, 0], (0, 0), True),
        ("merchant and stevedore stay out", [None, ME, S, M], [1, 3, 3, 1], (1, 1), True),
        ("higher captain side wins", [None, S, ME, M], [2, 0, 0, 1], (2, 1), False),
    ],
)
def test_mutiny_strength_and_winner(case, characters, conflicts, strengths, mutineer_wins):
    got = scoring.mutiny_strengths(0, characters, conflicts)
    assert got == strengths, case
    assert scoring.mutiny_succeeds(*got) is mutineer_wins, case


def _sale_scores_by_the_rules(island, counts, merchant):
    """The sale rule written the plain way: every leader scores, by the number tied."""
    best = max(counts)
    leaders = [seat for seat, count in enumerate(counts) if count == best and best > 0]
    sole, two, more = ISLANDS[island].sale
    share = sole if len(leaders) == 1 else two if len(leaders) == 2 else more
    scores = [0] * len(counts)
    for seat in leaders:
        scores[seat] = sole if seat == merchant else share
    return scores


@pytest.mark.parametrize("players", [3, 4])
def test_sale_awards_are_the_rules_scores_that_are_not_zero_in_seat_order(players):
    for island in range(len(ISLANDS)):
        for counts in itertools.product(range(3), repeat=players):
            for merchant in (None, *range(players)):
                expected = _sale_scores_by_the_rules(island, list(counts), merchant)
                awards = scoring.sale_awards(island, list(counts), merchant)
                assert awards == [(seat, p) for seat, p in enumerate(expected) if p]
                assert scoring.sale_scores(island, list(counts), merchant) == expected


@pytest.mark.parametrize("players", [3, 4])
def test_a_rounds_logged_scores_are_the_scoring_functions_in_seat_order(players):
    # The state scores a round with the mutiny, role and sole-leader rules written
    # out: every round of random games logs what the scoring functions give.
    rounds = 0
    for seed in range(40):
        state = MeutererState(players, seed)
        end_round = state._end_round

        def checked(state=state, end_round=end_round):
            nonlocal rounds
            chars, captain = list(state.characters), state.captain
            conflicts = list(state.conflicts)
            sales = {island: slots[1::2] for island, slots in state.sales.items()}
            mutiny = "mutineer" in chars
            strengths = scoring.mutiny_strengths(captain, chars, conflicts)
            won = mutiny and scoring.mutiny_succeeds(*strengths)
            roles = scoring.role_scores(
                captain, chars, state.pay, state.destination, state.mutineer_destination, won
            )
            merchant = scoring.seat_of(chars, "merchant")
            expected = [(seat, p, "role") for seat, p in enumerate(roles) if p]
            for island, counts in sales.items():
                points = scoring.sale_scores(island, counts, merchant)
                expected += [(seat, p, f"island {island}") for seat, p in enumerate(points) if p]
            start = len(state.log)
            end_round()
            logged = [
                (e["seat"], e["points"], e["reason"])
                for e in state.log[start:]
                if e["event"] == "score"
            ]
            assert logged == expected
            fights = [
                (e["captain_strength"], e["mutineer_strength"], e["winner"])
                for e in state.log[start:]
                if e["event"] == "mutiny"
            ]
            assert fights == ([(*strengths, "mutineer" if won else "captain")] if mutiny else [])
            rounds += 1

        state._end_round = checked
        chooser = random.Random(seed)
        while not state.is_over():
            state.apply(chooser.choice(state.legal_actions()))
    assert rounds == 40 * ROUNDS[players]
