"""Standings from known results: points, then mean score, head to head, and a seeded coin."""

from fractions import Fraction as F

import pytest

from ladder.tournaments.model import Match, Result
from ladder.tournaments.scoring import default_scoring
from ladder.tournaments.standings import head_to_head, order, standings, tally


def match(number, seats, ranks, scores=None, statuses=None):
    scores = scores or [0] * len(seats)
    return Match(number, 1, 0, number, tuple(seats)), Result(tuple(ranks), tuple(scores), statuses)


COINS = {e: i for i, e in enumerate("abcd")}  # a's coin is lowest: a wins a coin toss


def ranked(played, entrants="abcd", byes=(), bye_points=F(0), coins=COINS):
    totals = tally(entrants, played, default_scoring, byes, bye_points)
    return [line.entrant for line in standings(entrants, totals, played, coins)], totals


@pytest.mark.parametrize(
    ("played", "expected", "why"),
    [
        # a 3+3, b 1+1, c 0+0: points alone.
        (
            [match(1, "abc", [1, 2, 3]), match(2, "bca", [2, 3, 1])],
            "abc",
            "points",
        ),
        # a and b 4 points each (3+1, 1+3); b's mean score is higher.
        (
            [match(1, "abc", [1, 2, 3], [10, 9, 1]), match(2, "abc", [2, 1, 3], [5, 30, 1])],
            "bac",
            "mean score",
        ),
        # a and b 4 points each, mean score 5; they met once, and b ranked above a.
        (
            [
                match(1, "abc", [2, 1, 3], [5, 5, 0]),
                match(2, "acd", [1, 2, 3], [5, 0, 0]),
                match(3, "bcd", [2, 1, 3], [5, 9, 0]),
            ],
            "bac",
            "head to head",
        ),
        # a and b level everywhere and never ranked apart: the coin (a's is lower).
        (
            [match(1, "abc", [1, 1, 3], [5, 5, 0])],
            "abc",
            "coin",
        ),
    ],
)
def test_tie_breaks_in_order(played, expected, why):
    names, _ = ranked(played)
    assert "".join(names[:3]) == expected, why


def test_the_coin_is_the_seeded_order_not_the_entrant_order():
    played = [match(1, "abc", [1, 1, 3], [5, 5, 0])]
    names, _ = ranked(played, coins={"a": 9, "b": 2, "c": 0, "d": 1})
    assert names[:2] == ["b", "a"]


def test_head_to_head_counts_every_pair_of_the_tied_group_in_a_match():
    played = [match(1, "abcd", [1, 2, 3, 4]), match(2, "dcba", [1, 2, 3, 4])]
    h2h = head_to_head({"a", "b", "c"}, played)
    # Match 1: a above b and c, b above c. Match 2: c above b and a, b above a.
    assert h2h == {"a": 0, "b": 0, "c": 0}
    assert head_to_head({"a", "d"}, played) == {"a": 0, "d": 0}
    assert head_to_head({"a", "b"}, played[:1]) == {"a": 1, "b": -1}


def test_totals_wins_mean_rank_and_faults():
    played = [
        match(1, "abc", [1, 2, 3], [10, 5, 0], ["ok", "ok", "timeout"]),
        match(2, "cab", [1, 1, 3], [7, 7, 0], ["ok", "ok", "crash"]),
    ]
    _, totals = ranked(played)
    a, b, c = totals["a"], totals["b"], totals["c"]
    assert (a.points, a.wins, a.matches, a.mean_rank, a.mean_score) == (5, 2, 2, 1.0, 8.5)
    assert (b.points, b.wins, b.mean_rank) == (1, 0, 2.5)
    assert dict(b.faults) == {"crash": 1}
    assert (c.points, c.wins, dict(c.faults)) == (2, 1, {"timeout": 1})


def test_a_bye_adds_its_points_and_no_match():
    played = [match(1, "ab", [1, 2])]
    names, totals = ranked(played, "abc", byes=["c"], bye_points=F(1))
    assert totals["c"].points == 1 and totals["c"].matches == 0 and totals["c"].byes == 1
    assert totals["c"].mean_rank is None and totals["c"].mean_score == 0
    assert names == ["a", "c", "b"]


def test_first_key_comes_before_points():
    played = [match(1, "abc", [1, 2, 3])]
    totals = tally("abc", played, default_scoring)
    first = {"a": (1,), "b": (0,), "c": (1,)}
    assert order("abc", totals, played, COINS, first) == ["b", "a", "c"]


def test_standing_lines_are_ranked_one_to_n_and_serialise():
    played = [match(1, "abc", [1, 2, 3], [9, 4, 1], ["ok", "ok", "illegal"])]
    totals = tally("abc", played, default_scoring)
    lines = standings("abc", totals, played, COINS)
    assert [line.rank for line in lines] == [1, 2, 3]
    assert lines[2].to_dict() == {
        "rank": 3,
        "entrant": "c",
        "points": 0.0,
        "matches": 1,
        "wins": 0,
        "mean_rank": 3.0,
        "mean_score": 1.0,
        "faults": 1,
        "fault_kinds": {"illegal": 1},
        "byes": 0,
    }
