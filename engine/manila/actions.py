"""Manila's action dicts, made once at import: legal lists are built from these.

A legal list is a few list operations on shared dicts instead of a dict built per
action per decision. Every action is a read-only `SharedAction`, those that hold a
list or a dict (loads, starts, pilot moves) read-only all the way down, so
`legal_actions()` hands them out as they are in a fresh list. The history keeps
the engine's own action and a record copies it. Actions rarely offered (an
eviction, a bid above the table) are built when asked for.
"""

from __future__ import annotations

from itertools import combinations, compress, product

from engine.core import SharedAction, shared
from engine.manila import data as D

PASS: dict = SharedAction(type="pass")
STAY: dict = SharedAction(type="stay")

# Every bid up to this amount is made once; a higher one (a seat with more than
# this to raise) is built when offered.
BID_TABLE = 400
BIDS: list[dict] = [SharedAction(type="bid", amount=a) for a in range(BID_TABLE)]

BUY = {g: SharedAction(type="buy", good=g) for g in D.GOODS}
MORTGAGE = {g: SharedAction(type="mortgage", good=g) for g in D.GOODS}
REDEEM = {g: SharedAction(type="redeem", good=g) for g in D.GOODS}
# In the order of GOODS, as the legal list offers them (and as a seat's shares are kept).
MORTGAGES = tuple(MORTGAGE.values())
REDEEMS = tuple(REDEEM.values())


BITS = tuple(1 << i for i in range(16))  # enough for every table below


def _subsets(items: tuple[dict, ...]) -> tuple[tuple[dict, ...], ...]:
    """For each bit mask over `items` (bit i: item i), the items it names, in order."""
    return tuple(
        tuple(item for i, item in enumerate(items) if mask >> i & 1)
        for mask in range(1 << len(items))
    )


def mask(flags) -> int:
    """The bit mask of the true (non-zero) values among `flags`: bit i for the i-th."""
    return sum(compress(BITS, flags))


GOOD_BIT = {good: 1 << i for i, good in enumerate(D.GOODS)}
# The mortgages (redemptions) offered to a seat, by the mask of the goods it holds
# unmortgaged (mortgaged) over GOODS.
MORTGAGE_SETS = _subsets(MORTGAGES)
REDEEM_SETS = _subsets(REDEEMS)

LOADS = [shared({"type": "load", "goods": list(trio)}) for trio in combinations(D.GOODS, 3)]

PLACE_BOAT = {g: SharedAction(type="place", space="boat", good=g) for g in D.GOODS}
# Placements on the spaces other than boat seats, in the order of SPACES (as offered).
PLACE_SPACE = tuple(SharedAction(type="place", space=space) for space in D.SPACES)
PIRATE_AT = D.SPACES.index("pirate")  # a state keeps the other spaces in this order
PIRATE_BIT = 1 << PIRATE_AT
SPACE_BIT = {space: 1 << i for i, space in enumerate(D.SPACES)}
# Every space free (a voyage's start), as a mask over SPACES.
ALL_SPACES = (1 << len(D.SPACES)) - 1
# The placements on the free spaces, by the mask of the free ones over SPACES.
SPOTS = _subsets(PLACE_SPACE)
DEAREST_SPACE = max(D.SPACE_COST.values())
# For a seat that can raise less than the dearest space: the mask of those it can afford.
AFFORDABLE = tuple(
    mask(D.SPACE_COST[space] <= cap for space in D.SPACES) for cap in range(DEAREST_SPACE)
)

# Boarding a boat with a free seat, and sending a plundered boat to a harbour or shipyard.
BOARD = {g: SharedAction(type="board", good=g) for g in D.GOODS}
PLUNDER: dict[str, list[dict]] = {
    g: [SharedAction(type="plunder", good=g, to=to) for to in ("harbour", "shipyard")]
    for g in D.GOODS
}

# Pilot moves: none, one boat by (good, steps), or two boats by ((good, ±1), (good, ±1)).
PILOT_NONE: dict = shared({"type": "pilot", "moves": []})
PILOT_ONE: dict[tuple, dict] = {
    (g, s): shared({"type": "pilot", "moves": [{"good": g, "steps": s}]})
    for g in D.GOODS
    for s in (1, -1, 2, -2)
}
PILOT_TWO: dict[tuple, dict] = {
    ((g1, s1), (g2, s2)): shared(
        {"type": "pilot", "moves": [{"good": g1, "steps": s1}, {"good": g2, "steps": s2}]}
    )
    for g1 in D.GOODS
    for g2 in D.GOODS
    if g1 != g2
    for s1 in (1, -1)
    for s2 in (1, -1)
}


def pilot_moves(large: bool, boats: tuple[tuple[str, int], ...]) -> list[dict]:
    """A pilot's moves for the boats at sea, given as (good, position) in the order loaded.

    One boat one space either way (never below space 0); the large pilot may also
    move one boat two spaces, or two boats one space each.
    """
    singles = [(g, s) for g, pos in boats for s in (1, -1) if pos + s >= 0]
    acts: list[dict] = [PILOT_NONE]
    acts += [PILOT_ONE[move] for move in singles]
    if large:
        acts += [PILOT_ONE[(g, s)] for g, pos in boats for s in (2, -2) if pos + s >= 0]
        acts += [PILOT_TWO[pair] for pair in combinations(singles, 2) if pair[0][0] != pair[1][0]]
    return acts


# Every pilot's moves, by (large, boats at sea): positions above 2 offer what 2 offers,
# so a boat's position is kept as at most 2 (`pilot_moves` gives the same list).
PILOTS = {
    (large, tuple(zip(goods, places, strict=True))): pilot_moves(
        large, tuple(zip(goods, places, strict=True))
    )
    for large in (False, True)
    for k in range(len(D.GOODS) + 1)
    for goods in combinations(D.GOODS, k)
    for places in product(range(3), repeat=k)
}

# What the harbour master pays for a share, by the step of its price: the price, at least 5.
SHARE_COST = tuple(max(D.MIN_SHARE_PRICE, price) for price in D.PRICE_TRACK)


def bids(low: int, high: int) -> list[dict]:
    """Pass, then the bids from `low` to `high` pesos, in order (a new list)."""
    if high < BID_TABLE:
        return [PASS, *BIDS[low : high + 1]]
    more = [SharedAction(type="bid", amount=a) for a in range(max(low, BID_TABLE), high + 1)]
    return [PASS, *BIDS[low:], *more]


def _starts(loaded: tuple[str, ...]) -> list[dict]:
    a, b, c = loaded
    acts = []
    for pa in range(D.START_MAX + 1):
        for pb in range(D.START_MAX + 1):
            pc = D.START_SUM - pa - pb
            if 0 <= pc <= D.START_MAX:
                acts.append(shared({"type": "start", "positions": {a: pa, b: pb, c: pc}}))
    return acts


# Loading offers the goods in the order of GOODS, so these are the trios a voyage has.
STARTS: dict[tuple[str, ...], list[dict]] = {
    trio: _starts(trio) for trio in combinations(D.GOODS, 3)
}


def starts(loaded: list[str]) -> list[dict]:
    """Every way to start the loaded boats: positions 0-5 summing to 9."""
    trio = tuple(loaded)
    known = STARTS.get(trio)
    return known if known is not None else _starts(trio)
