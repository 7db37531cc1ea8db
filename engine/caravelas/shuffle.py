"""`Rng.shuffle` for Caravelas' card piles: the same draws, the same order, less time.

The used movement cards are reshuffled some 65 times in a random game of four,
about a tenth of a playout's time, and `determinize` shuffles every hidden pile.
`Rng.shuffle` draws one splitmix64 number per card, a dozen operations on 64-bit
integers each. Every draw of a shuffle is known in advance (the generator's
state only steps by a constant), so here all of them are made at once: one
integer holds each draw's state in a 128-bit lane, and each step of the mixing is
one operation on that whole integer (a product of a 64-bit lane and a 64-bit
constant fits in its lane; a shift's spill into the next lane is masked off).
The lanes are read back as 64-bit numbers through `array`, and only the swaps
are left to a loop. A draw `Rng` would reject (odds n in 2**64; found by one
addition that overflows such a lane) sends the whole shuffle to `Rng.shuffle`
before anything moved, so the draws stay the same.
"""

from __future__ import annotations

import sys
from array import array

from engine.core import Rng

_MASK = (1 << 64) - 1
_STEP, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_LANE = 128
# Piles up to this size go through the lanes: the movement deck (48) is the largest.
MAX_ITEMS = 48
# Per number of draws m: each lane's low 64 bits set; lane k holding (k + 1) steps;
# a 1 in each lane (times a state, that state in every lane).
_LOW = [sum(_MASK << (_LANE * k) for k in range(m)) for m in range(MAX_ITEMS)]
_STEPS = [sum(((k + 1) * _STEP & _MASK) << (_LANE * k) for k in range(m)) for m in range(MAX_ITEMS)]
_ONES = [sum(1 << (_LANE * k) for k in range(m)) for m in range(MAX_ITEMS)]
_BIG_ENDIAN = sys.byteorder == "big"  # the lanes are written little-endian
# `Rng.below(n)` rejects draws from 2**64 - 2**64 % n up, never below this for n <= 48.
_FIRST_REJECTED = min((1 << 64) - (1 << 64) % n for n in range(2, MAX_ITEMS + 1))
# Per number of draws: what a lane from _FIRST_REJECTED up overflows into bit 64 with,
# in every lane, and bit 64 of every lane (a check of all draws in two operations).
_TO_OVERFLOW = [((1 << 64) - _FIRST_REJECTED) * ones for ones in _ONES]
_OVERFLOWS = [ones << 64 for ones in _ONES]


def shuffle(rng: Rng, items: list) -> None:
    """`rng.shuffle(items)`: Fisher-Yates with `below(i + 1)` for i from the top down."""
    size = len(items)
    draws = size - 1
    if draws < 1 or size > MAX_ITEMS:
        rng.shuffle(items)
        return
    x, low = rng._x, _LOW[draws]
    states = (x * _ONES[draws] + _STEPS[draws]) & low
    mixed = ((states ^ (states >> 30)) & low) * _MIX1 & low
    mixed = ((mixed ^ (mixed >> 27)) & low) * _MIX2 & low
    mixed = (mixed ^ (mixed >> 31)) & low
    if (mixed + _TO_OVERFLOW[draws]) & _OVERFLOWS[draws]:
        rng.shuffle(items)  # a draw `Rng` rejects, or might: its own way
        return
    numbers = array("Q", mixed.to_bytes(_LANE // 8 * draws, "little"))[:: _LANE // 64]
    if _BIG_ENDIAN:
        numbers.byteswap()
    n = size
    for r in numbers:
        j = r % n
        n -= 1
        items[n], items[j] = items[j], items[n]
    rng._x = (x + draws * _STEP) & _MASK
