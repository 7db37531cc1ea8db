"""A ladder in miniature, to judge matchmaking: bots of known strength, no database.

Each simulated match seats a table chosen by a strategy, ranks the seats by
true strength plus Gaussian performance noise (the model TrueSkill assumes),
and rates them with `ladder.ranking.ratings.rate`. We count how many matches pass
before the leaderboard (by μ − 3σ) orders the bots like their true strengths, and
keep each bot's table mix (matches by table size and seat) as the ladder does.

Each bot draws its performances from a stream of its own, seeded from the run's rng
before the first table: two strategies run from one seed give every bot the same
form, match after match (its k-th match goes as well for it under either), so
comparing them seed by seed leaves out that much of the luck.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from ladder.ranking import table_mix
from ladder.ranking.matchmaking import Candidate, make_table
from ladder.ranking.ratings import BETA, MU, Skill, rate

# A strategy takes the candidates, min and max players, an rng and each bot's matches
# by (table size, seat) so far; it returns a table in seat order.
Strategy = Callable[
    [Sequence[Candidate], int, int, random.Random, Mapping[int, Counter]], list[int] | None
]


@dataclass(frozen=True)
class SimBot:
    """A bot with the strength the ladder is trying to find."""

    version_id: int
    owner_id: int
    strength: float
    house: bool = False


def uniform_table(
    candidates: Sequence[Candidate],
    min_players: int,
    max_players: int,
    rng: random.Random,
    played: Mapping[int, Counter] | None = None,
) -> list[int] | None:
    """The baseline: a table size and its bots drawn uniformly at random."""
    if len(candidates) < min_players:
        return None
    size = rng.randint(min_players, min(max_players, len(candidates)))
    return [c.version_id for c in rng.sample(list(candidates), size)]


def matchmaking(
    candidates: Sequence[Candidate],
    min_players: int,
    max_players: int,
    rng: random.Random,
    played: Mapping[int, Counter] | None = None,
) -> list[int] | None:
    """The ladder's matchmaking blind to the bots' table mixes (as before issue 34)."""
    return make_table(candidates, min_players, max_players, rng)


def mixed(
    candidates: Sequence[Candidate],
    min_players: int,
    max_players: int,
    rng: random.Random,
    played: Mapping[int, Counter] | None = None,
) -> list[int] | None:
    """The ladder's matchmaking as the scheduler runs it: balancing every bot's table mix
    toward every size and seat equally."""
    return make_table(candidates, min_players, max_players, rng, played=played or {})


def seats_only(
    candidates: Sequence[Candidate],
    min_players: int,
    max_players: int,
    rng: random.Random,
    played: Mapping[int, Counter] | None = None,
) -> list[int] | None:
    """The tables of `mix off`, their seats dealt as `mix on` deals them: the same
    information for the ratings (the simulated seats are alike), so how far it lands
    from `mix off` is the luck a seed-by-seed comparison still holds."""
    table = make_table(candidates, min_players, max_players, rng)
    return None if table is None else table_mix.deal_seats(table, played or {}, rng)


STRATEGIES: dict[str, Strategy] = {
    "mix off": matchmaking,
    "mix on": mixed,
    "seats": seats_only,
    "uniform": uniform_table,
}


def kendall_tau(a: Sequence[float], b: Sequence[float]) -> float:
    """Kendall's τ-a between two scorings of the same items (tied pairs count zero)."""
    if len(a) != len(b) or len(a) < 2:
        raise ValueError("kendall_tau needs two equally long sequences of at least two items")
    n = len(a)
    score = 0
    for i in range(n):
        for j in range(i + 1, n):
            product = (a[i] - a[j]) * (b[i] - b[j])
            score += (product > 0) - (product < 0)
    return score / (n * (n - 1) / 2)


def make_bots(count: int, rng: random.Random, spread: float = 30.0, house: int = 4) -> list[SimBot]:
    """`count` bots with strengths evenly spaced over `spread` around the fresh μ of 25.

    A spread of 30 (about seven β) is a ladder from near-random bots to strong
    ones. Owners are mixed: the first `house` bots share the house account, and
    an owner often holds more than one version.
    """
    if count < 2 or not 0 <= house <= count or spread <= 0:
        raise ValueError(
            f"need two or more bots, 0..count house bots and a positive spread, "
            f"not {count}, {house}, {spread}"
        )
    bots = []
    owner = 1
    for i in range(count):
        if i < house:
            owner_id = 0
        else:
            owner_id = owner
            if rng.random() < 0.6:  # the next bot gets a new owner most of the time
                owner += 1
        strength = MU - spread / 2 + spread * i / (count - 1)
        bots.append(SimBot(i + 1, owner_id, strength, house=i < house))
    rng.shuffle(bots)
    return bots


def simulate(
    bots: Sequence[SimBot],
    strategy: Strategy,
    min_players: int,
    max_players: int,
    rng: random.Random,
    max_matches: int,
    target: float = 0.9,
    noise: float = BETA,
) -> int | None:
    """Matches played until Kendall τ of μ − 3σ against strength reaches `target`, or None."""
    truth = [b.strength for b in bots]
    for played, skills, _ in ladder(bots, strategy, min_players, max_players, rng, noise):
        shown = [skills[b.version_id].conservative for b in bots]
        if kendall_tau(shown, truth) >= target:
            return played
        if played >= max_matches:
            return None
    return None  # pragma: no cover (the ladder runs on for ever)


def ladder(
    bots: Sequence[SimBot],
    strategy: Strategy,
    min_players: int,
    max_players: int,
    rng: random.Random,
    noise: float = BETA,
) -> Iterator[tuple[int, dict[int, Skill], dict[int, Counter]]]:
    """The simulated ladder, match after match, for ever: after each, the matches
    played, every bot's rating and every bot's matches by (table size, seat)."""
    skills = {b.version_id: Skill() for b in bots}
    games = dict.fromkeys(skills, 0)
    mix: dict[int, Counter] = {v: Counter() for v in skills}
    strength = {b.version_id: b.strength for b in bots}
    form = {b.version_id: random.Random(rng.getrandbits(64)) for b in bots}
    for played in itertools.count(1):
        candidates = [
            Candidate(
                b.version_id,
                b.owner_id,
                skills[b.version_id].mu,
                skills[b.version_id].sigma,
                games[b.version_id],
                b.house,
            )
            for b in bots
        ]
        table = strategy(candidates, min_players, max_players, rng, mix)
        if table is None:
            raise ValueError("the strategy found no table; the simulation needs enough bots")
        performance = [strength[v] + form[v].gauss(0.0, noise) for v in table]
        ranks = [1 + sum(other > p for other in performance) for p in performance]
        for seat, (v, new) in enumerate(
            zip(table, rate([skills[v] for v in table], ranks), strict=True)
        ):
            skills[v] = new
            games[v] += 1
            mix[v][(len(table), seat)] += 1
        yield played, skills, mix
