"""Points per rank: the scoring tables and how tied ranks share them.

The default table for n players gives the winner n points and rank r ≥ 2
n − r points: 2p 2/0, 3p 3/1/0, 4p 4/2/1/0, 5p 5/3/2/1/0. Last place scores
nothing, every place is worth more than the next, and a win is worth a point
more than the step between the other places (winning, not just placing, is
what a tournament rewards).

Seats that share a rank share the points of the places they cover equally:
at 3p, two seats tied first get (3 + 1) / 2 = 2 each. A faulted seat ranks
below every `ok` seat (the ladder's rule), so two faulted seats at 3p share
the last two places' (1 + 0) / 2.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import pairwise

Points = tuple[Fraction, ...]


def default_scoring(size: int) -> Points:
    """The documented default points per rank (1st first) at a table of `size` seats."""
    if not 2 <= size <= 5:
        raise ValueError(f"tables seat 2 to 5 players, not {size}")
    return tuple(Fraction(size if rank == 1 else size - rank) for rank in range(1, size + 1))


def check_scoring(points: Sequence, size: int) -> Points:
    """`points` as Fractions, checked: one per place, never more for a worse place."""
    if len(points) != size:
        raise ValueError(f"a scoring table for {size} players has {size} entries, not {points}")
    try:
        table = tuple(Fraction(p) for p in points)
    except (TypeError, ValueError):
        raise ValueError(f"scoring points must be numbers, not {points}") from None
    if any(a < b for a, b in pairwise(table)):
        raise ValueError(f"scoring points must not rise from one place to the next: {points}")
    return table


def points_for_ranks(ranks: Sequence[int], scoring: Points) -> tuple[Fraction, ...]:
    """Each seat's points for its 1-based rank; seats sharing a rank share those places."""
    if len(ranks) != len(scoring):
        raise ValueError(f"{len(ranks)} ranks but a scoring table for {len(scoring)}")
    points = []
    for rank in ranks:
        shared = sum(1 for other in ranks if other == rank)
        places = scoring[rank - 1 : rank - 1 + shared]
        points.append(sum(places, Fraction(0)) / len(places))
    return tuple(points)


def mean_points(scoring: Points) -> Fraction:
    """What one match is worth on average: the default worth of a Swiss bye per match."""
    return sum(scoring, Fraction(0)) / len(scoring)
