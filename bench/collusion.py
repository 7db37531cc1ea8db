"""The collusion check on a simulated ladder: how soon a kingmaker pair is flagged, and how
often honest pairs are.

Run by hand: `.venv/bin/python bench/collusion.py [--runs N] [--honest-runs N]
[--matches N] [--bots N] [--boost B] [--throw T] [--jobs J]`.

A ladder of honest bots of strengths spread evenly over 30 points (about seven
β), each of its own owner, plus two house bots (never paired), is matched by
the real matchmaking (`make_table`) and rated by the real ratings code
(`rate`), like `bench/matchsim.py`: a seat's performance is its strength plus
N(0, β) noise. In planted runs two of the honest owners, at most NEAR places
apart in strength, are a kingmaker pair:
at a table together the sibling performs `boost`·β better and the kingmaker
`throw`·β worse (it bids the rival up, throws rounds). Every pair of owners
seated together gets the terms of `ladder.ranking.collusion`, from the ratings
before each match, as the service computes them from stored seats.

Printed: in planted runs, the shared matches after which the pair is first
flagged (looking after each of its shared matches; median and quartiles over
the runs); in honest runs (no kingmaker), the share of runs whose final look
flags any pair (the family-wise rate, to compare with α) and the share of
honest pairs whose uncorrected p-value is below 0.05 (to compare with 0.05: is
z standard normal?).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from ladder.ranking import collusion
from ladder.ranking.matchmaking import Candidate, make_table
from ladder.ranking.ratings import BETA, MU, Skill, rate

HOUSE = 2
SPREAD = 30.0
NEAR = 3  # the planted pair are at most this many places apart in strength


@dataclass(frozen=True)
class Setting:
    bots: int
    matches: int
    min_players: int
    max_players: int
    boost: float  # the sibling's gain with its kingmaker at the table, in β
    throw: float  # what the kingmaker gives up there, in β
    alpha: float
    planted: bool


@dataclass(frozen=True)
class Outcome:
    first_flag: int | None  # shared matches when the planted pair was first flagged
    shared: int  # shared matches of the planted pair by the end
    flagged_at_end: bool  # the planted pair, at the last look
    honest_flags: int  # honest pairs flagged at the last look
    honest_tested: int
    honest_below_05: int  # honest tested pairs with an uncorrected p < 0.05


def ranks_of(performance: list[float]) -> list[int]:
    """1-based ranks, best performance first."""
    return [1 + sum(other > p for other in performance) for p in performance]


def flagged_pairs(sums: dict, alpha: float) -> tuple[set, dict]:
    """The pairs Holm flags at `alpha` among those with enough matches, and their p-values."""
    tested = [k for k, (_, _, n) in sums.items() if n >= collusion.MIN_MATCHES]
    pvalues = {}
    for k in tested:
        surprise, variance, _ = sums[k]
        pvalues[k] = collusion.two_sided_p(surprise / variance**0.5)
    adjusted = collusion.holm([pvalues[k] for k in tested])
    return {k for k, a in zip(tested, adjusted, strict=True) if a <= alpha}, pvalues


def run(setting: Setting, seed: int) -> Outcome:
    """One simulated ladder."""
    rng = random.Random(seed)
    n = setting.bots
    strength = {v: MU - SPREAD / 2 + SPREAD * i / (n - 1) for i, v in enumerate(range(1, n + 1))}
    house = set(rng.sample(range(1, n + 1), HOUSE))
    owner = {v: 0 if v in house else v for v in strength}
    # The planted pair are near in strength: matchmaking seats bots of near μ together,
    # and a pair that hardly meets cannot be seen (nor does its kingmaking matter much).
    owners = sorted(set(strength) - house)
    kingmaker = rng.choice(owners)
    sibling = rng.choice([v for v in owners if v != kingmaker and abs(v - kingmaker) <= NEAR])
    planted = tuple(sorted((kingmaker, sibling))) if setting.planted else None
    skills = {v: Skill() for v in strength}
    games = dict.fromkeys(strength, 0)
    sums: dict[tuple[int, int], list] = {}
    first_flag = None
    for _ in range(setting.matches):
        candidates = [
            Candidate(v, owner[v], skills[v].mu, skills[v].sigma, games[v], v in house)
            for v in strength
        ]
        table = make_table(candidates, setting.min_players, setting.max_players, rng)
        performance = [strength[v] + rng.gauss(0.0, BETA) for v in table]
        together = planted is not None and kingmaker in table and sibling in table
        if together:
            performance[table.index(sibling)] += setting.boost * BETA
            performance[table.index(kingmaker)] -= setting.throw * BETA
        ranks = ranks_of(performance)
        before = [skills[v] for v in table]
        model = collusion.TableModel([s.mu for s in before], [s.sigma for s in before])
        for x in range(len(table)):
            for y in range(x + 1, len(table)):
                a, b = sorted((x, y), key=lambda i: table[i])
                if table[a] in house or table[b] in house:
                    continue
                t = collusion.term(0, model, ranks, a, b)
                entry = sums.setdefault((table[a], table[b]), [0.0, 0.0, 0])
                entry[0] += t.surprise
                entry[1] += t.variance
                entry[2] += 1
        for v, new in zip(table, rate(before, ranks), strict=True):
            skills[v] = new
            games[v] += 1
        if together and first_flag is None and planted in flagged_pairs(sums, setting.alpha)[0]:
            first_flag = sums[planted][2]
    flagged, pvalues = flagged_pairs(sums, setting.alpha)
    honest = [k for k in pvalues if k != planted]
    return Outcome(
        first_flag,
        sums.get(planted, (0, 0, 0))[2] if planted else 0,
        planted in flagged,
        sum(k in flagged for k in honest),
        len(honest),
        sum(pvalues[k] < 0.05 for k in honest),
    )


def quartiles(values: list[int]) -> str:
    if len(values) < 2:
        return str(values)
    q1, q2, q3 = statistics.quantiles(values, n=4)
    return f"median {q2:.0f} (quartiles {q1:.0f}-{q3:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="manila", help="table sizes from this game")
    parser.add_argument("--bots", type=int, default=12)
    parser.add_argument("--matches", type=int, default=1000, help="matches per simulated ladder")
    parser.add_argument("--runs", type=int, default=40, help="ladders with a planted pair")
    parser.add_argument("--honest-runs", type=int, default=100, help="ladders without one")
    parser.add_argument("--boost", type=float, default=1.0, help="sibling's gain, in β")
    parser.add_argument("--throw", type=float, default=1.0, help="kingmaker's loss, in β")
    parser.add_argument("--alpha", type=float, default=collusion.ALPHA)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    game = engine.get_game(args.game)
    common = (args.bots, args.matches, game.min_players, game.max_players, args.boost, args.throw)
    planted = Setting(*common, args.alpha, True)
    honest = Setting(*common, args.alpha, False)
    print(
        f"{args.game}: {args.bots} bots ({HOUSE} house), {game.min_players}-{game.max_players}"
        f" seats, {args.matches} matches a ladder; kingmaker: sibling +{args.boost}β,"
        f" kingmaker -{args.throw}β; α = {args.alpha} (Holm), tested from"
        f" {collusion.MIN_MATCHES} shared matches",
        flush=True,
    )
    with ProcessPoolExecutor(args.jobs) as pool:
        seeds = range(1, args.runs + 1)
        found = list(pool.map(run, [planted] * args.runs, seeds))
        clean = list(
            pool.map(run, [honest] * args.honest_runs, range(10_001, 10_001 + args.honest_runs))
        )
    firsts = [o.first_flag for o in found if o.first_flag is not None]
    print(
        f"planted pair ({args.runs} ladders): flagged in {len(firsts)} at some look,"
        f" after {quartiles(firsts)} shared matches; flagged at the last look in"
        f" {sum(o.flagged_at_end for o in found)} (shared matches by then:"
        f" {quartiles([o.shared for o in found])})"
    )
    print(
        f"  honest pairs in those ladders: {sum(o.honest_flags for o in found)} flags at the"
        f" last look among {sum(o.honest_tested for o in found)} pair-tests"
    )
    tested = sum(o.honest_tested for o in clean)
    below = sum(o.honest_below_05 for o in clean)
    looks = sum(o.honest_flags > 0 for o in clean)
    print(
        f"honest ladders ({args.honest_runs}): the last look flags some pair in {looks}"
        f" ({looks / max(1, len(clean)):.1%}; family-wise, α = {args.alpha});"
        f" {sum(o.honest_flags for o in clean)} flags among {tested} pair-tests;"
        f" uncorrected p < 0.05 in {below / max(1, tested):.1%} of them"
    )


if __name__ == "__main__":
    main()
