"""The house island table and the deck keep the shape the rules digest gives them."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.meuterer.data import ANY, CHARACTERS, CONFLICT, DECK, GOODS, ISLANDS, ROUNDS, buys


def test_deck_has_36_cards_with_the_digest_counts():
    assert DECK == {"ruby": 4, "salt": 5, "wine": 6, "cloth": 7, "grain": 8, CONFLICT: 6}
    assert sum(DECK.values()) == 36


def test_each_good_is_bought_by_a_rich_and_a_poor_island_and_two_buy_anything():
    bought = Counter(island.buys for island in ISLANDS)
    assert bought == {**{good: 2 for good in GOODS}, ANY: 2}
    for good in GOODS:
        # The wine pair differs only in the 3-tied value (4/2/2 against 4/2/1).
        rich, poor = sorted((i.sale for i in ISLANDS if i.buys == good), reverse=True)
        assert rich > poor and all(r >= p for r, p in zip(rich, poor, strict=True))


def test_sale_values_never_rise_with_more_tied_players():
    for island in ISLANDS:
        sole, two, more = island.sale
        assert sole >= two >= more >= 0


@pytest.mark.parametrize(
    ("island", "card", "expected"),
    [
        (0, "ruby", True),  # Hochland buys anything
        (0, "grain", True),
        (9, "wine", True),  # so does Piratennest
        (0, CONFLICT, False),  # a conflict card never sells
        (4, "ruby", True),
        (4, "salt", False),
        (1, "cloth", True),
        (1, "wine", False),
    ],
)
def test_which_island_buys_which_card(island, card, expected):
    assert buys(island, card) is expected


def test_five_characters_and_rounds_by_player_count():
    assert CHARACTERS == ("mutineer", "cabin_boy", "boatswain", "merchant", "stevedore")
    assert ROUNDS == {3: 9, 4: 8}


def test_the_one_published_value_matches_the_ruby_rich_island():
    assert ISLANDS[4].buys == "ruby" and ISLANDS[4].sale == (6, 4, 3)
