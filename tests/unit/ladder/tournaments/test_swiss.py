"""Swiss for multiplayer tables: tables and byes every round, repeats avoided where possible,
seats rotated, first round seeded by skill or drawn, and tables of similar standing."""

import itertools
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.tournaments import Entrant, Tournament, play
from ladder.tournaments.seating import seat_counts
from tests.unit.ladder.tournaments.helpers import GAME_FOR_SIZE, by_strength


def swiss(n, size, rounds, seed=1, rated=False, noise=3.0):
    entrants = [Entrant(i, float(i), 1.0) if rated else Entrant(i) for i in range(n)]
    t = Tournament(
        GAME_FOR_SIZE[size], entrants, "swiss", table_size=size, rounds=rounds, seed=seed
    )
    results = play(t, by_strength({i: float(i) for i in range(n)}, noise=noise))
    return t, t.schedule(results), results


@settings(max_examples=60, deadline=None)
@given(
    size=st.integers(2, 5),
    n=st.integers(3, 40),
    rounds=st.integers(1, 6),
    seed=st.integers(0, 10**6),
    rated=st.booleans(),
)
def test_every_round_seats_everyone_once_and_byes_go_round(size, n, rounds, seed, rated):
    if n < size:
        return
    _, schedule, _ = swiss(n, size, rounds, seed, rated)
    assert len(schedule) == rounds
    for r in schedule:
        assert len(r.tables) == n // size and len(r.byes) == n % size
        seated = [e for table in r.tables for e in table.entrants] + list(r.byes)
        assert sorted(seated) == list(range(n))
        assert all(len(table.entrants) == size for table in r.tables)
    byes = Counter(e for r in schedule for e in r.byes)
    total = rounds * (n % size)
    # Nobody has a second bye before everyone has had one.
    assert max(byes.values(), default=0) <= -(-total // n)


def repeats(table, met):
    return sum(met[frozenset(pair)] ** 2 for pair in itertools.combinations(table, 2))


def fewest_repeats(players, size, met):
    """The fewest repeat meetings any split of `players` into tables of `size` has."""
    if not players:
        return 0
    first, rest = players[0], players[1:]
    return min(
        repeats((first, *others), met)
        + fewest_repeats([p for p in rest if p not in others], size, met)
        for others in itertools.combinations(rest, size - 1)
    )


@settings(max_examples=100, deadline=None)
@given(size=st.integers(2, 4), n=st.integers(4, 10), seed=st.integers(0, 10**6))
def test_no_round_has_more_repeat_meetings_than_it_must(size, n, seed):
    if n < size:
        return
    _, schedule, _ = swiss(n, size, 4, seed)
    met = Counter()
    for r in schedule:
        players = sorted(e for table in r.tables for e in table.entrants)
        found = sum(repeats(table.entrants, met) for table in r.tables)
        assert found == fewest_repeats(players, size, met)
        for table in r.tables:
            met.update(frozenset(p) for p in itertools.combinations(table.entrants, 2))


def test_large_fields_never_repeat_a_tablemate():
    for size, n in ((3, 30), (4, 40), (5, 40)):
        _, schedule, _ = swiss(n, size, 3)
        pairs = Counter(
            frozenset(p)
            for r in schedule
            for table in r.tables
            for p in itertools.combinations(table.entrants, 2)
        )
        assert max(pairs.values()) == 1, (size, n)


@settings(max_examples=40, deadline=None)
@given(size=st.integers(2, 5), n=st.integers(5, 30), seed=st.integers(0, 10**6))
def test_each_table_takes_the_seats_its_entrants_have_had_least(size, n, seed):
    if n < size:
        return
    _, schedule, _ = swiss(n, size, 4, seed)
    for k in range(1, len(schedule)):
        before = [m.seats for r in schedule[:k] for m in r.matches]
        counts = seat_counts(before, n, size)
        for table in schedule[k].tables:
            cost = sum(counts[e][s] ** 2 for s, e in enumerate(table.entrants))
            best = min(
                sum(counts[e][s] ** 2 for s, e in enumerate(order))
                for order in itertools.permutations(table.entrants)
            )
            assert cost == best


def test_first_round_with_ratings_deals_one_entrant_of_every_tier_to_each_table():
    # 16 rated entrants at tables of 4: tiers 15-12, 11-8, 7-4, 3-0.
    _, schedule, _ = swiss(16, 4, 1, rated=True)
    for table in schedule[0].tables:
        assert sorted(e // 4 for e in table.entrants) == [0, 1, 2, 3]


def test_first_round_without_ratings_is_drawn_from_the_seed():
    def first(seed):
        _, schedule, _ = swiss(12, 3, 1, seed=seed)
        return {frozenset(table.entrants) for table in schedule[0].tables}

    assert first(1) == first(1)
    assert first(1) != first(2)


def test_winners_meet_winners():
    # Without noise the strongest wins every table: round 1's four winners (the top tier)
    # share a table in round 2, its runners-up the next, and so on down.
    _, schedule, _ = swiss(16, 4, 2, rated=True, noise=0.0)
    tiers = {frozenset(range(low, low + 4)) for low in (0, 4, 8, 12)}
    assert {frozenset(table.entrants) for table in schedule[1].tables} == tiers


def test_the_bye_goes_to_the_lowest_standing_entrant_without_one():
    t, schedule, results = swiss(7, 3, 3, rated=True, noise=0.0)
    assert schedule[0].byes == (0,)  # the lowest seed
    byes = [r.byes[0] for r in schedule]
    assert len(set(byes)) == 3
    standing = [line.entrant for line in t.standings(results)]
    assert standing[0] == 6
