"""Soft collusion: do two owners' results together differ from what their ratings predict?

Pure functions, no database (`queries.collusion` gathers the matches).

The kingmaker. Bots that cannot talk can still play for each other: bot A
bids a rival up, throws a round or feeds its sibling B. When they share a
table B then finishes better than its rating predicts and A worse. Neither
alone need look odd (A's rating simply sinks a little), but the *gap* between
them does, and only in the matches they share.

The statistic, per pair (A, B) seated together in finished rated matches:

- The model is the ratings' own. Before the match each seat i has its
  rating (μᵢ, σᵢ) as stored with the seat (`mu_before`, `sigma_before`);
  TrueSkill's predictive performance is pᵢ ~ N(μᵢ, σᵢ² + β²), independent
  between seats, and a seat's rank is 1 + the number of seats that
  outperform it.
- The outcome per match is the rank gap D = r_A − r_B, with a tie counting
  half a place (rank 1 + the seats ahead + half the seats level), so D is
  "how many more places A finished behind B". Kingmaking pushes D up; A
  finishing directly behind B helping it win is D's typical large value.
- Its expectation and variance under the model come from the pairwise
  probabilities P(pⱼ > pᵢ) (closed form) and the probabilities of three seats
  in an order (one-dimensional integrals, by the trapezoid rule over 25 nodes,
  within about 1e-5 of the exact value): E[D] = Σⱼ P(j beats A) − Σⱼ P(j beats B) and
  Var D = Var r_A + Var r_B − 2 Cov(r_A, r_B), each a sum over the indicator
  terms of the ranks (terms of four distinct seats are independent).
- Over the pair's n shared matches, z = Σ (D − E[D]) / √Σ Var D. With ratings
  that are the ladder's current belief, the residuals of successive matches
  are uncorrelated (each prediction uses everything before it), so z is about
  standard normal for an honest pair. z > 0: A did worse against B than
  predicted, A the helper and B the beneficiary; z < 0 the other way round.
- The p-value is two-sided, P(|Z| ≥ |z|) = erfc(|z|/√2): we do not know in
  advance which of the two would be the kingmaker, and this is exactly the
  two one-sided tests (A helps B, B helps A) corrected for being two.
- Pairs with fewer than MIN_MATCHES shared matches are not tested: the normal
  approximation is poor there and no such pair could reach the corrected
  threshold anyway. They are not counted among the pairs examined.

Correction for looking at many pairs: Holm's step-down method over the p-values
of every pair examined, flagging pairs whose adjusted p-value is at most α.
It bounds the chance that a page flags *any* honest pair by α (family-wise),
and does so whatever the dependence between pairs. That matters here: pairs
that share a bot share its matches, and their statistics are correlated in
both directions (B gaining against A is partly A losing against C), so the
Benjamini–Hochberg procedure's guarantee (which needs positive dependence)
would not hold as stated; and a flag names people, so we would rather bound
the chance of one wrong name per look than the expected share of wrong names
among many. Holm is never less powerful than Bonferroni. The price: with
hundreds of pairs a flag needs |z| near 4, so a weak colluder takes more
shared matches to be seen (`bench/collusion.py` measures how many).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from ladder.ranking.ratings import BETA

ALPHA = 0.05  # family-wise: the chance a look at one game flags any honest pair
MIN_MATCHES = 10  # shared matches before a pair is tested

# Trapezoid nodes in standard units: -6 .. 6 by 0.5; weights normalized to sum to 1.
_STEP = 0.5
_NODES = tuple(-6.0 + _STEP * k for k in range(25))
_RAW = tuple(math.exp(-z * z / 2) for z in _NODES)
_WEIGHTS = tuple(w / sum(_RAW) for w in _RAW)


def _phi_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def two_sided_p(z: float) -> float:
    """P(|Z| ≥ |z|) for a standard normal Z."""
    return math.erfc(abs(z) / math.sqrt(2))


class TableModel:
    """The ratings' prediction for one table: moments of the rank gap of any two seats."""

    def __init__(self, mus: Sequence[float], sigmas: Sequence[float], beta: float = BETA):
        if len(mus) != len(sigmas) or len(mus) < 2:
            raise ValueError("a table needs two or more seats, with a μ and a σ each")
        self.n = len(mus)
        self.mu = [float(m) for m in mus]
        self.spread = [math.sqrt(s * s + beta * beta) for s in sigmas]
        n = self.n
        # beats[j][i] = P(seat j outperforms seat i).
        self.beats = [[0.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                if i != j:
                    gap = self.mu[j] - self.mu[i]
                    scale = math.hypot(self.spread[i], self.spread[j])
                    self.beats[j][i] = _phi_cdf(gap / scale)
        self._cdf: dict[int, list[list[float]]] = {}
        self._rank_var: dict[int, float] = {}

    def _below(self, i: int) -> list[list[float]]:
        """below[j][k] = P(seat j performs below x_k), x_k the k-th node of seat i."""
        if i not in self._cdf:
            xs = [self.mu[i] + self.spread[i] * z for z in _NODES]
            self._cdf[i] = [
                [_phi_cdf((x - self.mu[j]) / self.spread[j]) for x in xs] for j in range(self.n)
            ]
        return self._cdf[i]

    def _last_of(self, i: int, j: int, k: int) -> float:
        """P(seat i performs below both j and k)."""
        below = self._below(i)
        return sum(
            w * (1 - a) * (1 - b) for w, a, b in zip(_WEIGHTS, below[j], below[k], strict=True)
        )

    def _first_of(self, c: int, a: int, b: int) -> float:
        """P(seat c outperforms both a and b)."""
        below = self._below(c)
        return sum(w * x * y for w, x, y in zip(_WEIGHTS, below[a], below[b], strict=True))

    def _order(self, low: int, mid: int, high: int) -> float:
        """P(low < mid < high) in performance."""
        below = self._below(mid)
        lows, highs = below[low], below[high]
        return sum(w * x * (1 - y) for w, x, y in zip(_WEIGHTS, lows, highs, strict=True))

    def expected_rank(self, i: int) -> float:
        """E[rank of seat i] = 1 + the expected number of seats ahead."""
        return 1 + sum(self.beats[j][i] for j in range(self.n) if j != i)

    def rank_variance(self, i: int) -> float:
        """Var[rank of seat i]: the seats ahead are dependent through i's own performance."""
        if i not in self._rank_var:
            others = [j for j in range(self.n) if j != i]
            total = sum(self.beats[j][i] * (1 - self.beats[j][i]) for j in others)
            for x, j in enumerate(others):
                for k in others[x + 1 :]:
                    total += 2 * (self._last_of(i, j, k) - self.beats[j][i] * self.beats[k][i])
            self._rank_var[i] = total
        return self._rank_var[i]

    def rank_covariance(self, a: int, b: int) -> float:
        """Cov[rank of a, rank of b] (terms of four distinct seats are independent, so zero)."""
        p = self.beats[b][a]
        total = -p * (1 - p)  # "b ahead of a" is "a not ahead of b"
        for c in range(self.n):
            if c in (a, b):
                continue
            total += self._order(a, b, c) - self.beats[c][b] * self.beats[b][a]
            total += self._order(b, a, c) - self.beats[c][a] * self.beats[a][b]
            total += self._first_of(c, a, b) - self.beats[c][a] * self.beats[c][b]
        return total

    def gap_moments(self, a: int, b: int) -> tuple[float, float]:
        """Expectation and variance of D = rank(a) − rank(b)."""
        if a == b or not (0 <= a < self.n and 0 <= b < self.n):
            raise ValueError(f"two distinct seats of {self.n}, not {a} and {b}")
        mean = self.expected_rank(a) - self.expected_rank(b)
        var = self.rank_variance(a) + self.rank_variance(b) - 2 * self.rank_covariance(a, b)
        return mean, max(var, 1e-12)


def places(ranks: Sequence[int]) -> list[float]:
    """Each seat's rank with a tie counting half a place: 1 + seats ahead + half of those level."""
    return [
        1 + sum((other < r) + 0.5 * (other == r) for j, other in enumerate(ranks) if j != i)
        for i, r in enumerate(ranks)
    ]


@dataclass(frozen=True)
class Term:
    """One shared match of a pair: the observed rank gap, its expectation and variance."""

    match_id: int
    observed: float
    expected: float
    variance: float

    @property
    def surprise(self) -> float:
        """How many places further behind the first seat finished than predicted."""
        return self.observed - self.expected


def term(match_id: int, model: TableModel, ranks: Sequence[int], a: int, b: int) -> Term:
    """The term of seats `a` and `b` of one match, its ratings' prediction being `model`."""
    if len(ranks) != model.n:
        raise ValueError(f"{len(ranks)} ranks for a table of {model.n}")
    place = places(ranks)
    mean, var = model.gap_moments(a, b)
    return Term(match_id, place[a] - place[b], mean, var)


@dataclass
class Evidence:
    """A pair's shared matches and, once `judge`d, its statistic and verdict."""

    first: object
    second: object
    terms: list[Term] = field(default_factory=list)
    z: float = 0.0
    p: float = 1.0
    adjusted: float = 1.0
    flagged: bool = False
    tested: bool = False

    @property
    def matches(self) -> int:
        return len(self.terms)

    def statistic(self) -> float:
        """z = Σ(D − E[D]) / √Σ Var D over the pair's shared matches."""
        variance = sum(t.variance for t in self.terms)
        return sum(t.surprise for t in self.terms) / math.sqrt(variance) if variance else 0.0

    @property
    def helper(self) -> object:
        """The one whose results sank against the other (the would-be kingmaker)."""
        return self.first if self.z >= 0 else self.second

    @property
    def beneficiary(self) -> object:
        return self.second if self.z >= 0 else self.first


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given (reject where ≤ α)."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def judge(
    pairs: Sequence[Evidence], alpha: float = ALPHA, min_matches: int = MIN_MATCHES
) -> list[Evidence]:
    """Test every pair with at least `min_matches` shared matches, correct for their number
    (Holm) and flag those at `alpha`; returns the tested pairs, most surprising first."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha is between 0 and 1, not {alpha}")
    tested = [e for e in pairs if e.matches >= min_matches]
    for e in pairs:
        e.tested = e.matches >= min_matches
        e.z = e.statistic()
        e.p = two_sided_p(e.z)
        e.adjusted, e.flagged = 1.0, False
    for e, adjusted in zip(tested, holm([e.p for e in tested]), strict=True):
        e.adjusted = adjusted
        e.flagged = adjusted <= alpha
    return sorted(tested, key=lambda e: (e.p, -e.matches))
