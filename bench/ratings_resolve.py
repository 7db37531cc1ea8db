"""The re-solve against the online rating on a simulated ladder (ladder/RATINGS.md).

Run by hand: `.venv/bin/python bench/ratings_resolve.py [--sizes 1000 10000 ...]
[--window W] [--bots N] [--game manila]`.

Bots of known strength (`bench.matchsim.make_bots`) play matches seated by the
ladder's matchmaking and rated online as the ladder rates them; after each size's
matches, the same history is re-solved with TrueSkill Through Time
(`ranking.through_time.solve`, as `services.resolve` calls it). Printed per size:
Kendall τ against the true strengths of the online and the re-solved μ − 3σ (the
board's figure) and of their μ; the re-solve's CPU time, passes, and peak memory (the
solve runs in a child process: its peak resident size over what it started with).
With `--window W`, a last row re-solves only the latest W matches of the largest
size, seeded with the online ratings at the window's start, as the service does past
RESOLVE_WINDOW. Times are of this machine; the solve's cost is linear in matches.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import resource
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bench.matchsim import kendall_tau, make_bots
from ladder.ranking import through_time
from ladder.ranking.matchmaking import Candidate, make_table
from ladder.ranking.ratings import BETA, OPEN_PLAY_TAU, Skill, rate


def simulate(bots, min_players, max_players, matches, rng):
    """Play `matches` matches rated online: the history (as the re-solve reads it) and
    the online skills after every size in order."""
    skills = {b.version_id: Skill() for b in bots}
    games = dict.fromkeys(skills, 0)
    strength = {b.version_id: b.strength for b in bots}
    history = []
    for played in range(matches):
        candidates = [
            Candidate(b.version_id, b.owner_id, skills[b.version_id].mu,
                      skills[b.version_id].sigma, games[b.version_id], b.house)
            for b in bots
        ]  # fmt: skip
        table = make_table(candidates, min_players, max_players, rng)
        if table is None:
            raise SystemExit("matchmaking found no table: more bots, please")
        performance = [strength[v] + rng.gauss(0.0, BETA) for v in table]
        ranks = [1 + sum(other > p for other in performance) for p in performance]
        before = tuple(skills[v] for v in table)
        for v, new in zip(table, rate(list(before), ranks, tau=OPEN_PLAY_TAU), strict=True):
            skills[v] = new
            games[v] += 1
        day = date.fromordinal(738_000 + played // 500)  # 500 matches a day
        history.append(through_time.RatedMatch(played + 1, day, tuple(table), tuple(ranks), before))
    return history


def online_after(history, count):
    """Each version's online skill after the first `count` matches of `history`."""
    seen: dict[int, Skill] = {}
    for m in history[:count]:
        after = rate(list(m.before), list(m.ranks), tau=OPEN_PLAY_TAU)
        seen.update(zip(m.versions, after, strict=True))
    return seen


def _solve_child(history, out) -> None:
    base_kb = _rss_kb()
    started = time.process_time()  # CPU time: the figure other load on the host leaves alone
    solution = through_time.solve(history, gamma=OPEN_PLAY_TAU)
    seconds = time.process_time() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    figures = {v: (s.mu, s.sigma) for v, s in solution.versions.items()}
    out.send((seconds, solution.iterations, peak_kb - base_kb, figures))
    out.close()


def _rss_kb() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024


def solve_measured(history):
    """Solve in a forked child: (CPU seconds, passes, peak extra memory in MB, figures)."""
    here, there = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=_solve_child, args=(history, there))
    child.start()
    seconds, passes, extra_kb, figures = here.recv()
    child.join()
    return seconds, passes, extra_kb / 1024, figures


def taus(bots, figures):
    """Kendall τ against true strength of μ − 3σ and of μ, over the bots that played."""
    rated = [b for b in bots if b.version_id in figures]
    truth = [b.strength for b in rated]
    board = [figures[b.version_id][0] - 3 * figures[b.version_id][1] for b in rated]
    means = [figures[b.version_id][0] for b in rated]
    return kendall_tau(board, truth), kendall_tau(means, truth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10_000])
    parser.add_argument("--window", type=int, default=3000, help="0: no window row")
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--spread", type=float, default=30.0)
    parser.add_argument("--game", default="manila", choices=engine.game_names())
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = engine.get_game(args.game)
    rng = random.Random(args.seed)
    bots = make_bots(args.bots, rng, spread=args.spread)
    sizes = sorted(args.sizes)
    history = simulate(bots, game.min_players, game.max_players, sizes[-1], rng)
    print(
        f"{args.bots} bots, strength spread {args.spread:g}, {args.game}"
        f" ({game.min_players}-{game.max_players} seats), seed {args.seed}"
    )
    head = (
        f"{'matches':>8} {'solved':>8} {'τ online':>9} {'τ re-solve':>10} {'τ μ online':>10}"
        f" {'τ μ re-solve':>12} {'CPU s':>8} {'ms/match':>8} {'passes':>6} {'peak MB':>8}"
    )
    print(head)
    rows = [(n, history[:n]) for n in sizes]
    if args.window and args.window < sizes[-1]:
        rows.append((sizes[-1], history[sizes[-1] - args.window : sizes[-1]]))
    for n, solved in rows:
        online = {v: (s.mu, s.sigma) for v, s in online_after(history, n).items()}
        seconds, passes, peak_mb, figures = solve_measured(solved)
        board_online, mean_online = taus(bots, online)
        board_solved, mean_solved = taus(bots, figures)
        print(
            f"{n:>8} {len(solved):>8} {board_online:>9.3f} {board_solved:>10.3f}"
            f" {mean_online:>10.3f} {mean_solved:>12.3f} {seconds:>8.1f}"
            f" {1000 * seconds / len(solved):>8.2f} {passes:>6} {peak_mb:>8.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
