"""Web speed: leaderboard and bot page times under gunicorn, on a large ladder.

Builds a fresh database through Alembic (a SQLite file, or a private PostgreSQL
cluster on a Unix socket), fills it with synthetic users, bots, matches, seats
and rating history (bench/synthetic.py), starts gunicorn on a free loopback
port, then measures in two phases:

1. one request at a time (`--requests` per page): median, p90 and p95 of the
   time to fetch (connect, render, read) each kind of page;
2. a bounded load (`--readers` concurrent readers for `--seconds`, threads on
   loopback, half the leaderboard, half random bot pages): per page median,
   p95, requests per second and errors. `--readers 0` skips it. The readers
   share the machine's cores with gunicorn and the database, so keep them few
   (8 readers keep four requests queued per gunicorn worker of two).

Everything started (PostgreSQL, gunicorn) is stopped at the end, on Ctrl-C too.
Full runs, on a quiet machine (two cores, gunicorn's two workers):

    .venv/bin/python bench/web.py --database sqlite --readers 8 --seconds 60
    .venv/bin/python bench/web.py --database postgresql --readers 8 --seconds 60

(defaults: 2,000 bots, 100,000 matches, 200 requests per page). A small check:
`.venv/bin/python bench/web.py --database postgresql --matches 2000 --requests 20 --seconds 5`.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bench.readers import MAX_READERS, MAX_SECONDS, fetch_ok_ms, load
from bench.stack import DATABASES, databases, percentile, stop_cleanly_on_sigterm
from bench.synthetic import fill
from ladder.cli.db import upgrade
from ladder.cli.processes import free_port, stop


def start_gunicorn(url: str, var: str, workers: int) -> tuple[subprocess.Popen, int]:
    """gunicorn serving the ladder on a free loopback port; returns it and the port."""
    port = free_port(0)
    env = dict(os.environ, DATABASE_URL=url, LADDER_VAR=var, SECRET_KEY="bench")
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        "--workers", str(workers),
        "--bind", f"127.0.0.1:{port}",
        "--log-level", "warning",
        "ladder:create_app()",
    ]  # fmt: skip
    # Its own process group, so `stop` ends the master and its workers together.
    return subprocess.Popen(command, env=env, start_new_session=True), port


def wait_ready(port: int, server: subprocess.Popen) -> None:
    for _ in range(300):
        if server.poll() is not None:
            raise RuntimeError("gunicorn exited early")
        try:
            fetch_ok_ms(port, "/api/v1/games")
            return
        except (OSError, RuntimeError):
            time.sleep(0.1)
    raise RuntimeError("gunicorn did not answer in 30 s")


def report(label: str, times: list[float]) -> None:
    print(
        f"{label:<26} median {statistics.median(times):6.1f} ms"
        f"  p90 {percentile(times, 0.90):6.1f} ms  p95 {percentile(times, 0.95):6.1f} ms"
        f"  n={len(times)}"
    )


def one_at_a_time(port: int, game: str, args: argparse.Namespace) -> None:
    """Phase 1: each kind of page, one request after another."""
    rng = random.Random(args.seed)
    pages = {
        "leaderboard page 1": lambda: f"/leaderboard/{game}",
        "leaderboard page 20": lambda: f"/leaderboard/{game}?page=20",
        "bot page (random bot)": lambda: f"/bots/{rng.randint(1, args.bots)}",
        "match page (random)": lambda: f"/matches/{rng.randint(1, args.matches)}",
        "API leaderboard": lambda: f"/api/v1/games/{game}/leaderboard",
    }
    for label, path in pages.items():
        report(label, [fetch_ok_ms(port, path()) for _ in range(args.requests)])


def under_load(port: int, game: str, args: argparse.Namespace) -> None:
    """Phase 2: `--readers` at once for `--seconds`, leaderboard and random bot pages."""

    def choose(rng: random.Random) -> tuple[str, str]:
        if rng.random() < 0.5:
            return "leaderboard", f"/leaderboard/{game}"
        return "bot page", f"/bots/{rng.randint(1, args.bots)}"

    pages, wall = load(port, choose, args.readers, args.seconds, args.seed)
    print(f"{args.readers} concurrent readers for {wall:.1f} s:")
    total = 0
    for label in ("leaderboard", "bot page"):
        page = pages.get(label)
        times = page.times_ms if page else []
        errors = sum(page.errors.values()) if page else 0
        total += len(times) + errors
        figures = (
            f"median {statistics.median(times):6.1f} ms  p95 {percentile(times, 0.95):6.1f} ms"
            if times
            else "no answer"
        )
        detail = f" ({', '.join(f'{k}: {n}' for k, n in page.errors.items())})" if errors else ""
        print(
            f"  {label:<12} {figures}  {len(times) / wall:6.1f} req/s"
            f"  n={len(times)}  errors={errors}{detail}"
        )
    print(f"  all pages    {total / wall:6.1f} req/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=DATABASES, default="sqlite")
    parser.add_argument("--bots", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=200, help="per page, one at a time")
    parser.add_argument("--readers", type=int, default=8, help=f"concurrent, 0 to {MAX_READERS}")
    parser.add_argument("--seconds", type=float, default=60, help=f"of load, at most {MAX_SECONDS}")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--game", default=None, help="default: the first registered game")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not 0 <= args.readers <= MAX_READERS or not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"--readers must be 0 to {MAX_READERS}, --seconds above 0 to {MAX_SECONDS}")
    names = engine.game_names()
    if not names:
        sys.exit("no game is registered")
    game = args.game or names[0]
    stop_cleanly_on_sigterm()

    with (
        tempfile.TemporaryDirectory(prefix="tradewinds-bench-") as tmp,
        databases(args.database, Path(tmp)) as new_database,
    ):
        url = new_database("ladder")
        began = time.perf_counter()
        upgrade(url)
        fill(url, game, args.bots, args.matches, args.seed)
        print(
            f"{game} on {args.database}: {args.bots:,} bots, {args.matches:,} matches"
            f" filled in {time.perf_counter() - began:.1f} s"
        )
        server, port = start_gunicorn(url, tmp, args.workers)
        try:
            wait_ready(port, server)
            for path in (f"/leaderboard/{game}", "/bots/1"):  # warm every worker
                for _ in range(2 * args.workers):
                    fetch_ok_ms(port, path)
            if args.requests:
                one_at_a_time(port, game, args)
            if args.readers:
                under_load(port, game, args)
        finally:
            stop({"web": server})  # before the database goes: no pool left connected


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # the `finally`s have stopped everything by now
        sys.exit("interrupted")
