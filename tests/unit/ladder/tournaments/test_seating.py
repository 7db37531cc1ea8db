"""Seats: rotations of a set, a whole schedule balanced seat by seat, one table seated."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.tournaments.seating import balance_seats, rotations, seat_counts, seat_table


def test_rotations_put_every_entrant_in_every_seat_once():
    assert rotations(("a", "b", "c"), 3) == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    assert rotations(("a", "b"), 1) == [("a", "b")]


@st.composite
def schedules(draw):
    size = draw(st.integers(2, 5))
    n = draw(st.integers(size, 40))
    count = draw(st.integers(1, 40))
    tables = [
        tuple(draw(st.permutations(range(n)))[:size]) for _ in range(count)
    ]  # any tables at all: balance needs no structure
    return n, size, tables


@settings(max_examples=150, deadline=None)
@given(schedules())
def test_any_schedule_can_be_seated_within_one_of_even(schedule):
    n, size, tables = schedule
    seated = balance_seats(tables, n)
    assert [sorted(t) for t in seated] == [sorted(t) for t in tables]
    for row in seat_counts(seated, n, size):
        assert max(row) - min(row) <= 1


def test_an_empty_schedule_needs_no_seats():
    assert balance_seats([], 5) == []


@settings(max_examples=100, deadline=None)
@given(
    size=st.integers(2, 5),
    counts=st.lists(st.lists(st.integers(0, 4), min_size=5, max_size=5), min_size=5, max_size=5),
)
def test_a_table_takes_the_seats_its_entrants_had_least(size, counts):
    members = list(range(size))
    before = [list(row) for row in counts]
    order = seat_table(members, counts)
    cost = sum(before[e][s] ** 2 for s, e in enumerate(order))
    assert cost == min(
        sum(before[e][s] ** 2 for s, e in enumerate(p)) for p in itertools.permutations(members)
    )
    for seat, e in enumerate(order):
        assert counts[e][seat] == before[e][seat] + 1
