"""Manila's books balance: cash moves only through payments the rules define."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.manila import data as D

FIXED = {
    "mortgage": {D.MORTGAGE_VALUE},
    "forced_mortgage": {D.MORTGAGE_VALUE},
    "redeem": {D.REDEEM_COST},
    "insurance": {D.INSURANCE_BONUS},
    "harbour": set(D.HARBOUR_PAY.values()),
    "shipyard": set(D.SHIPYARD_PAY.values()) | set(range(1, 16)),  # bank covers a shortfall
    "insurance_claim": set(range(1, 16)),
    "share": {max(D.MIN_SHARE_PRICE, p) for p in D.PRICE_TRACK},
    "placement": set(D.SPACE_COST.values()) | {c for cs in D.SEAT_COSTS.values() for c in cs},
    "cargo": {D.PROFIT[g] // k for g in D.GOODS for k in range(1, 5)},
    "plunder": {D.PROFIT[g] // k for g in D.GOODS for k in (1, 2)},
}
FROM_BANK = {"mortgage", "forced_mortgage", "insurance", "harbour", "shipyard", "cargo", "plunder"}
TO_BANK = {"redeem", "share", "placement", "harbour_master", "stowaway"}


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(3, 5),
    seed=st.integers(0, 2**31),
    choices=st.integers(0, 2**31),
    variant=st.booleans(),
)
def test_every_peso_moves_by_a_rule(n, seed, choices, variant):
    state = engine.get_game("manila").new_game(n, seed=seed, options={"pirate_variant": variant})
    chooser = random.Random(choices)
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
        assert sum(state.cash) + state.bank == D.START_CASH * n
        assert min(state.cash) >= 0
    cash = [D.START_CASH] * n
    for event in state.log:
        if event["event"] != "pay":
            continue
        payer, payee, amount, reason = (event[k] for k in ("payer", "payee", "amount", "reason"))
        assert amount > 0
        if reason in FROM_BANK:
            assert payer == "bank" and payee != "bank"
        elif reason in TO_BANK:
            assert payee == "bank" and payer != "bank"
        else:  # the insurer pays a repair to a player or to the bank
            assert reason == "insurance_claim" and payer != "bank"
        if reason in FIXED:
            assert amount in FIXED[reason], event
        if payer != "bank":
            cash[payer] -= amount
        if payee != "bank":
            cash[payee] += amount
    assert cash == state.cash
