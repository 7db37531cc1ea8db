"""TrueSkill for free-for-all matches: pure functions, no database.

Every seat is its own team; ranks come from the match (ties share a rank,
faulted seats already rank last). The shown skill is the conservative
μ − 3σ. τ (the dynamics factor) is small in open play so ratings keep
moving a little, and 0 in tournaments.
"""

from __future__ import annotations

from dataclasses import dataclass

import trueskill

MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
DRAW_PROBABILITY = 0.10
OPEN_PLAY_TAU = 0.05


@dataclass(frozen=True)
class Skill:
    """One version's rating."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def conservative(self) -> float:
        """The number shown on the leaderboard: μ − 3σ."""
        return conservative(self.mu, self.sigma)


# A new version of a bot starts from its predecessor's μ with σ at least this wide:
# a fix is probably close to the old skill (no climb from the bottom), but may
# be better or worse, so it moves fast for its first matches. Half the
# starting σ: about ten matches settle it where a brand-new bot needs thirty.
SUCCESSOR_SIGMA = SIGMA / 2


def successor(predecessor: Skill | None) -> Skill:
    """The starting skill of a new version: its predecessor's μ, σ widened to at least
    SUCCESSOR_SIGMA (never narrowed, never above the starting σ); the default for a
    bot's first version."""
    if predecessor is None:
        return Skill()
    return Skill(predecessor.mu, min(SIGMA, max(predecessor.sigma, SUCCESSOR_SIGMA)))


def conservative(mu: float, sigma: float) -> float:
    """μ − 3σ: a skill the bot is very likely above."""
    return mu - 3 * sigma


def rate(skills: list[Skill], ranks: list[int], tau: float = OPEN_PLAY_TAU) -> list[Skill]:
    """New skills after a free-for-all with 1-based `ranks` (ties share a rank)."""
    if len(skills) != len(ranks):
        raise ValueError(f"{len(skills)} skills but {len(ranks)} ranks")
    if len(skills) < 2:
        raise ValueError("a rated match needs at least two seats")
    if tau < 0:
        raise ValueError(f"tau must not be negative, not {tau}")
    for rank in ranks:
        if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= len(ranks):
            raise ValueError(f"ranks are integers from 1 to {len(ranks)}, not {rank!r}")
    env = trueskill.TrueSkill(
        mu=MU, sigma=SIGMA, beta=BETA, tau=tau, draw_probability=DRAW_PROBABILITY, backend=None
    )
    teams = [(env.create_rating(s.mu, s.sigma),) for s in skills]
    # trueskill wants 0-based ranks where lower is better; equal ranks are a draw.
    rated = env.rate(teams, ranks=[r - 1 for r in ranks])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]
