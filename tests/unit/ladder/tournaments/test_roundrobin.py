"""Round robin: every default schedule for 3..40 entrants at tables of 2..5 checked for the
balance the module promises (tables, seats, pairs), other lengths for tables and seats."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.tournaments import roundrobin
from ladder.tournaments.roundrobin import (
    LONGER,
    UNBALANCED,
    balance_figures,
    check_length,
    default_length,
    fewest,
    schedule,
)

FIELDS = [(n, t) for t in range(2, 6) for n in range(max(3, t), 41)]


def check_rounds(rounds, n, size, k):
    """Tables of `size`, nobody twice in a round, full rounds but the last, sitting out even."""
    per_round = n // size
    assert len(rounds) == math.ceil(n * k // size / per_round)
    played = [0] * n
    for i, tables in enumerate(rounds):
        assert len(tables) == per_round or (i == len(rounds) - 1 and 0 < len(tables) < per_round)
        seated = [e for table in tables for e in table]
        assert len(set(seated)) == len(seated) and all(len(t) == size for t in tables)
        for e in seated:
            played[e] += 1
        assert max(played) - min(played) <= 1
    assert played == [k] * n


@pytest.mark.slow
@pytest.mark.parametrize(("n", "size"), FIELDS)
def test_default_schedule_is_balanced_as_documented(n, size):
    k = default_length(n, size)
    rounds = schedule(n, size, k)
    check_rounds(rounds, n, size, k)
    figures = balance_figures(rounds, n, size)
    assert figures["tables"] == (k, k)
    assert figures["seat_spread"] <= 1
    lam = k * (size - 1) / (n - 1)
    if (n, size) in UNBALANCED:
        assert figures["pairs"] == UNBALANCED[(n, size)]
    else:
        low, high = figures["pairs"]
        assert low >= 1 and high - low <= 1 and math.floor(lam) <= low <= high <= math.ceil(lam)
    if size == 2:
        assert figures["pairs"] == (1, 1)


def test_the_documented_counts():
    assert len(FIELDS) == 149 and len(UNBALANCED) == 47
    assert all((n, t) not in UNBALANCED for n, t in LONGER)
    for (n, t), steps in LONGER.items():
        assert 1 <= steps <= 3 and default_length(n, t) <= 1.5 * fewest(n, t)


@pytest.mark.parametrize(
    ("n", "size", "k"),
    [
        (10, 2, 9),  # every pair once
        (9, 2, 8),  # odd: one sits out each of 9 rounds
        (9, 3, 4),  # the affine plane of order 3
        (15, 3, 7),  # Kirkman's schoolgirls
        (16, 4, 5),  # the affine plane of order 4
        (10, 3, 6),  # 9/2 rounded up to what 3 | 10·k allows
        (10, 4, 4),  # 3 rounded up to an even number
        (12, 3, 7),  # one step longer than k0 = 6: balanced there
    ],
)
def test_default_lengths(n, size, k):
    assert default_length(n, size) == k


@pytest.mark.parametrize(
    ("n", "size", "k", "message"),
    [
        (10, 4, 3, "multiple of 2"),
        (10, 3, 0, "positive multiple of 3"),
        (2, 3, 1, "cannot fill a table"),
        (10, 6, 1, "2 to 5"),
    ],
)
def test_impossible_lengths_are_refused(n, size, k, message):
    with pytest.raises(ValueError, match=message):
        check_length(n, size, k)


@settings(max_examples=25, deadline=None)
@given(size=st.integers(2, 5), n=st.integers(3, 24), cycles=st.integers(1, 3))
def test_any_length_gives_equal_tables_and_balanced_seats(size, n, cycles):
    if n < size:
        return
    k = cycles * size // math.gcd(n, size)
    rounds = schedule(n, size, k)
    check_rounds(rounds, n, size, k)
    assert balance_figures(rounds, n, size)["seat_spread"] <= 1


def test_the_schedule_depends_on_n_t_and_k_alone():
    fresh = roundrobin._schedule.__wrapped__(13, 3, 9)
    assert fresh == schedule(13, 3, 9)
