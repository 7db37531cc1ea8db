"""Matches needed to rank a simulated ladder, and how far off its table mix each bot is.

Run by hand: `.venv/bin/python bench/matchmaking.py [--seeds N] [--bots N] [--spread S ...]
[--strategies NAME ...] [--jobs J]`. For every game's player range and every strength
spread, each strategy runs on the same seeds (the same bots, the same rng seed, every
bot the same form match after match: `bench/matchsim.py`), and the report gives, per
strategy:

- the matches played until the leaderboard's μ − 3σ order reaches Kendall τ ≥ 0.9
  against the true strengths: median and quartiles over the seeds (a run that never
  gets there counts as the budget);
- the same seed by seed against `mix off` (the matchmaking blind to the mix, as before
  issue 34): the geometric mean of the ratios with its 95 % interval;
- τ after a fixed number of matches (`mix off`'s median), and its mean difference from
  `mix off`'s with a 95 % interval: a steadier view of the same race;
- the share of its tables of each size;
- after the matches `mix off` needed, the median over the seeds of the worst bot's
  distance from the target mix: the largest gap between its share of a table size and
  the target share (`size`), and between its share of a seat at one size and that
  seat's even share (`seat`, sizes it played 10 times or more). House bots count.

`mix on` is the matchmaking as the scheduler runs it; `seats` deals the seats of
`mix off`'s tables as `mix on` does, which gives the ratings exactly what `mix off`
gives them, so its figures against `mix off` show how much luck the comparison still
holds; `uniform` draws tables at random.

`--fill N` instead times `make_table` alone (the scheduler's CPU per table, apart
from the database) on a ladder of N Manila bots that have played 100 matches each,
with the mix off and on.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
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


def run(
    bots, name, game, seed, budget, goal, until=0, horizon=0
) -> tuple[int, float, float, Counter, float | None]:
    """(matches until τ ≥ goal, or the budget; the worst bot's size and seat gaps after
    `until` matches or those it took, whichever is more; tables by size over as many;
    τ after `horizon` matches, if given)."""
    truth = [b.strength for b in bots]
    target = table_mix.even_tables(game.min_players, game.max_players)
    reached = tau_at = None
    rng = random.Random(seed)
    for played, skills, mix in ladder(
        bots, STRATEGIES[name], game.min_players, game.max_players, rng
    ):
        if reached is None or played == horizon:
            shown = [skills[b.version_id].conservative for b in bots]
            tau = kendall_tau(shown, truth)
            if played == horizon:
                tau_at = tau
            if reached is None and (tau >= goal or played >= budget):
                reached = played
        if reached is not None and played >= max(reached, until, horizon):
            tables: Counter = Counter()  # a table of n seats is n bots' match
            for played_by_bot in mix.values():
                for (size, _), n in played_by_bot.items():
                    tables[size] += n / size
            return reached, *worst_gaps(mix, target), tables, tau_at
    raise AssertionError("the simulated ladder stopped")  # pragma: no cover


def one_seed(job: tuple) -> dict:
    """Every strategy on one seed: `mix off` first, then the rest with its matches."""
    names, game_name, spread, seed, args, horizon = job
    game = engine.get_game(game_name)
    bots = make_bots(args.bots, random.Random(seed), spread=spread)
    base = run(bots, "mix off", game, seed, args.budget, args.target, 0, horizon)
    found = {"mix off": base}
    for name in names:
        if name != "mix off":
            found[name] = run(bots, name, game, seed, args.budget, args.target, base[0], horizon)
    return found


def interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and a 95 % interval (normal approximation: 20 seeds or more)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, mean - half, mean + half


def report(names: list[str], runs: list[dict]) -> None:
    """One line per strategy of one game and spread (see the module's docstring)."""
    base = [r["mix off"] for r in runs]
    for name in names:
        mine = [r[name] for r in runs]
        counts = sorted(m[0] for m in mine)
        q1, q2, q3 = statistics.quantiles(counts, n=4) if len(counts) > 1 else counts * 3
        ratio = interval([math.log(m[0] / b[0]) for m, b in zip(mine, base, strict=True)])
        taus = [m[4] for m in mine]
        delta = interval([m[4] - b[4] for m, b in zip(mine, base, strict=True)])
        tables: Counter = Counter()
        for m in mine:
            tables.update(m[3])
        total = sum(tables.values())
        shares = "/".join(f"{100 * tables[s] / total:.0f}" for s in sorted(tables))
        gaps = [statistics.median(m[i] for m in mine) for i in (1, 2)]
        vs = (
            f"{math.exp(ratio[0]):5.2f} [{math.exp(ratio[1]):.2f}, {math.exp(ratio[2]):.2f}]"
            if name != "mix off"
            else f"{'—':>18}"
        )
        dt = f"{delta[0]:+.3f} [{delta[1]:+.3f}, {delta[2]:+.3f}]" if name != "mix off" else "—"
        print(
            f"  {name:<8} {q2:6.0f} [{q1:4.0f}–{q3:4.0f}]  {vs}  "
            f"{statistics.fmean(taus):.3f} {dt:>24}  {shares:>9}  "
            f"{gaps[0]:.2f}, {gaps[1]:.2f}",
            flush=True,
        )


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
    parser.add_argument("--seeds", type=int, default=40, help="runs per figure")
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
    parser.add_argument(
        "--strategies",
        nargs="+",
        choices=list(STRATEGIES),
        default=["mix off", "mix on", "seats"],
        help="strategies to compare with mix off",
    )
    parser.add_argument("--games", nargs="+", choices=engine.game_names(), default=None)
    parser.add_argument("--jobs", type=int, default=1, help="processes (seeds run apart)")
    parser.add_argument("--fill", type=int, metavar="N", help="time make_table on N bots")
    args = parser.parse_args()
    if args.fill:
        time_fill(args.fill)
        return
    if args.seeds < 2:
        parser.error("--seeds needs 2 or more (the figures are over seeds)")
    names = ["mix off", *(n for n in args.strategies if n != "mix off")]
    print(
        f"{args.seeds} seeds, {args.bots} bots. Per strategy: matches to τ ≥ {args.target}"
        " median [quartiles]; vs mix off seed by seed: ratio [95 % interval]; τ after"
        " H matches (mix off's median) and its difference from mix off's [95 %];"
        " % of tables by size; worst bot's gap from the target mix: size, seat"
    )
    with ProcessPoolExecutor(args.jobs) as pool:
        for game_name in args.games or engine.game_names():
            game = engine.get_game(game_name)
            for spread in args.spread:
                seeds = range(1, args.seeds + 1)
                first = pool.map(
                    one_seed, [(["mix off"], game_name, spread, s, args, 0) for s in seeds]
                )
                horizon = round(statistics.median(r["mix off"][0] for r in first))
                jobs = [(names, game_name, spread, s, args, horizon) for s in seeds]
                runs = list(pool.map(one_seed, jobs))
                print(
                    f"{game_name} {game.min_players}-{game.max_players} seats,"
                    f" spread {spread:.0f}, H = {horizon}:",
                    flush=True,
                )
                report(names, runs)


if __name__ == "__main__":
    main()
