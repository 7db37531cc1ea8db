"""Manila's scoring: the profits at the end of each voyage, and fortunes at the end.

A voyage ends with berths for boats still at sea, then profits paid in the
rule's order A-D; the game ends with each seat's fortune.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.manila import data as D
from engine.manila import events as E

if TYPE_CHECKING:
    from engine.manila.state import ManilaState


def settle(state: ManilaState) -> None:
    """Send unberthed boats to the shipyards and pay every profit of the voyage."""
    for good in state.loaded:
        if state.berth[good] is None:
            state.berth[good] = where = state._next_free(D.SHIPYARDS)
            state._events.append((E.GOOD_BERTH, "to_shipyard", good, where))
    _pay_pirates(state)
    _pay_crews(state)
    _pay_harbours(state)
    _pay_shipyards(state)


def fortune(state: ManilaState, seat: int) -> int:
    """Cash + unmortgaged shares at market price − 15 per mortgaged share."""
    worth = sum(state.held[seat][g] * D.PRICE_TRACK[state.prices[g]] for g in D.GOODS)
    owed = D.REDEEM_COST * sum(state.mortgaged[seat].values())
    return state.cash[seat] + worth - owed


def _split(state: ManilaState, good: str, takers: list[int], reason: str) -> None:
    """Split a boat's profit equally (integer pesos); the remainder stays in the bank."""
    if not takers:
        return
    each = D.PROFIT[good] // len(takers)
    for seat in takers:
        state._transfer("bank", seat, each, reason)


def _pay_pirates(state: ManilaState) -> None:
    # A. Pirates still on the pirate ship share each plundered boat's profit.
    for good in state.plundered:
        _split(state, good, list(state.pirates), "plunder")


def _pay_crews(state: ManilaState) -> None:
    # B. A docked boat pays its crew; one share per accomplice.
    for good in state.loaded:
        if state.berth[good] in D.HARBOURS and good not in state.plundered:
            _split(state, good, state.crew[good], "cargo")


def _pay_harbours(state: ManilaState) -> None:
    # C. A harbour space pays from the bank when a boat lies at its berth.
    filled = set(state.berth.values())
    for space in D.HARBOURS:
        holder = state.spaces[space]
        if space in filled and holder is not None:
            state._transfer("bank", holder, D.HARBOUR_PAY[space], "harbour")


def _pay_shipyards(state: ManilaState) -> None:
    # D. Shipyards with a boat pay from the insurer, or from the bank without one.
    filled = set(state.berth.values())
    insurer = state.spaces["insurance"]
    claims: list[tuple[object, int]] = []
    for space in D.SHIPYARDS:
        if space not in filled:
            continue
        holder = state.spaces[space]
        value = D.SHIPYARD_PAY[space]
        if insurer is None:
            if holder is not None:
                state._transfer("bank", holder, value, "shipyard")
        elif holder is None:
            claims.append(("bank", value))  # the insurer pays the repair to the bank
        elif holder != insurer:  # an insurer never pays himself
            claims.append((holder, value))
    if insurer is None or not claims:  # only an insurer has claims to pay
        return
    # He has collected his own profits already (A-C); now he mortgages if short,
    # pays what he has, and the bank covers what he cannot pay the players.
    state._raise_cash(insurer, sum(amount for _, amount in claims))
    for payee, amount in claims:
        paid = min(amount, state.cash[insurer])
        state._transfer(insurer, payee, paid, "insurance_claim")
        if payee != "bank" and paid < amount:
            state._transfer("bank", payee, amount - paid, "shipyard")
