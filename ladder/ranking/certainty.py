"""How sure a rating is: pure figures over (μ, σ), no database (ladder/RATINGS.md).

- `provisional`: a rating still too wide, or earned on too few opponents, to rank
  beside settled ones.
- `prob_stronger`: the chance that one bot's skill is above another's.
- `matches_to_confidence`: how many more matches would make that chance 95 %, under
  the stated approximation (each match adds a fixed amount of information, μ stays).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

from ladder.ranking.ratings import MU, Skill, rate

# A rating is provisional while σ is above this: μ ± 2σ then spans more than 10 points,
# more than two β (4.17, the spread of one match's performance), so its place on the
# board may still move by several rows. A brand-new bot starts at 8.33, a new version
# of a bot at 4.17 (`ratings.SUCCESSOR_SIGMA`): both start provisional.
PROVISIONAL_SIGMA = 2.5
# ... or while it has met fewer opponents than this, counting a match at a table of n
# as n - 1 opponents met: 24 two-player matches, 12 at three players, 8 at four, 6 at
# five. A table of n ranks a bot against n - 1 others at once, so fewer big tables
# tell as much as more small ones; counting matches alone would call a bot that plays
# five-player tables provisional for longer than one that plays heads-up.
PROVISIONAL_OPPONENTS = 24
# The probability `matches_to_confidence` aims at, and its one-sided normal quantile.
CONFIDENCE = 0.95
Z_CONFIDENCE = 1.6448536269514722  # Φ⁻¹(0.95)
# The σ of a settled bot, at which `even_match_information` measures one match.
SETTLED_SIGMA = 1.0
# `matches_to_confidence` stops counting here and answers None.
MATCHES_LIMIT = 10_000


def opponents_met(games_by_table_size: Mapping[int, int]) -> int:
    """Opponents met over a bot's matches: Σ games × (table size − 1)."""
    total = 0
    for size, games in games_by_table_size.items():
        if isinstance(size, bool) or not isinstance(size, int) or size < 2:
            raise ValueError(f"a table size is an integer of at least 2, not {size!r}")
        if isinstance(games, bool) or not isinstance(games, int) or games < 0:
            raise ValueError(f"games are a whole number of at least 0, not {games!r}")
        total += games * (size - 1)
    return total


def provisional(mu: float, sigma: float, games_by_table_size: Mapping[int, int]) -> bool:
    """Whether a rating is provisional: σ > PROVISIONAL_SIGMA, or fewer than
    PROVISIONAL_OPPONENTS opponents met over its matches (by table size)."""
    _check(mu, sigma)
    return sigma > PROVISIONAL_SIGMA or opponents_met(games_by_table_size) < PROVISIONAL_OPPONENTS


def phi(x: float) -> float:
    """The standard normal CDF, Φ."""
    return 0.5 * math.erfc(-x / math.sqrt(2))


def prob_stronger(a: tuple[float, float], b: tuple[float, float]) -> float:
    """P(skill_a > skill_b) for independent Gaussian skills a = (μa, σa), b = (μb, σb):
    Φ((μa − μb) / √(σa² + σb²)).

    β (one match's performance noise) is left out on purpose: the question is which bot
    is stronger, not which finishes ahead in one match. With β the answer would be
    capped below 1 for any two bots however often they played (two close bots stay near
    a coin toss per match), so "how many matches to 95 %" would have no answer.
    Two exactly known equal skills (σ = 0 both) answer 0.5.
    """
    (mu_a, sigma_a), (mu_b, sigma_b) = a, b
    _check(mu_a, sigma_a)
    _check(mu_b, sigma_b)
    spread = math.hypot(sigma_a, sigma_b)
    if spread == 0:
        return 0.5 if mu_a == mu_b else float(mu_a > mu_b)
    return phi((mu_a - mu_b) / spread)


@functools.lru_cache(maxsize=16)
def even_match_information(players: int) -> float:
    """Information (1/σ² gained) one free-for-all of `players` gives a settled bot:
    TrueSkill's own update (`ratings.rate`, τ = 0) of `players` even seats of σ =
    SETTLED_SIGMA ranked 1..n, averaged over the seats. Heads-up that is about
    1/(1 − w/c²) − 1 = 0.0185 (w = 0.666, the win's variance factor at an even match with
    the draw margin; c² = 2β² + 2σ² = 36.72); at bigger tables a seat is compared with
    more neighbours and gains more."""
    if isinstance(players, bool) or not isinstance(players, int) or players < 2:
        raise ValueError(f"a match has 2 or more players, not {players!r}")
    seats = [Skill(MU, SETTLED_SIGMA)] * players
    after = rate(seats, list(range(1, players + 1)), tau=0.0)
    return sum(1 / s.sigma**2 - 1 / SETTLED_SIGMA**2 for s in after) / players


def information_per_match(sigma_start: float, sigma_now: float, games: int) -> float | None:
    """Information one match gave a bot, from its own history: (1/σ_now² − 1/σ_start²) /
    games. None when it tells nothing (no games, σ not narrowed); callers then use
    `even_match_information`. Open play's τ widens σ a little each match, so this is
    slightly less than the information truly gained: the estimate errs long."""
    _check(0.0, sigma_start)
    _check(0.0, sigma_now)
    if isinstance(games, bool) or not isinstance(games, int) or games < 0:
        raise ValueError(f"games are a whole number of at least 0, not {games!r}")
    if games == 0 or sigma_now <= 0 or sigma_now >= sigma_start:
        return None
    return (1 / sigma_now**2 - 1 / sigma_start**2) / games


def matches_to_confidence(
    a: tuple[float, float],
    b: tuple[float, float],
    info_a: float,
    info_b: float,
    rate_a: float = 1.0,
    rate_b: float = 1.0,
    limit: int = MATCHES_LIMIT,
) -> int | None:
    """More matches bot a plays, at the current rates, until P(the one ahead in μ is
    stronger) ≥ 95 %; 0 if it already is, None if not within `limit` (or never: equal μ).

    The approximation: μ of each stays where it is, and each match adds a fixed
    information (`info_a`, `info_b`: 1/σ² gained per match), so after n matches of a,
    while b plays n × rate_b / rate_a, σa² = 1 / (1/σa² + n·info_a) and likewise b.
    The chance is then Φ(|μa − μb| / √(σa² + σb²)), which grows with n.
    """
    (mu_a, sigma_a), (mu_b, sigma_b) = a, b
    for info in (info_a, info_b):
        if not info > 0 or math.isinf(info):
            raise ValueError(f"information per match is a positive number, not {info!r}")
    for pace in (rate_a, rate_b):
        if not pace > 0 or math.isinf(pace):
            raise ValueError(f"a rate of play is a positive number, not {pace!r}")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"the limit is a whole number of at least 0, not {limit!r}")
    gap = abs(mu_a - mu_b)
    if max(prob_stronger(a, b), prob_stronger(b, a)) >= CONFIDENCE:
        return 0
    if gap == 0:
        return None
    # The summed variance the gap needs: gap / √(σa² + σb²) ≥ z.
    wanted = (gap / Z_CONFIDENCE) ** 2
    share_b = rate_b / rate_a

    def variance_after(n: int) -> float:
        va = 1 / (1 / sigma_a**2 + n * info_a) if sigma_a > 0 else 0.0
        vb = 1 / (1 / sigma_b**2 + n * share_b * info_b) if sigma_b > 0 else 0.0
        return va + vb

    if variance_after(limit) > wanted:
        return None
    low, high = 0, limit  # variance_after(low) > wanted >= variance_after(high)
    while high - low > 1:
        middle = (low + high) // 2
        if variance_after(middle) > wanted:
            low = middle
        else:
            high = middle
    return high


def _check(mu: float, sigma: float) -> None:
    if not math.isfinite(mu) or not math.isfinite(sigma) or sigma < 0:
        raise ValueError(f"a rating is a finite μ and a σ of at least 0, not ({mu!r}, {sigma!r})")
