"""How well each tournament format finds the best bot: a simulation, no sandbox, no database.

Run by hand: `.venv/bin/python bench/tournaments.py [--runs N] [--entrants N] [--sizes 3 4]`.

Entrants have known strengths, evenly spaced over `--spread` (as in
`bench/matchsim.py`; β ≈ 4.2 is TrueSkill's performance noise). In a match a
seat performs

    strength + luck(seed, seat) + form(seed, rotation, seat)

with both terms Gaussian: `luck` is what the match's seed deals the seat (dice,
the deal of the cards, the order of play), the same for whoever sits there
when a duplicate set replays the seed in another rotation; `form` is the bot's
own variation, fresh every match. Seats rank by performance, and the
performance is the game score (the first tie-break). Each run draws new
strengths' order and a new tournament seed; the same runs serve every format.

For each format the variants play the same number of matches where they can:
- `single, R rounds`: one match a table, the format's default length;
- `single, t·R rounds`: one match a table, as many matches as a duplicate set
  (round robin and Swiss only: an elimination's rounds are fixed);
- `sets of t seeds`: every table a set of t matches, seats rotated, a seed each;
- `duplicate`: every table a set of t matches, seats rotated, one seed.
Printed per variant: matches in all, how often the truly best entrant finishes
first, and the mean Kendall τ of the final standings against the true order.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.matchsim import kendall_tau
from ladder.ranking.ratings import BETA
from ladder.tournaments import Match, Result, Tournament, derive_seed, play

GAME_FOR_SIZE = {2: "caravelas", 3: "manila", 4: "manila", 5: "manila"}


def simulated(strength: dict, luck: float, form: float):
    """A `play_matches` for `tournament.play` under the model above."""

    def play_matches(batch: list[Match]):
        for match in batch:
            dealt = random.Random(derive_seed(match.seed, "luck"))
            seat_luck = [dealt.gauss(0.0, luck) for _ in match.seats]
            fresh = random.Random(derive_seed(match.seed, "form", match.rotation))
            perf = [
                strength[e] + seat_luck[seat] + fresh.gauss(0.0, form)
                for seat, e in enumerate(match.seats)
            ]
            ranks = tuple(1 + sum(other > p for other in perf) for p in perf)
            yield match, Result(ranks, tuple(perf))

    return play_matches


def variants(fmt: str, n: int, size: int) -> list[tuple[str, dict]]:
    """(label, Tournament settings) of every variant of a format, as described above."""
    base = Tournament(GAME_FOR_SIZE[size], tuple(range(n)), fmt, table_size=size)
    rounds = None if fmt == "elimination" else base.length
    found = [(f"single, {rounds or 'all'} rounds", {"rounds": rounds})]
    if fmt != "elimination":
        found.append((f"single, {size}·{rounds} rounds", {"rounds": size * rounds}))
    found.append((f"sets of {size} seeds", {"rounds": rounds, "matches_per_table": size}))
    found.append(("duplicate", {"rounds": rounds, "duplicate": True}))
    return found


def measure(fmt: str, settings: dict, n: int, size: int, runs: int, spread, luck, form):
    """(matches, share of runs the best entrant won, mean Kendall τ) over `runs` runs."""
    wins, taus, matches = 0, [], 0
    for run in range(runs):
        rng = random.Random(run)
        strengths = [spread * i / (n - 1) for i in range(n)]
        rng.shuffle(strengths)
        strength = dict(enumerate(strengths))
        t = Tournament(
            GAME_FOR_SIZE[size], tuple(range(n)), fmt, table_size=size, seed=run, **settings
        )
        results = play(t, simulated(strength, luck, form))
        matches = len(results)
        order = [line.entrant for line in t.standings(results)]
        wins += order[0] == max(strength, key=strength.get)
        placed = {e: n - i for i, e in enumerate(order)}
        taus.append(kendall_tau([placed[e] for e in range(n)], strengths))
    return matches, wins / runs, statistics.mean(taus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="seeded runs per figure")
    parser.add_argument("--entrants", type=int, default=16)
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 4], help="table sizes")
    parser.add_argument("--spread", type=float, default=15.0, help="weakest to strongest")
    parser.add_argument(
        "--luck", type=float, nargs="+", default=[BETA / 2, 2 * BETA], help="σ of seat luck"
    )
    parser.add_argument("--form", type=float, default=BETA / 2, help="σ of a bot's own form")
    args = parser.parse_args()
    n = args.entrants
    print(
        f"{n} entrants, strengths 0..{args.spread:g}, form σ {args.form:.1f},"
        f" {args.runs} runs per line"
    )
    for size in args.sizes:
        for luck in args.luck:
            print(f"\ntables of {size}, seat luck σ {luck:.1f}")
            print(f"{'format':<12} {'variant':<22} {'matches':>8} {'best wins':>10} {'tau':>6}")
            for fmt in ("round-robin", "swiss", "elimination"):
                for label, settings in variants(fmt, n, size):
                    started = time.perf_counter()
                    matches, best, tau = measure(
                        fmt, settings, n, size, args.runs, args.spread, luck, args.form
                    )
                    took = time.perf_counter() - started
                    print(
                        f"{fmt:<12} {label:<22} {matches:>8} {best:>10.0%} {tau:>6.3f}"
                        f"   ({took:.0f} s)",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
