"""Matches needed to rank a simulated ladder: matchmaking against uniformly random tables.

Run by hand: `.venv/bin/python bench/matchmaking.py [--seeds N] [--bots N] [--spread S ...]`.
For every game's player range and every strength spread, prints the median (over
the seeds) of the matches played until the leaderboard's μ − 3σ order reaches
Kendall τ ≥ 0.9 against the true strengths. Both strategies see the same bots
and the same rng seed; a run that never gets there counts as the budget.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bench.matchsim import STRATEGIES, make_bots, simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=9, help="runs per figure (median)")
    parser.add_argument("--bots", type=int, default=40, help="bots on the ladder")
    parser.add_argument(
        "--spread",
        type=float,
        nargs="+",
        default=[30.0, 15.0],
        help="distance between the weakest and strongest true strength (β ≈ 4.2)",
    )
    parser.add_argument("--budget", type=int, default=5000, help="matches before giving up")
    parser.add_argument("--target", type=float, default=0.9, help="Kendall τ to reach")
    args = parser.parse_args()
    names = list(STRATEGIES)
    print(f"{'game':<10} {'seats':>5} {'spread':>6} " + " ".join(f"{n:>12}" for n in names))
    for game_name in engine.game_names():
        game = engine.get_game(game_name)
        seats = f"{game.min_players}-{game.max_players}"
        for spread in args.spread:
            medians = []
            for name in names:
                counts = []
                for seed in range(1, args.seeds + 1):
                    bots = make_bots(args.bots, random.Random(seed), spread=spread)
                    played = simulate(
                        bots,
                        STRATEGIES[name],
                        game.min_players,
                        game.max_players,
                        random.Random(seed),
                        max_matches=args.budget,
                        target=args.target,
                    )
                    counts.append(args.budget if played is None else played)
                medians.append(statistics.median(counts))
            cells = " ".join(f"{m:>12.0f}" for m in medians)
            print(f"{game_name:<10} {seats:>5} {spread:>6.0f} {cells}", flush=True)


if __name__ == "__main__":
    main()
