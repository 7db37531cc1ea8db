"""Points per rank: the default tables, shared ranks, and bad scoring tables."""

from fractions import Fraction as F

import pytest

from ladder.tournaments.scoring import (
    check_scoring,
    default_scoring,
    mean_points,
    points_for_ranks,
)


@pytest.mark.parametrize(
    ("size", "points"),
    [(2, (2, 0)), (3, (3, 1, 0)), (4, (4, 2, 1, 0)), (5, (5, 3, 2, 1, 0))],
)
def test_default_tables(size, points):
    assert default_scoring(size) == tuple(F(p) for p in points)


@pytest.mark.parametrize("size", [1, 6])
def test_no_default_outside_two_to_five(size):
    with pytest.raises(ValueError, match="2 to 5"):
        default_scoring(size)


@pytest.mark.parametrize(
    ("ranks", "expected"),
    [
        ((1, 2, 3), (3, 1, 0)),
        ((3, 1, 2), (0, 3, 1)),
        ((1, 1, 3), (2, 2, 0)),  # two share first: (3 + 1) / 2 each
        ((1, 2, 2), (3, F(1, 2), F(1, 2))),  # two faulted seats share the last two places
        ((1, 1, 1), (F(4, 3), F(4, 3), F(4, 3))),
    ],
)
def test_points_for_ranks_at_three(ranks, expected):
    assert points_for_ranks(ranks, default_scoring(3)) == tuple(F(p) for p in expected)


def test_points_for_ranks_at_four_with_a_tie_in_the_middle():
    assert points_for_ranks((1, 2, 2, 4), default_scoring(4)) == (4, F(3, 2), F(3, 2), 0)


def test_points_for_ranks_needs_one_rank_per_place():
    with pytest.raises(ValueError, match="3 ranks but a scoring table for 4"):
        points_for_ranks((1, 2, 3), default_scoring(4))


def test_mean_points_is_a_bye():
    assert mean_points(default_scoring(3)) == F(4, 3)
    assert mean_points(default_scoring(4)) == F(7, 4)


@pytest.mark.parametrize(
    ("points", "message"),
    [
        ((3, 1), "has 3 entries"),
        ((1, 3, 0), "must not rise"),
        (("a", 1, 0), "must be numbers"),
    ],
)
def test_bad_scoring_is_refused(points, message):
    with pytest.raises(ValueError, match=message):
        check_scoring(points, 3)


def test_custom_scoring_keeps_fractions():
    assert check_scoring((5, "1/2", 0), 3) == (F(5), F(1, 2), F(0))
