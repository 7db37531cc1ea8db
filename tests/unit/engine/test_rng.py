"""The core generator: its fast shuffle draws exactly what `below` would.

Replays depend on every draw staying the same, so `Rng.shuffle` (all draws made at
once in lanes of one integer, or one by one written out) is held to a plain
Fisher-Yates over `below`, including the rare rejected draw, which the tests force
by choosing the generator's state, at the first draw and at later ones.
"""

from __future__ import annotations

import pytest

from engine.core import Rng

MASK = (1 << 64) - 1
STEP = 0x9E3779B97F4A7C15


def reference_shuffle(rng: Rng, items: list) -> None:
    for i in range(len(items) - 1, 0, -1):
        j = rng.below(i + 1)
        items[i], items[j] = items[j], items[i]


def _unxorshift(value: int, shift: int) -> int:
    result = value
    for _ in range(64 // shift + 1):
        result = value ^ (result >> shift)
    return result & MASK


def state_before(output: int) -> int:
    """The generator state whose next draw is `output` (splitmix64 run backwards)."""
    z = _unxorshift(output, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & MASK
    z = _unxorshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & MASK
    z = _unxorshift(z, 30)
    return (z - STEP) & MASK


def test_state_before_gives_the_wanted_draw():
    rng = Rng(0)
    rng._x = state_before(12345)
    assert rng._next() == 12345


@pytest.mark.parametrize("seed", [0, 1, 7, 2**63 + 5, 123456789])
@pytest.mark.parametrize("length", [0, 1, 2, 3, 10, 16, 33, 48, 52, 63, 64, 65, 200])
def test_shuffle_draws_as_below_does(seed, length):
    fast, slow = Rng(seed), Rng(seed)
    a, b = list(range(length)), list(range(length))
    fast.shuffle(a)
    reference_shuffle(slow, b)
    assert a == b
    assert fast._x == slow._x  # the same number of draws taken


@pytest.mark.parametrize("length", [3, 5, 6, 7])
def test_a_rejected_draw_is_drawn_again_as_below_does(length):
    # The first draw of a shuffle of `length` items is below(length); 2**64 - 1 lies in
    # the biased top slice for each of these lengths, so it must be rejected.
    assert (1 << 64) % length
    fast, slow = Rng(0), Rng(0)
    fast._x = slow._x = state_before(MASK)
    a, b = list(range(length)), list(range(length))
    fast.shuffle(a)
    reference_shuffle(slow, b)
    assert a == b and fast._x == slow._x
    # and the rejection really happened: one more draw than items - 1
    plain = Rng(0)
    plain._x = state_before(MASK)
    for _ in range(length):  # length - 1 draws plus the rejected one
        plain._next()
    assert plain._x == fast._x


def reference_below(rng: Rng, n: int) -> int:
    """`below` as first written: `_next` until a draw under the largest multiple of n."""
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        r = rng._next()
        if r < limit:
            return r % n


@pytest.mark.parametrize("seed", [0, 3, 2**63 + 11])
@pytest.mark.parametrize("n", [1, 2, 5, 6, 7, 63, 64, 65, 1000, 2**40 + 3])
def test_below_draws_as_the_plain_generator_does(seed, n):
    fast, slow = Rng(seed), Rng(seed)
    assert [fast.below(n) for _ in range(50)] == [reference_below(slow, n) for _ in range(50)]
    assert fast._x == slow._x


@pytest.mark.parametrize("seed", [0, 3, 2**63 + 11])
@pytest.mark.parametrize("sides", [6, 4, 20])
def test_die_is_below_plus_one(seed, sides):
    fast, slow = Rng(seed), Rng(seed)
    assert [fast.die(sides) for _ in range(50)] == [slow.below(sides) + 1 for _ in range(50)]
    assert fast._x == slow._x
    assert Rng(seed).die() == Rng(seed).die(6)


@pytest.mark.parametrize("n", [3, 6, 7])
def test_a_rejected_die_or_below_draw_is_drawn_again(n):
    fast = Rng(0)
    fast._x = state_before(MASK)  # 2**64 - 1: above the limit for these n
    slow = Rng(0)
    slow._x = fast._x
    got = fast.die(n) - 1 if n == 6 else fast.below(n)
    assert got == reference_below(slow, n) and fast._x == slow._x
    plain = Rng(0)
    plain._x = state_before(MASK)
    plain._next()  # the rejected draw
    assert got == plain._next() % n  # the draw after it decides


def test_below_refuses_an_empty_range():
    with pytest.raises(ValueError, match="positive"):
        Rng(1).below(0)


@pytest.mark.parametrize(("length", "below_top"), [(6, 5), (6, 6), (7, 3), (52, 40), (52, 1)])
def test_a_draw_near_the_top_is_taken_or_drawn_again_exactly_as_below_does(length, below_top):
    # The shuffle skips working out a step's own limit for draws under 2**64 - length;
    # the draws at or above that bound (some kept, some rejected) still match `below`.
    fast, slow = Rng(0), Rng(0)
    fast._x = slow._x = state_before((1 << 64) - below_top)
    a, b = list(range(length)), list(range(length))
    fast.shuffle(a)
    reference_shuffle(slow, b)
    assert a == b and fast._x == slow._x


@pytest.mark.parametrize("draw", [0, 5, 32, 62])
@pytest.mark.parametrize("number", [MASK, MASK - 40, MASK - 70])
@pytest.mark.parametrize("length", [34, 48, 63, 64])
def test_a_later_draw_near_the_top_sends_the_shuffle_one_by_one_with_the_same_draws(
    draw, number, length
):
    # Draw number `draw` of the shuffle is `number`: some lengths reject it where it
    # falls (MASK: all but powers of 2), others keep it; MASK - 70 is below every
    # length's limit, so the lanes keep it.
    start = (state_before(number) - draw * STEP) & MASK
    fast, slow = Rng(0), Rng(0)
    fast._x = slow._x = start
    a, b = list(range(length)), list(range(length))
    fast.shuffle(a)
    reference_shuffle(slow, b)
    assert a == b and fast._x == slow._x
