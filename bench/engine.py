"""Engine speed: random-playout games/s and decisions/s per game, one core.

Run by hand: `.venv/bin/python bench/engine.py [--games N] [--runs R] [GAME ...]`.
Prints the median of R runs for every registered game and player count, and
the mean cost of one `legal_actions()` + `apply()` pair.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine


def one_run(game, players: int, games: int, seed: int) -> tuple[float, int]:
    """Seconds and decisions for `games` random playouts."""
    chooser = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    for g in range(games):
        state = game.new_game(players, seed=seed * 100_003 + g)
        while not state.is_over():
            legal = state.legal_actions()
            state.apply(legal[chooser.randrange(len(legal))])
            decisions += 1
    return time.perf_counter() - start, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--games", type=int, default=200, help="games per run")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
    args = parser.parse_args()
    names = args.names or engine.game_names()
    print(f"{'game':<10} {'players':>7} {'games/s':>10} {'decisions/s':>12} {'us/decision':>12}")
    for name in names:
        game = engine.get_game(name)
        for players in range(game.min_players, game.max_players + 1):
            rates, drates = [], []
            for run in range(args.runs):
                seconds, decisions = one_run(game, players, args.games, run + 1)
                rates.append(args.games / seconds)
                drates.append(decisions / seconds)
            gps, dps = statistics.median(rates), statistics.median(drates)
            print(f"{name:<10} {players:>7} {gps:>10.1f} {dps:>12.0f} {1e6 / dps:>12.1f}")


if __name__ == "__main__":
    main()
