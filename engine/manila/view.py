"""What one seat may know in Manila, and worlds consistent with it.

Hidden information lives here alone: `build` decides what a seat sees, and
`hidden_variant` resamples exactly what `build` leaves out (which goods other
seats were dealt and which of their shares are mortgaged), so the two cannot
drift apart.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from engine.core import Rng
from engine.manila import data as D

if TYPE_CHECKING:
    from engine.manila.state import ManilaState


def build(state: ManilaState, seat: int) -> dict:
    """The JSON view of `seat`: the public board plus its own shares.

    From manila-2 on it also keeps what the seat was shown once in the event log
    and may remember: which shares each seat bought openly, which crew boarded
    as pirates and which boats are being plundered. Records of manila-1 rebuild
    the manila-1 view.
    """
    remembers = state.version != "manila-1"
    boats = []
    position, berth, crews = state.position, state.berth, state.crew
    for g in state.loaded:
        crew = crews[g]
        costs = D.SEAT_COSTS[g]
        free = len(costs) - len(crew)  # `free_seats` and `seat_cost`, written out
        boat = {
            "good": g,
            "position": position.get(g),
            "berth": berth[g],
            "crew": list(crew),
            "free_seats": free,
            "next_seat_cost": costs[len(crew)] if free else None,
            "profit": D.PROFIT[g],
        }
        if remembers:
            boat["boarded"] = list(state.boarded[g])
            boat["plundered"] = g in state.plundered
        boats.append(boat)
    mortgaged = [sum(m.values()) for m in state.mortgaged]
    out = {
        "game": "manila",
        "seat": seat,
        "players": state.num_players,
        "voyage": state.voyage,
        "phase": state.phase,
        "to_move": state.current_player(),
        "harbour_master": state.harbour_master,
        "cash": list(state.cash),
        "prices": {g: D.PRICE_TRACK[i] for g, i in state.prices.items()},
        "supply": dict(state.supply),
        "shares": [sum(h.values()) + m for h, m in zip(state.held, mortgaged, strict=True)],
        "mortgaged": mortgaged,
        "my_shares": dict(state.held[seat]),
        "my_mortgaged": dict(state.mortgaged[seat]),
        "auction": {
            "high_bid": state.high_bid,
            "high_bidder": state.high_bidder,
            "bidding": list(state.auction_active),
        }
        if state.phase == "auction"
        else None,
        "boats": boats,
        "spaces": dict(state.spaces),
        "pirates": list(state.pirates),
        "accomplices": list(state.accomplices),
        "passed": list(state.passed),
        "rolls": state.rolls,
        "dice": dict(state.dice),
        "events": state.events_since_last_decision(seat),
    }
    if remembers:
        out["bought"] = [list(goods) for goods in state.bought]
    return out


def hidden_variant(state: ManilaState, seat: int, seed: int) -> ManilaState:
    """A copy with other seats' dealt goods and mortgaged shares redrawn from `seed`."""
    other = copy.deepcopy(state)
    other.rng = Rng(seed)
    shuffler = Rng(seed ^ 0x5EED)
    others = [s for s in range(state.num_players) if s != seat]
    pool = [g for s in others for g in state.dealt[s]]
    shuffler.shuffle(pool)
    for s in others:
        cards = [pool.pop() for _ in state.dealt[s]]
        other.dealt[s] = cards
        owned = cards + state.bought[s]
        # Which of a seat's shares are mortgaged is secret too; keep the count.
        shuffler.shuffle(owned)
        count = sum(state.mortgaged[s].values())
        other.mortgaged[s] = {g: owned[:count].count(g) for g in D.GOODS}
        other.held[s] = {g: owned[count:].count(g) for g in D.GOODS}
    other._purse = [None] * state.num_players  # the others' shares changed
    other._legal_cache = None
    return other
