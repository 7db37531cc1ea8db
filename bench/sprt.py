"""How many matches a verdict takes: SPRT over duplicate sets, against independent matches.

Two parts (`--parts`):

- `model` (no sandbox): each game's luck is modelled as a seat luck dealt by the seed
  (the same for whoever sits in that seat, so a duplicate set plays it from every
  seat) and a noise of each entrant in each match. Performance = skill + seat luck +
  noise; NEW is ahead of OLD when it performs better. The share of the variance that
  is seat luck is fitted per game to what the real engines show: the spread of the
  set scores of `greedy` against a copy of itself over duplicate sets (`--fit-sets`
  sets through the sandbox, random opponents). Then, with NEW's edge set so that its
  expected score is s1 (and to 0 for the false-positive rate), `--runs` simulated
  tests of each kind: the SPRT over duplicate sets (`ladder.tournaments.sprt`), the
  same SPRT over independent matches (each match a score of 1, ½ or 0), and the
  fixed-size test with the same error rates (its size from the per-match variance).
- `real` (through the sandbox, slow with search bots): `ladder test`'s runner on
  `greedy` against `random`, `search` against `greedy`, and `greedy` against itself,
  per game: verdict, sets, matches and wall time.
- `pair` (through the sandbox): a close pair on the real engine, no model. NEW is
  `greedy`, OLD the same bot playing a random legal move with probability `--eps`;
  `--pair-runs` tests of each kind, duplicate sets (`ladder test`'s runner) and the
  same SPRT over independent matches (a fresh seed and a random seating each), with
  `greedy` opponents: mean matches to a verdict, and how often it said `better`.

    .venv/bin/python bench/sprt.py                  # both parts, every game
    .venv/bin/python bench/sprt.py --parts model --runs 200
    .venv/bin/python bench/sprt.py --parts pair --games meuterer --pair-runs 10
"""

from __future__ import annotations

import argparse
import functools
import math
import random
import statistics
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from ladder.tournaments import local_sprt
from ladder.tournaments.local import Runner, end_sandboxes_at_exit, play_one
from ladder.tournaments.sprt import BETTER, NOT_BETTER, Hypotheses, SequentialTest
from workers import Limits


# -- the luck model ---------------------------------------------------------------------
def performances(rng: random.Random, skills: list[float], seat_luck: list[float], noise: float):
    return [s + luck + rng.gauss(0, noise) for s, luck in zip(skills, seat_luck, strict=True)]


def match_points(rng, edge: float, size: int, luck: float, noise: float, seats=None) -> float:
    """NEW's points against OLD in one match: NEW has skill `edge`, the rest 0."""
    lucks = seats if seats is not None else [rng.gauss(0, luck) for _ in range(size)]
    order = list(range(size))
    rng.shuffle(order)  # who sits where
    skills = [0.0] * size
    skills[order[0]] = edge
    perf = performances(rng, skills, lucks, noise)
    new, old = perf[order[0]], perf[order[1]]
    return 1.0 if new > old else 0.5 if new == old else 0.0


def set_points(rng, edge: float, size: int, luck: float, noise: float) -> float:
    """NEW's score over a duplicate set: one deal of seat luck, every rotation of a
    seating (NEW at seat r, OLD at r + 1, ...)."""
    lucks = [rng.gauss(0, luck) for _ in range(size)]
    points = 0.0
    for r in range(size):
        skills = [0.0] * size
        skills[r % size] = edge
        perf = performances(rng, skills, lucks, noise)
        new, old = perf[r % size], perf[(r + 1) % size]
        points += 1.0 if new > old else 0.5 if new == old else 0.0
    return points / size


def split(share: float) -> tuple[float, float]:
    """(seat luck sd, noise sd) with a total variance of 1 and `share` of it seat luck."""
    return math.sqrt(share), math.sqrt(1 - share)


def fit_share(target_sd: float, size: int, rng: random.Random, draws: int = 3000) -> float:
    """The seat-luck share whose equal-bot duplicate sets spread like the real ones."""
    best, best_gap = 0.0, float("inf")
    for share in [step / 20 for step in range(20)] + [0.98, 0.99]:
        luck, noise = split(share)
        sd = statistics.pstdev(set_points(rng, 0.0, size, luck, noise) for _ in range(draws))
        if abs(sd - target_sd) < best_gap:
            best, best_gap = share, abs(sd - target_sd)
    return best


def edge_for(score: float, size: int, share: float, rng: random.Random) -> float:
    """NEW's skill edge giving it an expected score of `score` against OLD."""
    luck, noise = split(share)
    low, high = 0.0, 2.0
    for _ in range(18):
        mid = (low + high) / 2
        mean = statistics.fmean(match_points(rng, mid, size, luck, noise) for _ in range(4000))
        low, high = (mid, high) if mean < score else (low, mid)
    return (low + high) / 2


def sprt_matches(draw, hypotheses: Hypotheses, per_draw: int) -> tuple[str, int]:
    test = SequentialTest(hypotheses)
    while not test.done:
        test.record(draw())
    return test.verdict, len(test.scores) * per_draw


def fixed_size(hypotheses: Hypotheses, match_sd: float) -> int:
    """Matches a one-sided z-test needs to tell s0 from s1 with errors α and β."""
    normal = statistics.NormalDist()
    z = normal.inv_cdf(1 - hypotheses.alpha) + normal.inv_cdf(1 - hypotheses.beta)
    return math.ceil((z * match_sd / (hypotheses.s1 - hypotheses.s0)) ** 2)


# -- fitting to the real engines ----------------------------------------------------------
def real_set_sd(game: str, size: int, sets: int, jobs: int) -> float:
    """The spread of set scores of greedy against itself, random opponents, real engine."""
    who = local_sprt.setup(f"{game}/greedy", f"{game}/greedy", [f"{game}/random"])
    hypotheses = Hypotheses(s0=0.5, s1=0.99, alpha=0.001, beta=0.001, max_sets=sets)
    test = local_sprt.run_test(game, who, size, hypotheses, 9000, Limits(), jobs)
    return statistics.pstdev(test.scores) if len(test.scores) > 1 else 0.0


def model_part(args) -> None:
    hypotheses = Hypotheses(max_sets=args.max_sets)
    print(
        f"matches to a verdict, H0 s={hypotheses.s0} H1 s={hypotheses.s1}, α=β={hypotheses.alpha},"
        f" {args.runs} simulated tests each, tables of {args.size}"
    )
    header = (
        f"{'game':10} {'luck':>5} {'dup SPRT':>14} {'indep SPRT':>14} {'fixed':>6}"
        f" {'dup/indep':>9} {'power dup/ind':>13} {'false + dup/ind':>15}"
    )
    print(header)
    for game in args.games:
        rng = random.Random(args.seed)
        target = real_set_sd(game, args.size, args.fit_sets, args.jobs)
        share = fit_share(target, args.size, rng)
        luck, noise = split(share)
        edge = edge_for(hypotheses.s1, args.size, share, rng)
        per_match = [match_points(rng, edge, args.size, luck, noise) for _ in range(20000)]
        found = {}
        # The same budget of matches either way: max_sets sets, or as many single matches.
        single = Hypotheses(max_sets=args.max_sets * args.size)
        kinds = {
            "dup": (args.size, hypotheses, functools.partial(set_points, rng)),
            "ind": (1, single, functools.partial(match_points, rng)),
        }
        for name, (per_draw, limits, play) in kinds.items():
            runs = {}
            for label, e in (("better", edge), ("null", 0.0)):
                draw = functools.partial(play, e, args.size, luck, noise)
                runs[label] = [sprt_matches(draw, limits, per_draw) for _ in range(args.runs)]
            better, null = runs["better"], runs["null"]
            found[name] = (
                statistics.fmean(m for _, m in better),
                statistics.median(m for _, m in better),
                sum(v == BETTER for v, _ in better) / args.runs,
                sum(v == BETTER for v, _ in null) / args.runs,
                sum(v == NOT_BETTER for v, _ in null) / args.runs,
            )
        fixed = fixed_size(hypotheses, statistics.pstdev(per_match))
        dup, ind = found["dup"], found["ind"]
        print(
            f"{game:10} {share:5.2f} {dup[0]:7.0f} ({dup[1]:4.0f}) {ind[0]:7.0f} ({ind[1]:4.0f})"
            f" {fixed:6} {dup[0] / ind[0]:9.2f} {dup[2]:6.2f}/{ind[2]:.2f}"
            f" {dup[3]:8.3f}/{ind[3]:.3f}   (real equal-bot set sd {target:.3f})",
            flush=True,
        )
    print(
        "(mean (median) matches when NEW's expected score is s1; luck: the fitted seat-luck share)"
    )


def real_part(args) -> None:
    print(f"through the sandbox, tables of {args.size}, --max-sets {args.max_sets}:")
    for game in args.games:
        for new, old, opponents in (
            ("greedy", "random", ["random"]),
            ("search", "greedy", ["greedy"]),
            ("greedy", "greedy", ["random"]),
        ):
            who = local_sprt.setup(
                f"{game}/{new}", f"{game}/{old}", [f"{game}/{o}" for o in opponents]
            )
            began = time.monotonic()
            test = local_sprt.run_test(
                game, who, args.size, Hypotheses(max_sets=args.max_sets), 1, Limits(), args.jobs
            )
            r = test.report()
            print(
                f"  {game:10} {new:>6} vs {old:6}: {r['verdict']:12} {r['sets']:4} sets"
                f" {r['matches']:5} matches, score {r['score']:.3f},"
                f" {time.monotonic() - began:6.1f} s",
                flush=True,
            )


# -- a close pair on the real engine --------------------------------------------------------
SLOPPY = """import random

import core


def act(view, legal):
    if random.random() < EPS:  # the SDK seeds random with the match's seed
        return random.choice(legal)
    return core.act(view, legal)
"""


def sloppy_bot(game: str, eps: float, folder: Path) -> str:
    """A zip of the house greedy bot that plays a random legal move with probability eps."""
    greedy = Path(__file__).resolve().parent.parent / "bots" / "house" / game / "greedy.py"
    path = folder / f"sloppy-{game}.zip"
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.writestr("bot.py", SLOPPY.replace("EPS", repr(eps)))
        bundle.writestr("core.py", greedy.read_text())
    return str(path)


def independent_test(game: str, runner: Runner, labels, size, hypotheses, rng, pool, jobs):
    """The SPRT over single matches: each a fresh seed and a random seating of NEW, OLD
    and the opponents; a match scores 1, ½ or 0 for NEW against OLD."""
    test = SequentialTest(hypotheses)
    while not test.done:
        tables = []
        for _ in range(jobs):
            seats = [
                local_sprt.NEW,
                local_sprt.OLD,
                *[labels[k % len(labels)] for k in range(size - 2)],
            ]
            rng.shuffle(seats)
            tables.append(seats)
        jobs_ = [
            (game, [runner.bots[x] for x in seats], rng.randrange(2**31), runner)
            for seats in tables
        ]
        for seats, result in zip(tables, pool.map(play_one, jobs_), strict=True):
            if test.done:
                break
            new, old = (result.ranks[seats.index(x)] for x in (local_sprt.NEW, local_sprt.OLD))
            test.record(1.0 if new < old else 0.5 if new == old else 0.0)
    return test


def pair_part(args) -> None:
    print(
        f"a close pair through the sandbox: greedy against greedy playing a random move"
        f" {args.eps:.0%} of the time, tables of {args.size}, {args.pair_runs} tests each:"
    )
    with tempfile.TemporaryDirectory() as folder:
        for game in args.games:
            who = local_sprt.setup(
                f"{game}/greedy", sloppy_bot(game, args.eps, Path(folder)), [f"{game}/greedy"]
            )
            labels = [e.label for e in who.opponents]
            runner = Runner(game, {label: e.source for label, e in who.by_label.items()}, Limits())
            rng = random.Random(args.seed)
            dup, ind = [], []
            began = time.monotonic()
            for _ in range(args.pair_runs):
                test = local_sprt.run_test(
                    game,
                    who,
                    args.size,
                    Hypotheses(max_sets=args.max_sets),
                    rng.randrange(2**31),
                    Limits(),
                    args.jobs,
                )
                dup.append((test.verdict, test.matches, test.total / max(len(test.scores), 1)))
            dup_s = time.monotonic() - began
            single = Hypotheses(max_sets=args.max_sets * args.size)
            began = time.monotonic()
            with ProcessPoolExecutor(args.jobs, initializer=end_sandboxes_at_exit) as pool:
                for _ in range(args.pair_runs):
                    test = independent_test(
                        game, runner, labels, args.size, single, rng, pool, args.jobs
                    )
                    ind.append((test.verdict, len(test.scores), test.total / len(test.scores)))
            ind_s = time.monotonic() - began
            for name, found, took in (("duplicate sets", dup, dup_s), ("independent", ind, ind_s)):
                print(
                    f"  {game:10} {name:15} mean {statistics.fmean(m for _, m, _ in found):6.0f}"
                    f" matches (median {statistics.median(m for _, m, _ in found):5.0f}),"
                    f" better {sum(v == BETTER for v, _, _ in found)}/{len(found)},"
                    f" mean score {statistics.fmean(s for _, _, s in found):.3f}, {took:6.1f} s",
                    flush=True,
                )
            ratio = statistics.fmean(m for _, m, _ in dup) / statistics.fmean(m for _, m, _ in ind)
            print(f"  {game:10} duplicate / independent matches: {ratio:.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parts", nargs="+", choices=["model", "real", "pair"], default=["model", "real"]
    )
    parser.add_argument("--games", nargs="+", default=engine.game_names())
    parser.add_argument("--size", type=int, default=4, help="seats (every game takes 4)")
    parser.add_argument("--runs", type=int, default=300, help="simulated tests of each kind")
    parser.add_argument("--fit-sets", type=int, default=30, help="real sets to fit the luck")
    parser.add_argument("--max-sets", type=int, default=400)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eps", type=float, default=0.3, help="pair: OLD's random moves")
    parser.add_argument("--pair-runs", type=int, default=10, help="pair: tests of each kind")
    args = parser.parse_args()
    if "model" in args.parts:
        model_part(args)
    if "real" in args.parts:
        real_part(args)
    if "pair" in args.parts:
        pair_part(args)


if __name__ == "__main__":
    main()
