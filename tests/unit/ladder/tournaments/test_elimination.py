"""Elimination: the plan of every round, advancing the right entrants, seeds kept apart
until late, the bracket as plain data, and standings by the round reached."""

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.tournaments import Entrant, Tournament, play
from ladder.tournaments.elimination import Stage, advancing, deal, plan
from tests.unit.ladder.tournaments.helpers import by_strength

RANGES = {"caravelas": (2, 4), "manila": (3, 5), "meuterer": (3, 4)}


@pytest.mark.parametrize("game", sorted(RANGES))
def test_every_plan_flows_from_all_entrants_to_one_playable_final(game):
    low, high = RANGES[game]
    for size in range(low, high + 1):
        for k in range(1, size):
            for n in range(low, 65):
                stages = plan(n, size, k, low, high)
                entrants = n
                for stage in stages[:-1]:
                    assert entrants > size
                    assert all(
                        s in (size - 1, size, size + 1) and low <= s <= high for s in stage.sizes
                    )
                    assert sum(stage.sizes) + stage.byes == entrants
                    after = stage.byes + sum(advancing(s, k) for s in stage.sizes)
                    assert after < entrants
                    entrants = after
                (final,) = stages[-1].sizes
                assert final == entrants and stages[-1].byes == 0
                assert low <= final <= size or final == size + 1 <= high, (n, size, k, stages)


@pytest.mark.parametrize(
    ("n", "size", "k", "low", "high", "expected"),
    [
        # Two players a table: the classic bracket, byes in round one only.
        (10, 2, 1, 2, 4, [((2,) * 2, 6), ((2,) * 4, 0), ((2,) * 2, 0), ((2,), 0)]),
        (16, 2, 1, 2, 4, [((2,) * 8, 0), ((2,) * 4, 0), ((2,) * 2, 0), ((2,), 0)]),
        # Threes, one advancing: 27 → 9 → 3.
        (27, 3, 1, 3, 5, [((3,) * 9, 0), ((3,) * 3, 0), ((3,), 0)]),
        # 10 at threes: every table removes two, so one table of four makes the final three.
        (10, 3, 1, 3, 4, [((3, 3, 4), 0), ((3,), 0)]),
        # Fours, two advancing: 16 → 8 → 4; 10 gets six byes and one table in round one.
        (16, 4, 2, 3, 5, [((4,) * 4, 0), ((4,) * 2, 0), ((4,), 0)]),
        (10, 4, 2, 3, 5, [((4,), 6), ((4,) * 2, 0), ((4,), 0)]),
        # Fewer entrants than a table: one final.
        (3, 4, 2, 3, 5, [((3,), 0)]),
    ],
)
def test_known_plans(n, size, k, low, high, expected):
    assert plan(n, size, k, low, high) == [Stage(sizes, byes) for sizes, byes in expected]


@pytest.mark.parametrize(
    ("args", "message"),
    [((2, 3, 1, 3, 5), "cannot fill a table"), ((9, 3, 3, 3, 5), "1 ≤ k < 3")],
)
def test_impossible_plans_are_refused(args, message):
    with pytest.raises(ValueError, match=message):
        plan(*args)


def test_deal_gives_byes_to_the_best_seeds_and_snakes_the_rest():
    tables, byes = deal(list(range(11)), Stage((3, 3, 3), 2))
    assert byes == [0, 1]
    assert tables == [[2, 7, 8], [3, 6, 9], [4, 5, 10]]


def rated(n):
    """n entrants rated by their number (the higher the stronger), strength the same."""
    return [Entrant(i, float(i), 0.0) for i in range(n)], {i: float(i) for i in range(n)}


@settings(max_examples=60, deadline=None)
@given(
    game=st.sampled_from(sorted(RANGES)),
    n=st.integers(2, 40),
    data=st.data(),
    duplicate=st.booleans(),
    noise=st.sampled_from([0.0, 2.0, 10.0]),
)
def test_the_top_k_of_every_table_and_the_byes_advance(game, n, data, duplicate, noise):
    low, high = RANGES[game]
    if n < low:
        return
    size = data.draw(st.integers(low, high))
    k = data.draw(st.integers(1, size - 1))
    entrants, strength = rated(n)
    t = Tournament(game, entrants, "elimination", table_size=size, advance=k, duplicate=duplicate)
    results = play(t, by_strength(strength, noise=noise))
    rounds = t.schedule(results)
    assert len(rounds) == len(t.plan)
    for before, after in pairwise(rounds):
        going = set(before.byes)
        for table in before.tables:
            going |= set(t.table_places(table, results)[: advancing(len(table.entrants), k)])
        playing = {e for table in after.tables for e in table.entrants} | set(after.byes)
        assert playing == going
    assert len(rounds[-1].tables) == 1 and not rounds[-1].byes


@pytest.mark.parametrize(("n", "size", "k"), [(16, 4, 2), (27, 3, 1), (32, 2, 1), (12, 4, 2)])
def test_the_strongest_meet_only_in_the_final_when_the_strongest_always_win(n, size, k):
    entrants, strength = rated(n)
    t = Tournament("manila" if size > 2 else "caravelas", entrants, "elimination",
                   table_size=size, advance=k)  # fmt: skip
    results = play(t, by_strength(strength))
    final = t.schedule(results)[-1].tables[0]
    assert sorted(final.entrants) == list(range(n - size, n))
    standings = [line.entrant for line in t.standings(results)]
    assert standings[:size] == list(range(n - 1, n - size - 1, -1))


def test_seeding_without_ratings_is_drawn_from_the_seed():
    def first(seed):
        t = Tournament("manila", list(range(16)), "elimination", table_size=4, seed=seed)
        return [frozenset(table.entrants) for table in t.schedule()[0].tables]

    assert first(1) == first(1) and first(1) != first(2)


def test_bracket_is_plain_data_from_the_plan_then_filled_in():
    entrants, strength = rated(10)
    t = Tournament("manila", entrants, "elimination", table_size=4, advance=2)
    empty = t.bracket()
    assert [(r["round"], r["final"], r["byes"]) for r in empty] == [
        (1, False, [9, 8, 7, 6, 5, 4]),
        (2, False, 0),
        (3, True, 0),
    ]
    assert [[table["size"] for table in r["tables"]] for r in empty] == [[4], [4, 4], [4]]
    assert empty[1]["tables"][0] == {
        "table": 1, "size": 4, "entrants": [], "places": None, "advancing": [], "matches": [],
    }  # fmt: skip
    results = play(t, by_strength(strength))
    full = t.bracket(results)
    assert full[0]["tables"][0]["places"] == [3, 2, 1, 0]
    assert full[0]["tables"][0]["advancing"] == [3, 2]
    assert full[0]["tables"][0]["matches"] == [[1, 1, 0]]
    assert full[-1]["tables"][0]["places"] == [9, 8, 7, 6]
    assert full[-1]["tables"][0]["advancing"] == []


def test_only_an_elimination_has_a_bracket():
    with pytest.raises(ValueError, match="only an elimination"):
        Tournament("manila", list(range(8)), "swiss").bracket()


def test_standings_rank_by_round_reached_then_place_there():
    entrants, strength = rated(16)
    t = Tournament("manila", entrants, "elimination", table_size=4, advance=2)
    results = play(t, by_strength(strength))
    ranks = [line.entrant for line in t.standings(results)]
    # Final: 15 14 13 12. Out in round 2: third places (11, 10) then fourth places (9, 8).
    # Out in round 1: third places 7..4, then fourth places 3..0.
    assert ranks[:4] == [15, 14, 13, 12]
    assert set(ranks[4:6]) == {11, 10} and set(ranks[6:8]) == {9, 8}
    assert set(ranks[8:12]) == {7, 6, 5, 4} and set(ranks[12:]) == {3, 2, 1, 0}
