"""What one seat may know in Caravelas, and worlds consistent with it.

Hidden information lives here alone: `build` decides what a seat sees, and
`hidden_variant` resamples exactly what `build` leaves out (other hands, the
places on other seats' discovery cards, both piles' order), so the two cannot
drift apart.
"""

from __future__ import annotations

import copy
from itertools import compress
from typing import TYPE_CHECKING

from engine.caravelas import data
from engine.core import Rng

if TYPE_CHECKING:
    from engine.caravelas.state import CaravelasState


# Each movement card value, and its name as a key of the view's `movement_used`.
_MOVEMENT_VALUES = tuple((str(value), value) for value in data.MOVEMENT_DECK)
# The caravel slots in order (a seat's `sunk` flags are kept in this order), and
# whether each discovery card's back is green (1) or yellow (0).
_SLOTS = tuple(data.CARAVEL_SLOTS)
_GREEN = {place: int(colour == data.GREEN) for place, (colour, *_) in data.DISCOVERIES.items()}


def build(state: CaravelasState, seat: int) -> dict:
    """The JSON view of `seat`: the public table plus its own cards."""
    n = state.num_players
    over = state.is_over()
    used = state.used
    out = {
        "game": "caravelas",
        "seat": seat,
        "players": n,
        "turn": state.turn,
        "round": state.round,
        "phase": state.phase,
        "fleets": list(state.pos),
        "scores": list(state.score),
        "discovered": [list(f) for f in state.found],
        "cargo": [list(c) for c in state.cargo],
        "sunk": [list(compress(_SLOTS, state.sunk[s])) for s in range(n)],
        "cubes": dict(state.stock),
        "jeronimos": state.jeronimos,
        "jeronimos_size": state.jeronimos_size,
        "cards_played": state.played if not over else 0,
        "turn_closed": state.closed,
        "end_triggered": state.end_triggered,
        "movement": list(state.hand[seat]),
        "movement_counts": [len(h) for h in state.hand],
        "movement_deck": len(state.deck),
        "movement_used": {key: used.count(value) for key, value in _MOVEMENT_VALUES},
        "discovery_cards": list(state.secret[seat]),
        "discovery_counts": [colour_counts(state, s) for s in range(n)],
        "discovery_pile": len(state.pile),
        "drawn": list(state.drawn) if seat == state.turn else [],
        "drawn_count": len(state.drawn),
        "events": state.events_since_last_decision(seat),
    }
    if state.version == "caravelas-3":
        # The seat saw the cards it put under the pile and knows where they lie
        # until someone draws them: the pile top first, None where it cannot know.
        # (caravelas-1 and -2 forgot them; their records rebuild that view.)
        mine = state.returned[seat]
        pile = state.pile
        if mine:
            known = set(mine)
            out["discovery_pile_known"] = [p if p in known else None for p in pile]
        else:  # most of the time: none of the pile is known to the seat
            out["discovery_pile_known"] = [None] * len(pile)
    return out


def colour_counts(state: CaravelasState, seat: int) -> dict[str, int]:
    """How many green and yellow discovery cards `seat` holds (their backs show it)."""
    secret = state.secret[seat]
    green = sum(map(_GREEN.__getitem__, secret))
    return {"green": green, "yellow": len(secret) - green}


def hidden_variant(state: CaravelasState, seat: int, seed: int) -> CaravelasState:
    """Resample other hands, the drawn cards of others, both piles' order and the rng."""
    other = _copy(state)
    other.rng = Rng(seed)
    shuffler = Rng(seed ^ 0x5EED)
    others = [s for s in range(state.num_players) if s != seat]

    pool = list(other.deck)
    for s in others:
        pool.extend(other.hand[s])
    shuffler.shuffle(pool)
    for s in others:
        size = len(other.hand[s])
        other.hand[s], pool = sorted(pool[:size]), pool[size:]
    other.deck = pool

    # Discovery cards show their colour (green or yellow) on the back.
    by_colour: dict[str, list[str]] = {data.GREEN: [], data.YELLOW: []}
    loose = list(other.pile)
    if other.turn != seat:
        loose.extend(other.drawn)
    for s in others:
        for place in other.secret[s]:
            by_colour[data.DISCOVERIES[place][0]].append(place)
    for cards in by_colour.values():
        shuffler.shuffle(cards)
    for s in others:
        counts = colour_counts(state, s)
        mine = []
        for colour in (data.GREEN, data.YELLOW):
            take = counts[colour]
            mine += by_colour[colour][:take]
            by_colour[colour] = by_colour[colour][take:]
        other.secret[s] = sorted(mine)
    loose += by_colour[data.GREEN] + by_colour[data.YELLOW]
    # The cards `seat` put under the pile stay where it knows they lie.
    known = {i: p for i, p in enumerate(state.pile) if p in state.returned[seat]}
    loose = [p for p in loose if p not in known.values()]
    shuffler.shuffle(loose)
    if other.turn != seat:
        other.drawn, loose = loose[: len(other.drawn)], loose[len(other.drawn) :]
    pile = []
    for i in range(len(state.pile)):
        pile.append(known[i] if i in known else loose.pop())
    other.pile = pile
    # Others remember the pile positions they filled, whatever card now lies there.
    for s in others:
        filled = set(state.returned[s])
        other.returned[s] = [pile[i] for i, p in enumerate(state.pile) if p in filled]
    other._legal_cache = None
    return other


def _copy(state: CaravelasState) -> CaravelasState:
    """An independent copy; logged events are never mutated, so they are shared."""
    other = copy.copy(state)
    for name in ("pos", "score", "used", "deck", "pile", "drawn", "history", "log", "_seen"):
        setattr(other, name, list(getattr(state, name)))
    for name in ("found", "cargo", "sunk", "hand", "secret", "returned"):
        setattr(other, name, [list(x) for x in getattr(state, name)])
    other.stock = dict(state.stock)
    other.options = dict(state.options)
    return other
