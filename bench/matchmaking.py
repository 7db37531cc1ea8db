"""Matches needed to rank a simulated ladder, and how far off its table mix each bot is.

Run by hand: `.venv/bin/python bench/matchmaking.py [--seeds N] [--bots N] [--spread S ...]`.
For every game's player range and every strength spread, prints the median (over
the seeds) of the matches played until the leaderboard's μ − 3σ order reaches
Kendall τ ≥ 0.9 against the true strengths, for the ladder's matchmaking with the
table mix balanced (`mix on`, as the scheduler runs it), without (`mix off`, as
before issue 34) and uniformly random tables. Then, after the matches `mix off`
needed, the median of the worst bot's distance from the target mix: the largest
gap between its share of a table size and the target share (`size`), and between
its share of a seat at one size and that seat's even share (`seat`, sizes it played
10 times or more). Every strategy sees the same bots and the same rng seed; a run
that never reaches τ counts as the budget.

`--fill N` instead times `make_table` alone (the scheduler's CPU per table, apart
from the database) on a ladder of N Manila bots that have played 100 matches each,
with the mix off and on.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bench.matchsim import STRATEGIES, kendall_tau, ladder, make_bots
from ladder.ranking import table_mix
from ladder.ranking.matchmaking import Candidate, make_table

# Seat shares of a size are judged only where the bot played it this often.
SEAT_FLOOR = 10


def worst_gaps(mix: dict[int, Counter], target: dict[int, float]) -> tuple[float, float]:
    """The largest gap, over all bots, from the target share of a size, and from the
    even share of a seat at one size."""
    size_gap = seat_gap = 0.0
    for played in mix.values():
        by_size, by_seat = table_mix.mix_of(played)
        for size, share in target.items():
            size_gap = max(size_gap, abs(by_size.get(size, 0.0) - share))
        for (size, _), share in by_seat.items():
            if table_mix.games_at(played, size) >= SEAT_FLOOR:
                seat_gap = max(seat_gap, abs(share - 1 / size))
    return size_gap, seat_gap


def run(bots, name, game, seed, budget, goal, until=None) -> tuple[int, float, float]:
    """(matches until τ ≥ goal, or the budget; the worst bot's size and seat gaps after
    `until` matches, or after those it took to reach τ without `until`)."""
    truth = [b.strength for b in bots]
    target = table_mix.even_tables(game.min_players, game.max_players)
    reached = None
    rng = random.Random(seed)
    for played, skills, mix in ladder(
        bots, STRATEGIES[name], game.min_players, game.max_players, rng
    ):
        if reached is None:
            shown = [skills[b.version_id].conservative for b in bots]
            if kendall_tau(shown, truth) >= goal or played >= budget:
                reached = played
        if reached is not None and played >= (until or reached):
            return reached, *worst_gaps(mix, target)
    raise AssertionError("the simulated ladder stopped")  # pragma: no cover


def time_fill(count: int, tables: int = 300) -> None:
    """Milliseconds per `make_table` on `count` Manila bots, mix off and on."""
    rng = random.Random(1)
    pool = [
        Candidate(i, 1 + i // 2, rng.uniform(0, 50), rng.uniform(1, 3), 100) for i in range(count)
    ]
    played = {
        c.version_id: Counter((size, rng.randrange(size)) for size in rng.choices([3, 4, 5], k=100))
        for c in pool
    }
    target = table_mix.target_sizes("manila", 3, 5)
    for label, mix in (("off", None), ("on", played)):
        draw = random.Random(2)
        started = time.process_time()
        for _ in range(tables):
            make_table(pool, 3, 5, draw, (), mix, target if mix else None)
        ms = (time.process_time() - started) * 1000 / tables
        print(f"make_table, {count:,} bots, mix {label:>3}: {ms:6.2f} ms CPU a table", flush=True)


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
    parser.add_argument("--fill", type=int, metavar="N", help="time make_table on N bots")
    args = parser.parse_args()
    if args.fill:
        time_fill(args.fill)
        return
    names = list(STRATEGIES)
    print(
        f"{'game':<10} {'seats':>5} {'spread':>6} "
        + " ".join(f"{n:>9}" for n in names)
        + "   worst bot's gap, mix off → on: size, seat"
    )
    for game_name in engine.game_names():
        game = engine.get_game(game_name)
        seats = f"{game.min_players}-{game.max_players}"
        for spread in args.spread:
            found: dict[str, list[tuple[int, float, float]]] = {n: [] for n in names}
            for seed in range(1, args.seeds + 1):
                bots = make_bots(args.bots, random.Random(seed), spread=spread)
                base = run(bots, "mix off", game, seed, args.budget, args.target)
                found["mix off"].append(base)
                for name in names:
                    if name != "mix off":
                        found[name].append(
                            run(bots, name, game, seed, args.budget, args.target, base[0])
                        )

            def median(name: str, column: int) -> float:
                return statistics.median(f[column] for f in found[name])  # noqa: B023

            cells = " ".join(f"{median(n, 0):>9.0f}" for n in names)
            gaps = (
                f"{median('mix off', 1):.2f} → {median('mix on', 1):.2f},"
                f" {median('mix off', 2):.2f} → {median('mix on', 2):.2f}"
            )
            print(f"{game_name:<10} {seats:>5} {spread:>6.0f} {cells}   {gaps}", flush=True)


if __name__ == "__main__":
    main()
