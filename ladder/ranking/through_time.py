"""TrueSkill Through Time over a game's rated history: pure, no database (ladder/RATINGS.md).

The online rating (`ratings.rate`) updates each version once, when its match is
recorded, in the order results arrive. This solves the same model over the whole
history at once (package `trueskillthroughtime`): every match informs every estimate,
earlier and later, so the answer no longer depends on arrival order.

The model is the online one, on its scale: μ 25, σ 8.33, β 4.17, draw probability
0.10; every seat is a team of one and ranks come from the match (ties share a rank,
faulted seats already rank last). Skill drifts by γ = the online τ per match a version
plays (no clock: each match is one step, as τ is applied online), so the two differ
only in how they use the evidence. Each version's prior is its online rating just
before its first match in the solved history: for a whole history that is the fresh
rating, or a new version's start from its predecessor (`ratings.successor`); for a
window of recent history (`services.resolve`), where the online rating stood then.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import trueskillthroughtime as ttt

from ladder.ranking.ratings import BETA, DRAW_PROBABILITY, MU, SIGMA, Skill, conservative

# Passes over the history (each a backward and a forward sweep) at most, stopping
# earlier once no estimate moves by more than EPSILON (μ or σ): the first pass moves
# estimates by several points, the second by about 0.1, the third by a few hundredths.
ITERATIONS = 6
EPSILON = 0.01
# Points of each version's curve at most: the last estimate of each day it played,
# thinned evenly (first and last kept) past this.
CURVE_POINTS = 200


@dataclass(frozen=True)
class RatedMatch:
    """One rated match as the solve needs it: who sat, how they ranked (1-based), the
    seats' online ratings before it (priors, for versions first seen here), and its day."""

    match_id: int
    day: date
    versions: tuple[int, ...]
    ranks: tuple[int, ...]
    before: tuple[Skill, ...]


@dataclass(frozen=True)
class Solved:
    """A version's smoothed rating at the end of the history, its matches in it, and
    its curve: (day, μ, σ) after the last match of each day it played."""

    mu: float
    sigma: float
    matches: int
    curve: tuple[tuple[date, float, float], ...]

    @property
    def conservative(self) -> float:
        return conservative(self.mu, self.sigma)


@dataclass(frozen=True)
class Solution:
    """Every version's Solved, and how the solve went."""

    versions: dict[int, Solved]
    iterations: int
    step: float  # the largest change in the last pass


def check(matches: Sequence[RatedMatch]) -> None:
    """ValueError for a match the solve cannot take (it names the match)."""
    for m in matches:
        n = len(m.versions)
        if n < 2 or len(m.ranks) != n or len(m.before) != n:
            raise ValueError(f"match {m.match_id}: seats, ranks and priors must agree, 2 or more")
        if len(set(m.versions)) != n:
            raise ValueError(f"match {m.match_id}: a version holds two seats")
        for rank in m.ranks:
            if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= n:
                raise ValueError(f"match {m.match_id}: ranks are 1 to {n}, not {rank!r}")


def history_inputs(matches: Sequence[RatedMatch], gamma: float) -> dict:
    """The keyword arguments of `trueskillthroughtime.History` for `matches`, in order:
    one team per seat in finishing order, results higher-is-better (minus the rank),
    priors per version."""
    priors: dict[int, ttt.Player] = {}
    for m in matches:
        for version, skill in zip(m.versions, m.before, strict=True):
            if version not in priors:
                priors[version] = ttt.Player(ttt.Gaussian(skill.mu, skill.sigma), BETA, gamma)
    # Seats go in finishing order (ties in seat order): trueskillthroughtime 1.1.0 hands
    # a free-for-all's likelihoods back to its teams through the sorting permutation
    # rather than its inverse, so teams given in any other order of three or more get
    # each other's updates (a 4-seat match ranked 3, 1, 4, 2 raised the third-placed
    # seat as the winner). In finishing order the permutation is the identity.
    seated = [sorted(zip(m.ranks, m.versions, strict=True), key=lambda p: p[0]) for m in matches]
    return {
        "composition": [[[v] for _, v in seats] for seats in seated],
        "results": [[-float(r) for r, _ in seats] for seats in seated],
        "priors": priors,
        "mu": MU,
        "sigma": SIGMA,
        "beta": BETA,
        "gamma": gamma,
        "p_draw": DRAW_PROBABILITY,
    }


def solve(
    matches: Sequence[RatedMatch],
    gamma: float,
    iterations: int = ITERATIONS,
    epsilon: float = EPSILON,
    curve_points: int = CURVE_POINTS,
) -> Solution:
    """Solve `matches` (oldest first) with TrueSkill Through Time: each version's rating
    after its last match, and its curve."""
    if gamma < 0:
        raise ValueError(f"gamma must not be negative, not {gamma}")
    if iterations < 0 or curve_points < 2:
        raise ValueError("iterations must be 0 or more and a curve 2 points or more")
    check(matches)
    if not matches:
        return Solution({}, 0, 0.0)
    history = ttt.History(**history_inputs(matches, gamma))
    step, done = history.convergence(epsilon=epsilon, iterations=iterations, verbose=False)
    out = {}
    # Without times, batch t (1-based) is the t-th match.
    for version, points in history.learning_curves().items():
        by_day: dict[date, tuple[float, float]] = {}
        for t, posterior in points:
            by_day[matches[t - 1].day] = (posterior.mu, posterior.sigma)
        curve = tuple((day, mu, sigma) for day, (mu, sigma) in by_day.items())
        last = points[-1][1]
        out[version] = Solved(last.mu, last.sigma, len(points), thin(curve, curve_points))
    return Solution(out, done, max(step) if done else 0.0)


def thin(points: tuple, most: int) -> tuple:
    """At most `most` of `points`, evenly spread, the first and the last kept."""
    if len(points) <= most:
        return points
    last = len(points) - 1
    picks = sorted({round(i * last / (most - 1)) for i in range(most)})
    return tuple(points[i] for i in picks)
