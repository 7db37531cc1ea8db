"""TrueSkill free-for-all: who moves up, ties, fresh ratings, bad input."""

import pytest

from ladder.ranking.ratings import (
    MU,
    SIGMA,
    SUCCESSOR_SIGMA,
    Skill,
    conservative,
    rate,
    successor,
)


def test_fresh_skill_is_zero_conservative():
    assert Skill().mu == MU
    assert Skill().conservative == pytest.approx(0.0)
    assert conservative(30.0, 2.0) == 24.0


@pytest.mark.parametrize(
    ("ranks", "order"),
    [
        ([1, 2, 3, 4], [0, 1, 2, 3]),
        ([4, 3, 2, 1], [3, 2, 1, 0]),
        ([2, 1, 3], [1, 0, 2]),
    ],
)
def test_better_rank_gains_more(ranks, order):
    after = rate([Skill()] * len(ranks), ranks)
    mus = [after[i].mu for i in order]
    assert mus == sorted(mus, reverse=True)
    assert after[order[0]].mu > MU > after[order[-1]].mu
    assert all(s.sigma < SIGMA for s in after)


def test_tied_equal_players_stay_level():
    after = rate([Skill(), Skill()], [1, 1])
    assert after[0].mu == pytest.approx(after[1].mu)
    assert after[0].mu == pytest.approx(MU, abs=1e-6)


def test_upset_moves_more_than_expected_result():
    strong, weak = Skill(35.0, 2.0), Skill(15.0, 2.0)
    expected = rate([strong, weak], [1, 2])
    upset = rate([strong, weak], [2, 1])
    assert abs(upset[1].mu - weak.mu) > abs(expected[1].mu - weak.mu)


def test_tau_zero_keeps_settled_sigma_lower():
    settled = [Skill(25.0, 1.0), Skill(25.0, 1.0)]
    assert rate(settled, [1, 2], tau=0)[0].sigma < rate(settled, [1, 2], tau=0.5)[0].sigma


@pytest.mark.parametrize(
    ("skills", "ranks", "message"),
    [
        ([Skill()] * 2, [1], "2 skills but 1 ranks"),
        ([Skill()], [1], "at least two seats"),
        ([Skill()] * 2, [0, 1], "ranks are integers"),
        ([Skill()] * 2, [1, 3], "ranks are integers"),
        ([Skill()] * 2, [1, 1.5], "ranks are integers"),
    ],
)
def test_bad_input_is_refused(skills, ranks, message):
    with pytest.raises(ValueError, match=message):
        rate(skills, ranks)


def test_negative_tau_is_refused():
    with pytest.raises(ValueError, match="tau"):
        rate([Skill(), Skill()], [1, 2], tau=-1)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (None, Skill()),
        (Skill(31.0, 1.2), Skill(31.0, SUCCESSOR_SIGMA)),  # settled: σ widened
        (Skill(18.0, 6.0), Skill(18.0, 6.0)),  # still unsure: σ kept
        (Skill(40.0, 20.0), Skill(40.0, SIGMA)),  # never above the starting σ
    ],
)
def test_a_new_version_starts_from_its_predecessors_mu_with_a_wider_sigma(before, after):
    assert successor(before) == after
