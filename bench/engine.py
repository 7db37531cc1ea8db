"""Engine speed: random-playout games/s and decisions/s per game, one core.

Run by hand: `.venv/bin/python bench/engine.py [--games N] [--runs R] [--points P] [GAME ...]`.
Prints the median of R runs for every registered game and player count, and
the mean cost of one `legal_actions()` + `apply()` pair. Then, for search bots,
at P random decision points of random games: `determinize` of the seat's view
plus one random playout to the end per second, `determinize` alone, the
cost of `clone()` against `copy.deepcopy` of the same state, and of `view()` for
the seat on move (a bot's greedy rollout asks for one at every step).

Before and after: `--against REF` (a git ref: a commit, branch or tag) measures
the same figures for the engine as it stands at REF and for this checkout's,
each run in a fresh subprocess whose engine comes first on `sys.path` (REF's
exported with `git archive REF engine` to a temporary folder), the two taking
turns run by run so that a change of load on the machine touches both. It prints
each figure's median for both and the speed-up (this checkout against REF: above
1 is faster), per game and player count and per game over all its table sizes.

All times are CPU time of the measuring process (`time.process_time`), so other
work on a shared machine counts as little as it can.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import json
import math
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent

# The figures of one run per game and player count, and whether more is better.
FIGURES = {
    "games/s": True,
    "decisions/s": True,
    "det+play/s": True,
    "det us": False,
    "clone us": False,
    "view us": False,
}


def one_run(game, players: int, games: int, seed: int) -> tuple[float, int]:
    """CPU seconds and decisions for `games` random playouts."""
    chooser = random.Random(seed)
    decisions = 0
    start = time.process_time()
    for g in range(games):
        state = game.new_game(players, seed=seed * 100_003 + g)
        while not state.is_over():
            legal = state.legal_actions()
            state.apply(legal[chooser.randrange(len(legal))])
            decisions += 1
    return time.process_time() - start, decisions


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


def search_costs(game, players: int, count: int, deepcopy: bool = True) -> dict[str, float]:
    """Determinize + playout per second, and µs per determinize, clone, view (and deepcopy)."""
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
    for _ in range(10):
        for _view, state in points:
            state.view(state.current_player())
    view = (clock() - start) / (10 * len(points))
    costs = {
        "per_s": per_s,
        "determinize_us": 1e6 * determinize,
        "clone_us": 1e6 * clone,
        "view_us": 1e6 * view,
    }
    if deepcopy:
        start = clock()
        for _view, state in points:
            copy.deepcopy(state)
        costs["deepcopy_us"] = 1e6 * (clock() - start) / len(points)
    return costs


def measure(engine: ModuleType, names: list[str], games: int, points: int, run: int) -> dict:
    """One run of every figure: {game: {players: {figure: value}}} (JSON keys are strings)."""
    out: dict = {}
    for name in names:
        game = engine.get_game(name)
        for players in range(game.min_players, game.max_players + 1):
            seconds, decisions = one_run(game, players, games, run + 1)
            row = {"games/s": games / seconds, "decisions/s": decisions / seconds}
            if points > 0:
                c = search_costs(game, players, points, deepcopy=False)
                row |= {
                    "det+play/s": c["per_s"],
                    "det us": c["determinize_us"],
                    "clone us": c["clone_us"],
                    "view us": c["view_us"],
                }
            out.setdefault(name, {})[str(players)] = row
    return out


def export_engine(ref: str, folder: Path) -> None:
    """Write the `engine` package as it stands at git ref `ref` into `folder`."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "engine"], capture_output=True, check=False
    )
    if archive.returncode != 0:
        reason = archive.stderr.decode(errors="replace").strip()
        raise SystemExit(f"cannot export the engine at {ref!r}: {reason}")
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)


def measured_in_subprocess(root: Path, names: list[str], args, run: int) -> dict:
    """`measure` in a fresh Python whose `engine` is the one under `root`."""
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", str(root)]
    command += ["--run", str(run), "--games", str(args.games), "--points", str(args.points)]
    done = subprocess.run([*command, *names], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"measuring the engine under {root} failed:\n{done.stderr}")
    return json.loads(done.stdout)


def against(ref: str, names: list[str], args) -> None:
    """Alternate runs of REF's engine and this checkout's; print medians and speed-ups."""
    runs: dict[str, list[dict]] = {"ref": [], "this": []}
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as tmp:
        export_engine(ref, Path(tmp))
        roots = {"ref": Path(tmp), "this": ROOT}
        for run in range(args.runs):
            # Each goes first every other run, so a trend in the machine's load is shared.
            order = ("ref", "this") if run % 2 == 0 else ("this", "ref")
            for side in order:
                runs[side].append(measured_in_subprocess(roots[side], names, args, run))
    print(f"this checkout against {ref}: medians of {args.runs} alternated runs, CPU time")
    print(f"{'game':<10} {'players':>7} {'figure':<12} {ref[:12]:>12} {'this':>12} {'speed-up':>9}")
    for name in names:
        gains: dict[str, list[float]] = {}
        for players in runs["this"][0][name]:
            for figure, more_is_better in FIGURES.items():
                if figure not in runs["this"][0][name][players]:
                    continue
                before = statistics.median(r[name][players][figure] for r in runs["ref"])
                after = statistics.median(r[name][players][figure] for r in runs["this"])
                gain = after / before if more_is_better else before / after
                gains.setdefault(figure, []).append(gain)
                print(
                    f"{name:<10} {players:>7} {figure:<12} {before:>12.1f} {after:>12.1f}"
                    f" {gain:>8.2f}x"
                )
        for figure, values in gains.items():
            mean = math.exp(statistics.fmean(math.log(v) for v in values))
            print(f"{name:<10} {'all':>7} {figure:<12} {'':>12} {'':>12} {mean:>8.2f}x")


def load_engine(root: Path) -> ModuleType:
    """Import `engine` from `root` (first on sys.path)."""
    sys.path.insert(0, str(root))
    return importlib.import_module("engine")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="games to measure (default: all)")
    parser.add_argument("--games", type=int, default=200, help="games per run")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--points", type=int, default=30, help="decision points for search costs")
    parser.add_argument("--against", metavar="REF", help="compare with the engine at git ref REF")
    parser.add_argument("--measure", metavar="ROOT", help=argparse.SUPPRESS)
    parser.add_argument("--run", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:  # one run of an against comparison, in its own process
        engine = load_engine(Path(args.measure))
        names = args.names or engine.game_names()
        print(json.dumps(measure(engine, names, args.games, args.points, args.run)))
        return
    engine = load_engine(ROOT)
    names = args.names or engine.game_names()
    unknown = [name for name in names if name not in engine.game_names()]
    if unknown:
        parser.error(f"unknown game {unknown[0]!r} (known: {', '.join(engine.game_names())})")
    if args.against:
        against(args.against, names, args)
        return
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
        f" {'clone us':>9} {'view us':>8} {'deepcopy us':>12}"
    )
    for name in names:
        game = engine.get_game(name)
        for players in range(game.min_players, game.max_players + 1):
            c = search_costs(game, players, args.points)
            print(
                f"{name:<10} {players:>7} {c['per_s']:>11.1f} {c['determinize_us']:>8.0f}"
                f" {c['clone_us']:>9.1f} {c['view_us']:>8.1f} {c['deepcopy_us']:>12.0f}"
            )


if __name__ == "__main__":
    main()
