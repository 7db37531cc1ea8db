"""People's ratings at live tables: bots held fixed, people updated as TrueSkill says."""

import pytest
import trueskill

from ladder.ranking.humans import rate_people
from ladder.ranking.ratings import BETA, DRAW_PROBABILITY, MU, SIGMA, Skill


def env(tau: float) -> trueskill.TrueSkill:
    return trueskill.TrueSkill(
        mu=MU, sigma=SIGMA, beta=BETA, tau=tau, draw_probability=DRAW_PROBABILITY, backend=None
    )


def test_a_person_beating_a_bot_moves_as_trueskill_says_and_the_bot_stays():
    person, bot = Skill(), Skill(30.0, 2.0)
    after = rate_people([person, bot], [1, 2], people=[0], tau=0.05)
    ts = env(0.05)
    won, _lost = trueskill.rate_1vs1(
        ts.create_rating(MU, SIGMA), ts.create_rating(30.0, 2.0), env=ts
    )
    assert after[0].mu == pytest.approx(won.mu) and after[0].sigma == pytest.approx(won.sigma)
    assert after[1] == bot  # the bot's ladder rating is never moved
    assert after[0].mu > MU and after[0].sigma < SIGMA


def test_losing_to_a_strong_bot_costs_little_losing_to_a_weak_one_costs_much():
    strong = rate_people([Skill(), Skill(40.0, 1.0)], [2, 1], people=[0])[0]
    weak = rate_people([Skill(), Skill(10.0, 1.0)], [2, 1], people=[0])[0]
    assert MU - strong.mu < MU - weak.mu


def test_two_people_and_a_bot_rate_each_other_as_a_free_for_all():
    skills = [Skill(), Skill(28.0, 5.0), Skill(20.0, 3.0)]
    after = rate_people(skills, [2, 1, 3], people=[0, 1], tau=0)
    ts = env(0)
    teams = [(ts.create_rating(s.mu, s.sigma),) for s in skills]
    expected = ts.rate(teams, ranks=[1, 0, 2])
    for i in (0, 1):
        assert after[i].mu == pytest.approx(expected[i][0].mu)
        assert after[i].sigma == pytest.approx(expected[i][0].sigma)
    assert after[2] == skills[2]


def test_no_people_no_change_and_bad_seats_refused():
    skills = [Skill(), Skill()]
    assert rate_people(skills, [1, 2], people=[]) == skills
    with pytest.raises(ValueError, match="seat 2"):
        rate_people(skills, [1, 2], people=[2])
