"""Engine speed: random-playout games/s and decisions/s per game, one core.

Run by hand: `.venv/bin/python bench/engine.py [--games N] [--runs R] [--points P] [GAME ...]`.
Prints the median of R runs for every registered game and player count, and
the mean cost of one `legal_actions()` + `apply()` pair. Then, for search bots,
at P random decision points of random games: `determinize` of the seat's view
plus one random playout to the end per second, `determinize` alone, and the
cost of `clone()` against `copy.deepcopy` of the same state.
"""

from __future__ import annotations

import argparse
import copy
import json
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


def decision_points(game, players: int, count: int, seed: int) -> list[tuple[dict, object]]:
    """(the seat's view as a bot gets it, a clone of the state) at random decision points."""
    points: list[tuple[dict, object]] = []
    game_seed = seed
    while len(points) < count:
        # Play once for the length, then again to stop at the chosen points (holding a
        # clone of every step would fill the heap and time the collector, not the engine).
        length, _ = one_game(game, players, game_seed, set())
        picks = random.Random(game_seed).sample(range(length), min(count - len(points), 10))
        _, states = one_game(game, players, game_seed, set(picks))
        for state in states:
            view = json.loads(json.dumps(state.view(state.current_player())))
            points.append((view, state))
        game_seed += 1
    return points


def one_game(game, players: int, seed: int, picks: set[int]) -> tuple[int, list]:
    """A random game's length, and clones of its states at the steps in `picks`."""
    state, chooser = game.new_game(players, seed=seed), random.Random(seed)
    clones, step = [], 0
    while not state.is_over():
        if step in picks:
            clones.append(state.clone())
        state.apply(chooser.choice(state.legal_actions()))
        step += 1
    return step, clones


def search_costs(game, players: int, count: int) -> dict[str, float]:
    """Determinize + playout per second, and µs per determinize, clone and deepcopy.

    CPU time of this process (`time.process_time`), so other work on a shared
    machine does not count.
    """
    points = decision_points(game, players, count, seed=players)
    clock, chooser = time.process_time, random.Random(0)
    start = clock()
    for k, (view, _state) in enumerate(points):
        world = game.determinize(view, k)
        while not world.is_over():
            legal = world.legal_actions()
            world.apply(legal[chooser.randrange(len(legal))])
    per_s = len(points) / (clock() - start)
    start = clock()
    for _ in range(10):
        for k, (view, _state) in enumerate(points):
            game.determinize(view, k)
    determinize = (clock() - start) / (10 * len(points))
    start = clock()
    for _ in range(20):
        for _view, state in points:
            state.clone()
    clone = (clock() - start) / (20 * len(points))
    start = clock()
    for _view, state in points:
        copy.deepcopy(state)
    deep = (clock() - start) / len(points)
    return {
        "per_s": per_s,
        "determinize_us": 1e6 * determinize,
        "clone_us": 1e6 * clone,
        "deepcopy_us": 1e6 * deep,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--games", type=int, default=200, help="games per run")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--points", type=int, default=30, help="decision points for search costs")
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
    if args.points <= 0:
        return
    print()
    print(
        f"{'game':<10} {'players':>7} {'det+play/s':>11} {'det us':>8}"
        f" {'clone us':>9} {'deepcopy us':>12}"
    )
    for name in names:
        game = engine.get_game(name)
        for players in range(game.min_players, game.max_players + 1):
            c = search_costs(game, players, args.points)
            print(
                f"{name:<10} {players:>7} {c['per_s']:>11.1f} {c['determinize_us']:>8.0f}"
                f" {c['clone_us']:>9.1f} {c['deepcopy_us']:>12.0f}"
            )


if __name__ == "__main__":
    main()
