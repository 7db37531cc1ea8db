"""How sure a rating is: provisional marks, P(stronger), matches to 95 %, against values
worked out by hand (the workings beside each row)."""

import math

import pytest

from ladder.ranking import certainty
from ladder.ranking.certainty import (
    even_match_information,
    information_per_match,
    matches_to_confidence,
    opponents_met,
    prob_stronger,
    provisional,
)


@pytest.mark.parametrize(
    "sigma, games, expected",
    [
        (2.4, {3: 12}, False),  # 12 x 2 = 24 opponents met: settled
        (2.4, {3: 11}, True),  # 22 opponents
        (2.5, {2: 24}, False),  # σ at the threshold is not above it
        (2.6, {2: 100}, True),  # many games, σ still wide
        (1.0, {4: 8}, False),  # 8 x 3 = 24
        (1.0, {5: 5, 2: 3}, True),  # 5 x 4 + 3 x 1 = 23
        (8.33, {}, True),  # a new bot
    ],
)
def test_provisional_by_sigma_and_opponents_met(sigma, games, expected):
    assert provisional(25.0, sigma, games) is expected


@pytest.mark.parametrize(
    "games, message",
    [({1: 3}, "table size"), ({True: 3}, "table size"), ({3: -1}, "games"), ({3: 1.5}, "games")],
)
def test_opponents_met_refuses_bad_counts(games, message):
    with pytest.raises(ValueError, match=message):
        opponents_met(games)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ((25.0, 3.0), (25.0, 4.0), 0.5),
        ((30.0, 3.0), (25.0, 4.0), 0.8413447461),  # Φ(5 / 5) = Φ(1)
        ((25.0, 4.0), (30.0, 3.0), 0.1586552539),  # Φ(−1)
        ((28.29, 0.0), (25.0, 2.0), 0.9500150945),  # Φ(3.29 / 2) = Φ(1.645)
        ((20.0, 0.0), (25.0, 0.0), 0.0),  # both known exactly
        ((25.0, 0.0), (25.0, 0.0), 0.5),
        ((40.0, 1.0), (10.0, 1.0), 1.0),  # Φ(21.2): 1 to double precision
    ],
)
def test_prob_stronger(a, b, expected):
    assert prob_stronger(a, b) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("bad", [(math.nan, 1.0), (25.0, -1.0), (math.inf, 1.0)])
def test_prob_stronger_refuses_a_bad_rating(bad):
    with pytest.raises(ValueError, match="a rating is"):
        prob_stronger(bad, (25.0, 1.0))


def test_even_match_information_heads_up_by_hand():
    # β = 25/6, σ = 1: c² = 2β² + 2σ² = 36.722, c = 6.0599; draw margin
    # ε = Φ⁻¹(0.55)·√2·β = 0.74047, ε/c = 0.12219; v = φ(−0.12219)/Φ(−0.12219)
    # = 0.39698/0.45137 = 0.87948; w = v(v − ε/c) = 0.66602;
    # σ'² = 1 − w/c² = 0.98186, so 1/σ'² − 1/σ² = 0.01847.
    assert even_match_information(2) == pytest.approx(0.01847, rel=1e-2)


def test_even_match_information_grows_with_the_table():
    found = [even_match_information(n) for n in (2, 3, 4, 5)]
    assert found == sorted(found) and found[0] < found[-1] / 1.5


@pytest.mark.parametrize("players", [1, 0, True, 2.0])
def test_even_match_information_refuses_bad_players(players):
    with pytest.raises(ValueError, match="players"):
        even_match_information(players)


@pytest.mark.parametrize(
    "start, now, games, expected",
    [
        (25 / 3, 2.5, 10, 0.014560),  # (1/6.25 − 1/69.444) / 10 = (0.16 − 0.0144) / 10
        (25 / 6, 2.0, 4, 0.048100),  # (1/4 − 1/17.361) / 4 = (0.25 − 0.0576) / 4
        (25 / 3, 25 / 3, 5, None),  # σ did not narrow
        (25 / 3, 3.0, 0, None),  # no games
    ],
)
def test_information_per_match(start, now, games, expected):
    found = information_per_match(start, now, games)
    if expected is None:
        assert found is None
    else:
        assert found == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    "a, b, rate_b, limit, expected",
    [
        # Want σa² + σb² ≤ (5 / 1.6449)² = 9.2397, info 0.02 each a match:
        # n=6: 1/(1/9 + 0.12) + 1/(1/16 + 0.12) = 4.327 + 5.479 = 9.806 > 9.2397
        # n=7: 1/(1/9 + 0.14) + 1/(1/16 + 0.14) = 3.982 + 4.938 = 8.920 ≤ 9.2397
        ((30.0, 3.0), (25.0, 4.0), 1.0, 10_000, 7),
        ((25.0, 4.0), (30.0, 3.0), 1.0, 10_000, 7),  # either way round
        # b plays twice as often (b's info 0.04 for each match of a):
        # n=4: 1/0.19111 + 1/0.2225 = 5.233 + 4.494 = 9.727 >; n=5: 4.737 + 3.810 = 8.547 ≤
        ((30.0, 3.0), (25.0, 4.0), 2.0, 10_000, 5),
        ((35.0, 2.0), (25.0, 2.0), 1.0, 10_000, 0),  # Φ(10 / 2.83) ≈ 0.9998 already
        ((25.0, 3.0), (25.0, 3.0), 1.0, 10_000, None),  # equal μ: never, with μ put
        ((25.01, 3.0), (25.0, 3.0), 1.0, 100, None),  # not within the limit
    ],
)
def test_matches_to_confidence(a, b, rate_b, limit, expected):
    assert matches_to_confidence(a, b, 0.02, 0.02, 1.0, rate_b, limit=limit) == expected


def test_matches_to_confidence_reaches_the_confidence_it_counts():
    a, b = (27.0, 2.0), (25.0, 1.5)
    n = matches_to_confidence(a, b, 0.03, 0.01)
    assert n is not None and n > 0

    def chance(k):
        sa = (1 / (1 / 4.0 + k * 0.03)) ** 0.5
        sb = (1 / (1 / 2.25 + k * 0.01)) ** 0.5
        return prob_stronger((27.0, sa), (25.0, sb))

    assert chance(n) >= certainty.CONFIDENCE > chance(n - 1)


@pytest.mark.parametrize(
    "info_a, rate_b, limit, message",
    [
        (0.0, 1.0, 10, "information"),
        (-1.0, 1.0, 10, "information"),
        (math.nan, 1.0, 10, "information"),
        (0.02, 0.0, 10, "rate"),
        (0.02, math.inf, 10, "rate"),
        (0.02, 1.0, -1, "limit"),
    ],
)
def test_matches_to_confidence_refuses_bad_figures(info_a, rate_b, limit, message):
    with pytest.raises(ValueError, match=message):
        matches_to_confidence((26.0, 2.0), (25.0, 2.0), info_a, 0.02, 1.0, rate_b, limit=limit)
