"""How the house search bots fare against two greedy bots, in the real sandbox.

Run by hand: `.venv/bin/python bench/search_bots.py [--games 200] [--jobs 2]
[--engine-at REF] [GAME ...]`.

For each game it runs `ladder play GAME GAME/search GAME/greedy GAME/greedy
--games N --jobs J --json` (seats rotate from game to game, seeds from
`--seed` on) and prints: games, the search bot's wins (rank 1, shared ranks
included) and win rate with a 95% Wilson interval (a fair share is a third),
its mean rank, the mean and 95th percentile wall-clock time of its decisions
and their mean CPU time (from the replays' `decision_ms` and
`decision_cpu_ms`), and the seats that faulted. The machine's load average
is printed before and after: on a busy machine a move's wall-clock budget buys
less CPU, so the bot searches fewer worlds.

Before and after an engine change: `--engine-at REF` plays the same matches with
the engine as it stood at git ref REF (exported with `git archive`, first on
`PYTHONPATH`), for the referee and, through the sandbox's copy of the referee's
engine, for the bots' forward model. The search bots think for a fixed time a
move, so a faster engine shows as more worlds a move and a higher win rate.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.engine import export_engine  # noqa: E402

GAMES = ("manila", "meuterer", "caravelas")
Z95 = 1.96


@dataclass
class Figures:
    """One game's tally for the search seat."""

    game: str
    games: int = 0
    wins: int = 0
    rank_sum: int = 0
    wall_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    faults: dict[str, int] = field(default_factory=dict)  # "search: timeout" -> count
    seconds: float = 0.0

    def add(self, match: dict) -> None:
        """Count one `ladder play --json` line."""
        replay = match["replay"]
        seat = replay["seats"].index(f"{self.game}/search")
        self.games += 1
        self.wins += match["ranks"][seat] == 1
        self.rank_sum += match["ranks"][seat]
        for (who, _action), wall, cpu in zip(
            replay["actions"], replay["decision_ms"], replay["decision_cpu_ms"], strict=True
        ):
            if who == seat and wall is not None:
                self.wall_ms.append(wall)
                if cpu is not None:
                    self.cpu_ms.append(cpu)
        for who, status in enumerate(match["statuses"]):
            if status != "ok":
                key = f"{replay['seats'][who]}: {status}"
                self.faults[key] = self.faults.get(key, 0) + 1

    def row(self) -> dict:
        low, high = wilson(self.wins, self.games)
        return {
            "game": self.game,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.wins / self.games if self.games else None,
            "win_rate_95": [low, high],
            "mean_rank": self.rank_sum / self.games if self.games else None,
            "decisions": len(self.wall_ms),
            "mean_ms": statistics.fmean(self.wall_ms) if self.wall_ms else None,
            "p95_ms": percentile(self.wall_ms, 0.95),
            "mean_cpu_ms": statistics.fmean(self.cpu_ms) if self.cpu_ms else None,
            "faults": dict(self.faults),
            "seconds": round(self.seconds, 1),
        }


def wilson(wins: int, games: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate: sound near 0 and 1, unlike p ± 2σ."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + Z95**2 / (2 * games)) / (1 + Z95**2 / games)
    half = Z95 * math.sqrt(p * (1 - p) / games + Z95**2 / (4 * games**2)) / (1 + Z95**2 / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: list[float], q: float) -> float | None:
    """The nearest-rank q-quantile (None for no values)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def ladder_command() -> list[str]:
    """The `ladder` console script beside this Python (the venv's), else the module."""
    script = Path(sys.executable).with_name("ladder")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from ladder.cli import main; main()"]


def measure(game: str, games: int, jobs: int, seed: int, env: dict | None = None) -> Figures:
    """Play the games through `ladder play` and tally the search seat's figures."""
    bots = [f"{game}/search", f"{game}/greedy", f"{game}/greedy"]
    command = [*ladder_command(), "play", game, *bots, "--games", str(games),
               "--jobs", str(jobs), "--seed", str(seed), "--json"]  # fmt: skip
    figures = Figures(game)
    started = time.perf_counter()
    # stderr (the progress bar and any fault report) goes straight to the terminal.
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env) as proc:
        for line in proc.stdout:
            if line.strip():
                figures.add(json.loads(line))
    if proc.returncode != 0:
        raise SystemExit(f"ladder play {game} failed with exit code {proc.returncode}")
    figures.seconds = time.perf_counter() - started
    return figures


def show(row: dict) -> str:
    low, high = row["win_rate_95"]
    faults = ", ".join(f"{k} ×{v}" for k, v in row["faults"].items()) or "none"
    return (
        f"{row['game']:<10} games {row['games']:>4}  wins {row['wins']:>4}"
        f"  win rate {row['win_rate']:.1%} [{low:.1%}, {high:.1%}]"
        f"  mean rank {row['mean_rank']:.2f}"
        f"  ms/move mean {row['mean_ms']:.1f} p95 {row['p95_ms']:.1f}"
        f" (CPU mean {row['mean_cpu_ms'] or 0:.1f}) over {row['decisions']} moves"
        f"  faults {faults}  ({row['seconds']:.0f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games_to_play", nargs="*", metavar="GAME", help="default: every game")
    parser.add_argument("--games", type=int, default=200, help="matches per game")
    parser.add_argument("--jobs", type=int, default=2, help="matches at once")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first match")
    parser.add_argument("--json", action="store_true", help="one JSON line per game instead")
    parser.add_argument("--engine-at", metavar="REF", help="play with the engine at git ref REF")
    args = parser.parse_args()
    chosen = args.games_to_play or list(GAMES)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
          f" on {os.cpu_count()} CPUs", file=sys.stderr)  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        env = None
        if args.engine_at:
            export_engine(args.engine_at, Path(tmp))
            env = {**os.environ, "PYTHONPATH": tmp}
            print(f"engine as at {args.engine_at}", file=sys.stderr)
        for game in chosen:
            row = measure(game, args.games, args.jobs, args.seed, env).row()
            print(json.dumps(row) if args.json else show(row), flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", file=sys.stderr)


if __name__ == "__main__":
    main()
