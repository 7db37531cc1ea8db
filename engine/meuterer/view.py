"""What one seat may know in Meuterer, and worlds consistent with it.

Hidden information lives here alone: `build` decides what a seat sees, and
`hidden_variant` resamples exactly what `build` leaves out (other hands, deck
order, unrevealed characters), so the two cannot drift apart.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from engine.core import Rng
from engine.meuterer.data import CARDS, CHARACTERS, ISLANDS, sort_cards

if TYPE_CHECKING:
    from engine.meuterer.state import MeutererState

# Each island's facts, as a view shows them (its sale values made a fresh list each time).
_ISLAND_FACTS = tuple(
    (i, island.name, island.buys, island.navigation, island.sale)
    for i, island in enumerate(ISLANDS)
)


def build(state: MeutererState, seat: int) -> dict:
    """The JSON view of `seat`: public table plus its own hand and character.

    Every list and dict in it is new: the caller may keep or edit it.
    """
    active = state.active
    choosing = state.phase == "character" and state.turn == seat
    seen = state.seen_available[seat]
    if choosing:
        offered = list(state.available)
    elif seen is not None and state.version != "meuterer-1":
        # Once chosen, the seat keeps what it was shown until the round ends
        # (meuterer-1 forgot it; its records rebuild that view).
        offered = list(seen)
    else:
        offered = None
    discards = state.discards
    return {
        "game": "meuterer",
        "seat": seat,
        "players": state.num_players,
        "round": state.round,
        "rounds": state.rounds,
        "phase": state.phase,
        "current_player": state.current_player(),
        "captain": state.captain,
        "promise": state.pay,
        "ship": state.ship,
        "islands": [
            {
                "island": i,
                "name": name,
                "buys": buys,
                "navigation": navigation,
                "sale": [*sale],
                "active": i in active,
            }
            for i, name, buys, navigation, sale in _ISLAND_FACTS
        ],
        "hand": sort_cards(state.hands[seat]),
        "hand_sizes": [len(hand) for hand in state.hands],
        "passed": list(state.passed),
        "reserved": list(state.reserved),
        # A card on the table is kept as a tuple of these values, in this order.
        "table": [
            {"seat": at, "card": card, "island": island, "stage": stage}
            for at, card, island, stage in state.table
        ],
        "conflicts": list(state.conflicts),
        "destination": state.destination,
        "mutineer_destination": state.mutineer_destination,
        "character": state.characters[seat],
        "available_characters": offered,
        "characters": list(state.characters) if state.revealed else None,
        "mutiny": dict(state.mutiny_result) if state.mutiny_result else None,
        "scores": list(state.scores),
        "deck": len(state.deck),
        "discards": {card: discards.count(card) for card in CARDS},
        "events": state.events_since_last_decision(seat),
    }


def hidden_variant(state: MeutererState, seat: int, seed: int) -> MeutererState:
    """A copy with everything `seat` cannot see redrawn from a new `Rng(seed)`."""
    variant = copy.deepcopy(state)
    variant.rng = Rng(seed)
    variant._legal_cache = None
    _redeal(variant, seat)
    if not variant.revealed:
        _recast(variant, seat)
    return variant


def _redeal(variant: MeutererState, seat: int) -> None:
    """Pool the deck and other hands, shuffle, deal back the same counts."""
    others = [k for k in range(variant.num_players) if k != seat]
    pool = list(variant.deck)
    for k in others:
        pool.extend(variant.hands[k])
    variant.rng.shuffle(pool)
    for k in others:
        size = len(variant.hands[k])
        variant.hands[k], pool = pool[:size], pool[size:]
    variant.deck = pool


def _recast(variant: MeutererState, seat: int) -> None:
    """Reassign unrevealed characters consistently with what `seat` has seen.

    Those who chose before `seat` hold exactly what `seat` did not see offered;
    those after it hold any of what it saw, bar its own.
    """
    order = variant.choice_order
    if seat in order:
        mine = order.index(seat)
        seen = variant.seen_available[seat]
        assert seen is not None  # a seat that chose saw what it chose from
        before, after = order[:mine], order[mine + 1 :]
        before_pool = [c for c in CHARACTERS if c not in seen]
        after_pool = [c for c in seen if c != variant.characters[seat]]
    elif variant.phase == "character" and variant.turn == seat:
        before, after = order, []
        before_pool = [c for c in CHARACTERS if c not in variant.available]
        after_pool = []
    else:
        before, after = [], order
        before_pool, after_pool = [], list(CHARACTERS)
    variant.rng.shuffle(before_pool)
    variant.rng.shuffle(after_pool)
    for k, name in zip(before, before_pool, strict=True):
        variant.characters[k] = name
    for k, name in zip(after, after_pool, strict=False):
        variant.characters[k] = name
    available = list(CHARACTERS)
    for k in order:
        variant.seen_available[k] = tuple(available)
        held = variant.characters[k]
        assert held is not None  # every seat in the order of choice holds one
        available.remove(held)
    variant.available = available
