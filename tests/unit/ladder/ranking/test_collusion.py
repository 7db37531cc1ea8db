"""The collusion statistic: its moments against simulation, a planted kingmaker flagged,
honest results flagged no more often than the rate, and Holm's correction."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from ladder.ranking import collusion
from ladder.ranking.collusion import Evidence, TableModel, holm, judge, places, term
from ladder.ranking.ratings import BETA


def sample_ranks(mus, sigmas, rng, boost=None):
    """Ranks drawn from the ratings' own model; `boost` maps seat -> extra performance."""
    performance = [rng.gauss(m, math.hypot(s, BETA)) for m, s in zip(mus, sigmas, strict=True)]
    for seat, extra in (boost or {}).items():
        performance[seat] += extra
    return [1 + sum(o > p for o in performance) for p in performance]


@pytest.mark.parametrize(
    ("mus", "sigmas"),
    [
        ([25.0, 25.0], [8.3, 8.3]),
        ([18.0, 31.0, 24.0, 27.0, 12.0], [0.8, 3.0, 1.5, 8.0, 2.0]),
    ],
)
def test_gap_moments_match_a_simulation_of_the_model(mus, sigmas):
    model = TableModel(mus, sigmas)
    mean, var = model.gap_moments(0, 1)
    rng = random.Random(7)
    gaps = []
    for _ in range(20_000):
        ranks = sample_ranks(mus, sigmas, rng)
        gaps.append(ranks[0] - ranks[1])
    sample_mean = sum(gaps) / len(gaps)
    sample_var = sum((g - sample_mean) ** 2 for g in gaps) / len(gaps)
    assert sample_mean == pytest.approx(mean, abs=4 * math.sqrt(var / len(gaps)))
    assert sample_var == pytest.approx(var, rel=0.05)
    if len(mus) == 2:  # two seats: D is ±1, so Var D = 4 p (1 − p) exactly
        assert var == pytest.approx(1.0)


def test_places_count_a_tie_as_half_a_place():
    assert places([1, 2, 3]) == [1, 2, 3]
    assert places([1, 1, 3]) == [1.5, 1.5, 3]
    assert places([2, 1, 2, 4]) == [2.5, 1, 2.5, 4]


def test_a_term_is_the_observed_gap_against_its_prediction():
    model = TableModel([25.0, 25.0, 25.0], [1.0, 1.0, 1.0])
    t = term(9, model, [3, 1, 2], 0, 1)
    assert (t.match_id, t.observed, t.expected) == (9, 2, pytest.approx(0.0))
    assert t.surprise == pytest.approx(2.0)
    with pytest.raises(ValueError):
        term(9, model, [1, 2], 0, 1)
    with pytest.raises(ValueError):
        model.gap_moments(1, 1)


def holm_by_definition(pvalues):
    """Holm's adjusted p-values written out: max over the smaller ones of (m − j + 1)·p."""
    m = len(pvalues)
    ranked = sorted(pvalues)
    result = []
    for p in pvalues:
        j = ranked.index(p)
        result.append(min(1.0, max((m - k) * ranked[k] for k in range(j + 1))))
    return result


def test_holm_adjusts_step_down_and_keeps_the_order_given():
    pvalues = [0.04, 0.001, 0.03, 0.2, 0.011]
    adjusted = holm(pvalues)
    assert adjusted == pytest.approx([0.09, 0.005, 0.09, 0.2, 0.044])
    assert adjusted == pytest.approx(holm_by_definition(pvalues))
    # At α = 0.05 Holm rejects two here; Bonferroni (p·m ≤ α) only one.
    assert sum(a <= 0.05 for a in adjusted) == 2
    assert sum(p * len(pvalues) <= 0.05 for p in pvalues) == 1
    assert holm([]) == []
    assert holm([0.5]) == [0.5]


def test_holm_never_goes_down_the_ranking_and_never_passes_one():
    rng = random.Random(3)
    pvalues = [rng.random() ** 3 for _ in range(60)]
    adjusted = holm(pvalues)
    order = sorted(range(60), key=lambda i: pvalues[i])
    assert all(adjusted[a] <= adjusted[b] for a, b in itertools.pairwise(order))
    assert all(p <= a <= 1 for p, a in zip(pvalues, adjusted, strict=True))
    assert adjusted == pytest.approx(holm_by_definition(pvalues))


def ladder_of_pairs(rng, pairs, matches, kingmaker=None, boost=BETA, throw=BETA):
    """Synthetic results at fixed ratings: for each pair, `matches` tables of four of near μ
    (as matchmaking seats them) drawn from the model, the pair in seats 0 and 1. The
    `kingmaker` pair's seat 1 gains `boost` and seat 0 loses `throw` there."""
    found = []
    for p in range(pairs):
        evidence = Evidence(("a", p), ("b", p))
        for m in range(matches):
            mus = [rng.uniform(20, 30) for _ in range(4)]
            sigmas = [rng.uniform(0.8, 4.0) for _ in range(4)]
            boosted = {1: boost, 0: -throw} if p == kingmaker else None
            ranks = sample_ranks(mus, sigmas, rng, boosted)
            evidence.terms.append(term(m, TableModel(mus, sigmas), ranks, 0, 1))
        found.append(evidence)
    return found


def test_honest_pairs_are_flagged_no_more_often_than_the_rate():
    rng = random.Random(11)
    pairs = ladder_of_pairs(rng, pairs=200, matches=10)
    tested = judge(pairs, alpha=0.05)
    assert len(tested) == 200
    # Without correction, p < 0.05 for about 5% of honest pairs (z is standard normal):
    # 200 pairs give 10 ± 3; a z whose variance were off by a third would give 3 or 20.
    below = sum(e.p < 0.05 for e in tested)
    assert 4 <= below <= 18, below
    zs = [e.z for e in tested]
    assert sum(zs) / len(zs) == pytest.approx(0.0, abs=0.2)
    assert sum(z * z for z in zs) / len(zs) == pytest.approx(1.0, abs=0.2)
    # With Holm over the 200, no honest pair is flagged (the family-wise rate is 5%).
    assert not any(e.flagged for e in tested)


def test_a_planted_kingmaker_is_flagged_and_named_the_helper():
    rng = random.Random(12)
    pairs = ladder_of_pairs(rng, pairs=40, matches=25, kingmaker=17)
    tested = judge(pairs)
    flagged = [e for e in tested if e.flagged]
    assert [e.first for e in flagged] == [("a", 17)]
    (pair,) = flagged
    assert pair.z > 3 and pair.adjusted <= collusion.ALPHA
    assert (pair.helper, pair.beneficiary) == (("a", 17), ("b", 17))
    assert tested[0] is pair  # most surprising first
    # Reversed roles (the first seat gains): flagged too, the helper named the other way.
    rng = random.Random(12)
    reversed_pairs = ladder_of_pairs(rng, 40, 25, kingmaker=17, boost=-BETA, throw=-BETA)
    (flag,) = [e for e in judge(reversed_pairs) if e.flagged]
    assert flag.z < -3 and flag.helper == ("b", 17)


def test_pairs_with_few_shared_matches_are_not_tested_nor_counted():
    rng = random.Random(5)
    many = ladder_of_pairs(rng, pairs=1, matches=collusion.MIN_MATCHES, kingmaker=0)
    few = ladder_of_pairs(rng, pairs=30, matches=collusion.MIN_MATCHES - 1, kingmaker=None)
    tested = judge(many + few)
    assert tested == many and many[0].tested and not any(e.tested for e in few)
    assert many[0].adjusted == many[0].p  # one pair examined: nothing to correct
    with pytest.raises(ValueError):
        judge(many, alpha=0)
