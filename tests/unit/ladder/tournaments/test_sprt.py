"""The sequential test over duplicate sets: its statistic, its sets, its verdicts."""

from __future__ import annotations

import math
import random

import pytest

from ladder.tournaments import sprt
from ladder.tournaments.model import Result
from ladder.tournaments.sprt import NEW, OLD, Hypotheses, SequentialTest, plan_set, set_score


# -- the statistic ------------------------------------------------------------------------
def test_bounds_are_the_wald_bounds_of_alpha_and_beta():
    assert Hypotheses().bounds == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)))
    lower, upper = Hypotheses(alpha=0.01, beta=0.1).bounds
    assert (lower, upper) == pytest.approx((math.log(0.1 / 0.99), math.log(0.9 / 0.01)))


def test_sets_all_won_cross_the_upper_bound_at_the_set_computed_by_hand():
    # n sets of 1.0: mean 1, spread 0, variance 0.25 / (n + 1) (the pseudo-set), so
    # LLR = n (0.05)(2 - 1.05) / (2 * 0.25 / (n + 1)) = 0.095 n (n + 1): 2.85 after 5
    # sets, 3.99 after 6, and the bound is log(19) = 2.944.
    test = SequentialTest()
    for n in range(1, 6):
        test.record(1.0)
        assert test.llr == pytest.approx(0.095 * n * (n + 1))
        assert test.verdict == sprt.INCONCLUSIVE
    test.record(1.0)
    assert test.llr == pytest.approx(3.99) and test.verdict == sprt.BETTER and test.done


def test_a_mixed_sequence_matches_the_formula_computed_by_hand():
    scores = [0.75, 0.5, 1.0, 0.25]
    # mean 0.625; squared deviations 0.015625 + 0.015625 + 0.140625 + 0.140625 = 0.3125;
    # variance (0.3125 + 0.25) / 5 = 0.1125; LLR = 4 * 0.05 * (1.25 - 1.05) / 0.225.
    assert sprt.llr(scores, Hypotheses()) == pytest.approx(4 * 0.05 * 0.2 / 0.225)
    low, high = sprt.interval(scores)
    half = sprt.Z95 * math.sqrt(0.1125 / 4)
    assert (low, high) == pytest.approx((0.625 - half, 0.625 + half))


@pytest.mark.parametrize("seed", range(5))
def test_hypotheses_symmetric_about_a_half_give_mirrored_llrs(seed):
    rng = random.Random(seed)
    scores = [rng.choice([0, 0.25, 0.5, 0.75, 1]) for _ in range(rng.randint(1, 40))]
    symmetric = Hypotheses(s0=0.45, s1=0.55)
    mirrored = [1 - x for x in scores]
    assert sprt.llr(mirrored, symmetric) == pytest.approx(-sprt.llr(scores, symmetric))


def test_sets_scoring_exactly_s0_and_nothing_else_end_not_better():
    test = SequentialTest()
    while not test.done:
        test.record(0.5)
    # LLR = n (0.05)(1 - 1.05) / (2 * 0.25 / (n + 1)) = -0.005 n (n + 1): below -2.944
    # first at n = 24 (600 * 0.005 = 3.0; 23 sets give 2.76).
    assert test.verdict == sprt.NOT_BETTER and len(test.scores) == 24


def run_once(rng: random.Random, hypotheses: Hypotheses, p_ahead: float, size: int) -> str:
    """One test on simulated sets: NEW ahead of OLD in each of a set's `size` matches
    with probability `p_ahead` (a tie a quarter of the rest)."""
    test = SequentialTest(hypotheses)
    while not test.done:
        points = 0.0
        for _ in range(size):
            draw = rng.random()
            points += 1.0 if draw < p_ahead else 0.5 if draw < p_ahead + (1 - p_ahead) / 4 else 0
        test.record(points / size)
    return test.verdict


def test_the_false_positive_rate_of_equal_bots_stays_within_alpha():
    rng = random.Random(2026)
    hypotheses = Hypotheses(max_sets=300)
    runs = 600
    verdicts = []
    for _ in range(runs):
        test = SequentialTest(hypotheses)
        while not test.done:
            # NEW = OLD: each match ahead, tied or behind with probabilities 0.4, 0.2, 0.4.
            points = sum(rng.choices([1.0, 0.5, 0.0], [0.4, 0.2, 0.4])[0] for _ in range(4))
            test.record(points / 4)
        verdicts.append(test.verdict)
    rate = verdicts.count(sprt.BETTER) / runs
    allowed = hypotheses.alpha + 3 * math.sqrt(hypotheses.alpha * (1 - hypotheses.alpha) / runs)
    assert rate <= allowed, f"{rate:.3f} of equal pairs ended better (allowed {allowed:.3f})"
    assert verdicts.count(sprt.NOT_BETTER) > runs / 2  # and most end where they should


def test_a_clearly_better_bot_is_found_better():
    rng = random.Random(7)
    verdicts = [run_once(rng, Hypotheses(), 0.7, 4) for _ in range(100)]
    assert verdicts.count(sprt.BETTER) >= 95


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"s0": 0}, "s0 must be between 0 and 1"),
        ({"s1": 0.5}, "s1 (0.5) must be above s0"),
        ({"alpha": 0.5}, "alpha must be above 0 and below 0.5"),
        ({"beta": 0}, "beta must be above 0"),
        ({"max_sets": 1}, "max_sets must be at least 2"),
        ({"max_sets": 2.5}, "max_sets must be a whole number"),
    ],
)
def test_bad_hypotheses_are_refused_with_the_reason(changes, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Hypotheses(**changes)


# -- sets ---------------------------------------------------------------------------------
def test_a_set_plays_every_rotation_once_with_one_seed_and_cycles_the_opponents():
    opponents = ["greedy", "search", "random"]
    first, second = plan_set(0, 100, 4, opponents), plan_set(1, 100, 4, opponents)
    assert (first.seed, second.seed) == (100, 101)
    assert first.tables[0] == (NEW, OLD, "greedy", "search")
    assert second.tables[0] == (NEW, "random", OLD, "greedy")  # the cycle goes on
    # OLD's place after NEW moves on a seat a set: N - 1 sets hold it in every place.
    places = [plan_set(i, 100, 4, opponents).tables[0].index(OLD) for i in range(6)]
    assert places == [1, 2, 3, 1, 2, 3]
    for plan in (first, second):
        assert len(plan.tables) == 4 and len(set(plan.tables)) == 4
        for seat in range(4):  # each entrant sits in each seat exactly once
            assert sorted(table[seat] for table in plan.tables) == sorted(plan.tables[0])
    assert plan_set(3, 1, 2, []).tables == ((NEW, OLD), (OLD, NEW))


def test_a_set_needs_opponents_for_a_table_larger_than_two():
    with pytest.raises(ValueError, match="needs 1 opponents"):
        plan_set(0, 1, 3, [])
    with pytest.raises(ValueError, match="at least 2 seats"):
        plan_set(0, 1, 1, ["greedy"])


def test_a_sets_score_counts_new_ahead_of_old_and_a_tie_as_half():
    plan = plan_set(0, 5, 3, ["greedy"])  # (N, O, g), (O, g, N), (g, N, O)
    assert plan.tables == ((NEW, OLD, "greedy"), (OLD, "greedy", NEW), ("greedy", NEW, OLD))
    results = [
        Result(ranks=(1, 2, 3), scores=(3, 2, 1)),  # NEW ahead
        Result(ranks=(1, 1, 3), scores=(3, 3, 1)),  # OLD 1, NEW 3: behind
        Result(ranks=(1, 2, 2), scores=(3, 2, 2)),  # NEW and OLD tie
    ]
    assert set_score(plan, results) == pytest.approx(0.5)
    test = SequentialTest()
    test.add(plan, results)
    report = test.report()
    assert report["sets"] == 1 and report["matches"] == 3 and report["score"] == 0.5
    # NEW ranked 1, 3, 2 and OLD 2, 1, 2 in the three rotations.
    assert report["mean_rank"] == {"new": 2.0, "old": pytest.approx(5 / 3, abs=1e-3)}
    assert report["faults"] == {"new": 0, "old": 0}


def test_results_that_do_not_fit_the_set_and_scores_out_of_range_are_refused():
    plan = plan_set(0, 5, 2, [])
    with pytest.raises(ValueError, match="a set of 2 matches, not 1 results"):
        set_score(plan, [Result(ranks=(1, 2), scores=(1, 0))])
    test = SequentialTest()
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="a set score is from 0 to 1"):
            test.record(bad)
    assert test.scores == [] and test.matches == 0  # nothing was counted


def test_faults_are_counted_per_side_and_a_finished_test_takes_no_more_sets():
    plan = plan_set(0, 5, 2, [])
    faulted = [
        Result(ranks=(2, 1), scores=(0, 1), statuses=("crash", "ok")),  # NEW crashed
        Result(ranks=(1, 2), scores=(1, 0), statuses=("ok", "timeout")),  # NEW again
    ]
    test = SequentialTest(Hypotheses(max_sets=2))
    test.add(plan, faulted)
    test.add(plan, faulted)
    assert test.report()["faults"] == {"new": 4, "old": 0} and test.done
    with pytest.raises(ValueError, match="the test is over"):
        test.add(plan, faulted)
