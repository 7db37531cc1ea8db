"""Is NEW better than OLD? A sequential probability ratio test over duplicate sets.

Pure: no database, no sandbox. `ladder test` plays the sets this module lays out
and feeds their results back; the site will do the same on its workers.

A **set** is one seed and one table of N seats holding NEW, OLD and N − 2
opponents, played in all N seat rotations with that seed, so every entrant meets
the same deals and dice from every seat. Its score for NEW is the share of the N
matches in which NEW finished ahead of OLD, a tie counting half. Playing the same
luck from every seat removes most of it from the comparison (the card-game idea of
duplicate, which the ladder's duplicate tournaments use too).

The hypotheses are about the expected set score s: H0 `s = s0` against H1
`s = s1`. Set scores are bounded but not Bernoulli (a set of 4 matches scores in
eighths), and how much they spread depends on the game and the bots, so the test
is the **generalized SPRT with a normal approximation and the empirical variance**,
as chess engine testing uses for paired games: after n sets with mean x̄ and
variance σ²,

    LLR ≈ n · (s1 − s0) · (2·x̄ − s0 − s1) / (2·σ²)

(M. Van den Bergh, "A practical introduction to the GSPRT", 2016, written for
Fishtest; it is the log-likelihood ratio of two normal means with the variance
estimated from the sample, accurate once n is more than a handful). The test stops
at the first crossing of `log(β / (1 − α))` (H0: `not better`) or
`log((1 − β) / α)` (H1: `better`), or after `max_sets` (`inconclusive`).

The variance is regularized with one pseudo-set of the largest variance a score in
[0, 1] can have (1/4), so that two identical sets at the start cannot end a test
with an infinite LLR; its weight fades as 1/n.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from ladder.tournaments.model import Result
from ladder.tournaments.seating import rotations
from workers import SeatStatus

NEW, OLD = "NEW", "OLD"  # the two entrants' labels in a set's tables
BETTER, NOT_BETTER, INCONCLUSIVE = "better", "not better", "inconclusive"
Z95 = 1.959964  # the normal quantile of a two-sided 95 % interval
PRIOR_VARIANCE = 0.25  # the widest a score in [0, 1] can spread: one pseudo-set of it


@dataclass(frozen=True)
class Hypotheses:
    """H0 `s = s0` against H1 `s = s1`, with error rates α and β, over at most `max_sets`."""

    s0: float = 0.5
    s1: float = 0.55
    alpha: float = 0.05
    beta: float = 0.05
    max_sets: int = 200

    def __post_init__(self) -> None:
        for name in ("s0", "s1"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 < value < 1):
                raise ValueError(f"{name} must be between 0 and 1, not {value!r}")
        if self.s1 <= self.s0:
            raise ValueError(f"s1 ({self.s1}) must be above s0 ({self.s0})")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 < value < 0.5):
                raise ValueError(f"{name} must be above 0 and below 0.5, not {value!r}")
        if isinstance(self.max_sets, bool) or not isinstance(self.max_sets, int):
            raise ValueError(f"max_sets must be a whole number, not {self.max_sets!r}")
        if self.max_sets < 2:
            raise ValueError(f"max_sets must be at least 2, not {self.max_sets}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): the LLR below which H0 is accepted, above which H1 is."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)


def llr(scores: Sequence[float], hypotheses: Hypotheses) -> float:
    """The generalized log-likelihood ratio of H1 over H0 for these set scores."""
    return _llr(len(scores), sum(scores), sum(x * x for x in scores), hypotheses)


def interval(scores: Sequence[float]) -> tuple[float, float]:
    """The mean set score's 95 % interval (normal, the same regularized variance)."""
    return _interval(len(scores), sum(scores), sum(x * x for x in scores))


def _variance(n: int, total: float, squares: float) -> float:
    spread = max(0.0, squares - total * total / n)  # the sum of squared deviations
    return (spread + PRIOR_VARIANCE) / (n + 1)


def _llr(n: int, total: float, squares: float, hypotheses: Hypotheses) -> float:
    if n == 0:
        return 0.0
    s0, s1 = hypotheses.s0, hypotheses.s1
    return n * (s1 - s0) * (2 * total / n - s0 - s1) / (2 * _variance(n, total, squares))


def _interval(n: int, total: float, squares: float) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    mean, half = total / n, Z95 * math.sqrt(_variance(n, total, squares) / n)
    return max(0.0, mean - half), min(1.0, mean + half)


# -- sets -------------------------------------------------------------------------------
@dataclass(frozen=True)
class SetPlan:
    """Set `index`: its seed and its N tables, every rotation of one seating once."""

    index: int
    seed: int
    tables: tuple[tuple[str, ...], ...]


def plan_set(index: int, seed: int, size: int, opponents: Sequence[str]) -> SetPlan:
    """Set `index` of a test begun at `seed`: seed `seed + index`, NEW in the first seat,
    the next N − 2 opponents of the cycle (each set takes up where the last left off)
    and OLD among them, in all N rotations.

    The rotations give every entrant every seat, but not every neighbour: OLD keeps its
    place relative to NEW through a set. Seat order matters in these games (who bids,
    moves or draws just before whom), so a bot tested against a copy of itself sitting
    always on its left finished ahead more than half the time (0.58 over 40 Meuterer
    sets). So OLD's place after NEW moves on by one seat from each set to the next, and
    each N − 1 sets hold it in every place once."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 2:
        raise ValueError(f"a table has at least 2 seats, not {size!r}")
    extra = size - 2
    if extra and not opponents:
        raise ValueError(f"a table of {size} needs {extra} opponents beside NEW and OLD")
    others = [opponents[(index * extra + k) % len(opponents)] for k in range(extra)]
    place = 1 + index % (size - 1)  # OLD's seat in the base seating, NEW's being 0
    base = (NEW, *others[: place - 1], OLD, *others[place - 1 :])
    return SetPlan(index, seed + index, tuple(rotations(base, size)))


def set_score(plan: SetPlan, results: Sequence[Result]) -> float:
    """NEW's score for the set: the share of its matches NEW finished ahead of OLD."""
    if len(results) != len(plan.tables):
        raise ValueError(f"a set of {len(plan.tables)} matches, not {len(results)} results")
    points = 0.0
    for seats, result in zip(plan.tables, results, strict=True):
        new, old = result.ranks[seats.index(NEW)], result.ranks[seats.index(OLD)]
        points += 1.0 if new < old else 0.5 if new == old else 0.0
    return points / len(results)


# -- the running test -------------------------------------------------------------------
@dataclass
class Side:
    """One of NEW and OLD over the test: its ranks summed and its faults."""

    rank_sum: int = 0
    matches: int = 0
    faults: int = 0

    @property
    def mean_rank(self) -> float | None:
        return self.rank_sum / self.matches if self.matches else None


@dataclass
class SequentialTest:
    """The test as sets come in: `add` each, read `verdict` and `report()` at any point."""

    hypotheses: Hypotheses = field(default_factory=Hypotheses)
    scores: list[float] = field(default_factory=list)
    total: float = 0.0  # of the scores and of their squares: the LLR in O(1) a set
    squares: float = 0.0
    sides: dict[str, Side] = field(default_factory=lambda: {NEW: Side(), OLD: Side()})
    matches: int = 0

    def add(self, plan: SetPlan, results: Sequence[Result]) -> None:
        """Count one played set (its results in the order of `plan.tables`)."""
        if self.done:
            raise ValueError(f"the test is over ({self.verdict}); no more sets")
        self.record(set_score(plan, results))
        for seats, result in zip(plan.tables, results, strict=True):
            for label in (NEW, OLD):
                seat = seats.index(label)
                side = self.sides[label]
                side.rank_sum += result.ranks[seat]
                side.matches += 1
                side.faults += result.statuses[seat] != SeatStatus.OK
        self.matches += len(results)

    def record(self, score: float) -> None:
        """Count one set's score alone (what `add` does with a set's results)."""
        if not 0 <= score <= 1:
            raise ValueError(f"a set score is from 0 to 1, not {score!r}")
        self.scores.append(score)
        self.total += score
        self.squares += score * score

    @property
    def llr(self) -> float:
        return _llr(len(self.scores), self.total, self.squares, self.hypotheses)

    @property
    def verdict(self) -> str:
        """`better` or `not better` once a bound is crossed, else `inconclusive` (so far)."""
        lower, upper = self.hypotheses.bounds
        value = self.llr
        if value >= upper:
            return BETTER
        if value <= lower:
            return NOT_BETTER
        return INCONCLUSIVE

    @property
    def done(self) -> bool:
        return self.verdict != INCONCLUSIVE or len(self.scores) >= self.hypotheses.max_sets

    def report(self) -> dict:
        """Sets, matches, LLR and bounds, mean score and interval, mean ranks, faults."""
        n = len(self.scores)
        lower, upper = _interval(n, self.total, self.squares)
        return {
            "verdict": self.verdict,
            "llr": round(self.llr, 4),
            "bounds": [round(b, 4) for b in self.hypotheses.bounds],
            "sets": n,
            "matches": self.matches,
            "score": round(self.total / n, 4) if n else None,
            "interval": [round(lower, 4), round(upper, 4)],
            "mean_rank": {
                "new": _round(self.sides[NEW].mean_rank),
                "old": _round(self.sides[OLD].mean_rank),
            },
            "faults": {"new": self.sides[NEW].faults, "old": self.sides[OLD].faults},
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
