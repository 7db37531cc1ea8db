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
    """Send unberthed boats to the shipyards and pay every profit of the voyage.

    The bank's payments A-C are written out (`_transfer` for each, the events in
    the same order): every voyage ends here, so a playout pays this at each.
    """
    loaded, berth, events = state.loaded, state.berth, state._events
    for good in loaded:
        if berth[good] is None:
            berth[good] = where = state._next_free(D.SHIPYARDS)
            events.append((E.GOOD_BERTH, "to_shipyard", good, where))
    cash, plundered = state.cash, state.plundered
    paid = 0  # what the bank pays out in A-C
    # A. Pirates still on the pirate ship share each plundered boat's profit.
    for good in plundered:
        paid += _split(cash, events, D.PROFIT[good], state.pirates, "plunder")
    # B. A docked boat pays its crew; one share per accomplice.
    for good in loaded:
        if berth[good] in D.HARBOURS and good not in plundered:
            paid += _split(cash, events, D.PROFIT[good], state.crew[good], "cargo")
    # C. A harbour space pays from the bank when a boat lies at its berth.
    filled = berth.values()
    spaces = state.spaces
    for space in D.HARBOURS:
        holder = spaces[space]
        if holder is not None and space in filled:
            pay = D.HARBOUR_PAY[space]
            cash[holder] += pay
            paid += pay
            events.append((E.PAY, "pay", "bank", holder, pay, "harbour"))
    state.bank -= paid
    _pay_shipyards(state)


def fortune(state: ManilaState, seat: int) -> int:
    """Cash + unmortgaged shares at market price − 15 per mortgaged share."""
    worth = sum(state.held[seat][g] * D.PRICE_TRACK[state.prices[g]] for g in D.GOODS)
    owed = D.REDEEM_COST * sum(state.mortgaged[seat].values())
    return state.cash[seat] + worth - owed


def _split(cash: list[int], events: list, profit: int, takers: list[int], reason: str) -> int:
    """Split a boat's profit equally (integer pesos), paid by the bank; the remainder
    stays in the bank. Returns what the bank paid."""
    if not takers:
        return 0
    each = profit // len(takers)
    for seat in takers:
        cash[seat] += each
        events.append((E.PAY, "pay", "bank", seat, each, reason))
    return each * len(takers)


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
