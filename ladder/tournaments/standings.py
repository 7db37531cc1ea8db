"""Standings: points from the scoring table, then documented tie-breaks.

Order (round robin and Swiss):
1. points: each match's points for the entrant's rank (`scoring`), plus byes;
2. mean game score per match played (the engine's score: money in Manila,
   points in Meuterer and Caravelas). The mean, not the total, so that a
   Swiss bye, which has no game score, costs nothing here;
3. head to head among the entrants still tied: in every match where two of
   them sat, the one ranked better gains one and the other loses one;
4. a coin: an order drawn from the tournament's seed, the same every time.
Elimination puts the depth reached and the place at the last table first
(see `Tournament.standings`), then the same order.

Faults (any status but `ok`) are counted per entrant; a faulting entrant keeps
its remaining matches, where its seat is played out by the fallback policy and
ranks below every `ok` seat (the ladder's rule), so faults cost points and need
no tie-break of their own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ladder.tournaments.model import Match, Result, derive_seed
from ladder.tournaments.scoring import Points, points_for_ranks

Played = tuple[Match, Result]


@dataclass
class Tally:
    """One entrant's totals so far."""

    points: Fraction = Fraction(0)
    matches: int = 0
    wins: int = 0
    rank_sum: int = 0
    score_sum: float = 0.0
    byes: int = 0
    faults: Counter = field(default_factory=Counter)

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.matches if self.matches else 0.0

    @property
    def mean_rank(self) -> float | None:
        return self.rank_sum / self.matches if self.matches else None


@dataclass(frozen=True)
class Standing:
    """One line of the standings table."""

    rank: int
    entrant: Hashable
    points: Fraction
    matches: int
    wins: int
    mean_rank: float | None
    mean_score: float
    faults: int
    fault_kinds: tuple[tuple[str, int], ...] = ()
    byes: int = 0

    def to_dict(self) -> dict:
        return {
            "rank": self.rank,
            "entrant": self.entrant,
            "points": float(self.points),
            "matches": self.matches,
            "wins": self.wins,
            "mean_rank": self.mean_rank,
            "mean_score": self.mean_score,
            "faults": self.faults,
            "fault_kinds": dict(self.fault_kinds),
            "byes": self.byes,
        }


def tally(
    entrants: Sequence[Hashable],
    played: Iterable[Played],
    scoring: Callable[[int], Points],
    byes: Iterable[Hashable] = (),
    bye_points: Fraction = Fraction(0),
) -> dict[Hashable, Tally]:
    """Totals per entrant from played matches (`scoring(size)` gives a table's points) and byes.

    A win is rank 1, shared or not.
    """
    totals = {entrant: Tally() for entrant in entrants}
    for match, result in played:
        points = points_for_ranks(result.ranks, scoring(len(match.seats)))
        for seat, entrant in enumerate(match.seats):
            t = totals[entrant]
            t.points += points[seat]
            t.matches += 1
            t.wins += result.ranks[seat] == 1
            t.rank_sum += result.ranks[seat]
            t.score_sum += result.scores[seat]
            status = result.statuses[seat]
            if status.faulted:
                t.faults[status] += 1
    for entrant in byes:
        totals[entrant].byes += 1
        totals[entrant].points += bye_points
    return totals


def head_to_head(group: Iterable[Hashable], played: Iterable[Played]) -> Counter:
    """Within `group`: +1 for each time one ranked above another at a match, −1 below."""
    members = set(group)
    score: Counter = Counter()
    for match, result in played:
        here = [(seat, e) for seat, e in enumerate(match.seats) if e in members]
        for i, (seat_a, a) in enumerate(here):
            for seat_b, b in here[i + 1 :]:
                diff = (result.ranks[seat_a] < result.ranks[seat_b]) - (
                    result.ranks[seat_a] > result.ranks[seat_b]
                )
                score[a] += diff
                score[b] -= diff
    return score


def order(
    entrants: Sequence[Hashable],
    totals: Mapping[Hashable, Tally],
    played: Sequence[Played],
    coins: Mapping[Hashable, int],
    first: Mapping[Hashable, tuple] | None = None,
) -> list[Hashable]:
    """Entrants best first by `first` (a sort key, smaller is better; elimination's depth),
    points, mean score, head to head, then `coins` (lower first: the tournament draws
    them from its seed, see `coins`)."""

    def key(e: Hashable) -> tuple:
        return (*(first[e] if first else ()), -totals[e].points, -totals[e].mean_score)

    ranked = sorted(entrants, key=key)
    result: list[Hashable] = []
    i = 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and key(ranked[j]) == key(ranked[i]):
            j += 1
        group = ranked[i:j]
        if len(group) > 1:
            h2h = head_to_head(group, played)
            group = sorted(group, key=lambda e: (-h2h[e], coins[e]))
        result.extend(group)
        i = j
    return result


def standings(
    entrants: Sequence[Hashable],
    totals: Mapping[Hashable, Tally],
    played: Sequence[Played],
    coins: Mapping[Hashable, int],
    first: Mapping[Hashable, tuple] | None = None,
) -> list[Standing]:
    """The standings table: `order`, ranks 1..n, and each entrant's totals."""
    lines = []
    for rank, entrant in enumerate(order(entrants, totals, played, coins, first), start=1):
        t = totals[entrant]
        lines.append(
            Standing(
                rank=rank,
                entrant=entrant,
                points=t.points,
                matches=t.matches,
                wins=t.wins,
                mean_rank=t.mean_rank,
                mean_score=t.mean_score,
                faults=sum(t.faults.values()),
                fault_kinds=tuple(sorted(t.faults.items())),
                byes=t.byes,
            )
        )
    return lines


def coins(entrants: Sequence[Hashable], seed: int) -> dict[Hashable, int]:
    """Each entrant's coin: a number drawn from the seed and its place in the entrants."""
    return {e: derive_seed(seed, "coin", i) for i, e in enumerate(entrants)}
