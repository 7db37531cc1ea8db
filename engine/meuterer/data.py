"""Meuterer's fixed numbers: cards, characters, round counts and the island table.

The island table is **house data**: our best transcription of the printed
cards, taken from a public Spanish-edition implementation (Spanish names in
`spanish`) and checked against the one value published elsewhere (a ruby
island paying 6/4/3). The engine reads islands from here and nowhere else, so
the printed numbers can replace these by editing this one table.
"""

from __future__ import annotations

from typing import NamedTuple

ANY = "any"  # what a special island buys: every good
CONFLICT = "conflict"
GOODS = ("ruby", "salt", "wine", "cloth", "grain")
# Canonical card order: hands, views and discard actions list cards this way.
CARDS = (*GOODS, CONFLICT)
DECK = {"ruby": 4, "salt": 5, "wine": 6, "cloth": 7, "grain": 8, CONFLICT: 6}
CARD_RANK = {card: i for i, card in enumerate(CARDS)}

CHARACTERS = ("mutineer", "cabin_boy", "boatswain", "merchant", "stevedore")

HAND_SIZE = 5
STEVEDORE_EXTRA = 3
ROUNDS = {3: 9, 4: 8}
MAX_PROMISE = 3
BOATSWAIN_BONUS = 1  # the boatswain scores the promised pay + 1
BOATSWAIN_STRENGTH = 1  # and adds 1 to the captain's side in a mutiny
CABIN_BOY_POINTS = 2
START_ISLAND = 0


class Island(NamedTuple):
    """One island: what it buys, its navigation value and its sale values.

    `sale` is (sole leader, each of 2 tied, each of 3 or more tied).
    """

    name: str
    spanish: str
    buys: str
    navigation: int
    sale: tuple[int, int, int]


# Clockwise from the start island (house data, see the module docstring).
ISLANDS = (
    Island("Hochland", "Cabo Montañoso", ANY, 5, (4, 3, 2)),
    Island("Frosthöhle", "Caverna Helada", "cloth", 3, (3, 2, 1)),
    Island("Grünland", "Costa Verde", "salt", 4, (5, 3, 2)),
    Island("Karge Zunge", "Lengua Chica", "grain", 4, (6, 3, 2)),
    Island("Eisfelsen", "Roca Helada", "ruby", 5, (6, 4, 3)),
    Island("Affeninsel", "Isla del Mono", "grain", 2, (2, 1, 1)),
    Island("Kalte Klippe", "Despeñafríos", "cloth", 4, (5, 2, 2)),
    Island("Sommerland", "Costa del Sol", "salt", 2, (3, 1, 1)),
    Island("Rotes Riff", "Arrecife Rojo", "wine", 3, (4, 2, 2)),
    Island("Piratennest", "Nido de Piratas", ANY, 5, (4, 3, 2)),
    Island("Fingerhut", "Dedal", "ruby", 2, (2, 1, 0)),
    Island("Sandkap", "Cabo Arenoso", "wine", 3, (4, 2, 1)),
)


def buys(island: int, card: str) -> bool:
    """Whether `island` accepts `card` for sale (never a conflict card)."""
    wanted = ISLANDS[island].buys
    return card != CONFLICT and wanted in (ANY, card)


def sort_cards(cards: list[str]) -> list[str]:
    """Cards in the canonical order of `CARDS`."""
    return sorted(cards, key=CARD_RANK.__getitem__)
