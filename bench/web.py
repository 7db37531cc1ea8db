"""Web speed: every page and API read under gunicorn, on a large ladder, against a floor.

Builds a fresh database through Alembic (a SQLite file, or a private PostgreSQL
cluster on a Unix socket), fills it with synthetic users, bots, matches, seats
and rating history, and real replays for `--replays` of the matches
(bench/synthetic.py), starts gunicorn on a free loopback port, then measures in
three phases:

0. wrk (`--wrk-seconds` per page, `--connections` at once, Debian's `wrk`):
   first the floor, a constant 2 KB Flask app (bench/floor_app.py) under the
   same gunicorn settings as the site (deploy/gunicorn.conf.py, the same
   workers, no access log for either), then each page and API read of the
   site; one table of req/s, p50, p99, non-2xx answers and the ratio to the
   floor. Pages with an id in their path (bot, match, replay) take a random one
   per request. `--wrk-seconds 0` skips it;
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
The page-speed table of deploy/README.md:

    .venv/bin/python bench/web.py --game manila --requests 0 --readers 0
    .venv/bin/python bench/web.py --game manila --database postgresql --matches 1000000 \
        --requests 0 --readers 0

`--url` measures a database filled before (`python -m bench.synthetic` fills one, on a
PostgreSQL you started) instead of making one: nothing is filled then, nor removed.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bench.readers import MAX_READERS, MAX_SECONDS, fetch_ok_ms, load
from bench.stack import DATABASES, databases, percentile, stop_cleanly_on_sigterm
from bench.synthetic import add_replays, fill
from ladder.cli.db import upgrade
from ladder.cli.processes import free_port, stop
from ladder.settings import ROOT

GUNICORN_CONFIG = ROOT / "deploy" / "gunicorn.conf.py"
SITE = "ladder:create_app()"
FLOOR = "bench.floor_app:app"
WRK_PATHS = 500  # random paths per page with an id, drawn before the run
# Pages kept until what they show changes (a bot's revision): measured twice, as the
# first visitors find them (each made on first read) and once every one is kept.
KEPT_UNTIL_CHANGED = ("bot page", "API bot")


def gunicorn_command(port: int, workers: int, app: str = SITE) -> list[str]:
    """gunicorn serving `app` (the ladder, or the floor) on loopback `port`, with the
    production settings file (run it with PYTHONPATH at this checkout)."""
    return [
        str(Path(sys.executable).with_name("gunicorn")),
        "--config", str(GUNICORN_CONFIG),
        "--workers", str(workers),
        "--bind", f"127.0.0.1:{port}",
        "--log-level", "warning",
        app,
    ]  # fmt: skip


def start_gunicorn(
    url: str, var: str, workers: int, app: str = SITE
) -> tuple[subprocess.Popen, int]:
    """gunicorn serving `app` on a free loopback port; returns it and the port."""
    port = free_port(0)
    env = dict(
        os.environ, DATABASE_URL=url, LADDER_VAR=var, SECRET_KEY="bench", PYTHONPATH=str(ROOT)
    )
    command = gunicorn_command(port, workers, app)
    # Its own process group, so `stop` ends the master and its workers together.
    return subprocess.Popen(command, env=env, start_new_session=True), port


def wait_ready(port: int, server: subprocess.Popen, path: str = "/api/v1/games") -> None:
    for _ in range(300):
        if server.poll() is not None:
            raise RuntimeError("gunicorn exited early")
        try:
            fetch_ok_ms(port, path)
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


@dataclass
class Wrk:
    """What wrk measured of one page."""

    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    bad: int  # non-2xx/3xx answers, socket errors and timeouts


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()  # type: ignore[union-attr]
    return float(number) * _UNITS[unit]


def run_wrk(port: int, paths: list[str], args: argparse.Namespace, folder: Path) -> Wrk:
    """wrk against `paths` (one at random per request when there are several)."""
    script = folder / "paths.lua"
    quoted = ", ".join(f'"{p}"' for p in paths)
    script.write_text(
        f"local paths = {{{quoted}}}\n"
        "request = function() return wrk.format(nil, paths[math.random(#paths)]) end\n"
    )
    command = [
        "wrk", "--latency", "-t", str(args.wrk_threads), "-c", str(args.connections),
        "-d", f"{args.wrk_seconds:g}s", "--timeout", "10s", "-s", str(script),
        f"http://127.0.0.1:{port}{paths[0]}",
    ]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)\s*$", out, re.M))
    if len(latency) != 2:
        raise RuntimeError(f"wrk's report has no latency distribution:\n{out}")
    requests = int(re.search(r"^\s*(\d+) requests in", out, re.M).group(1))  # type: ignore[union-attr]
    bad = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", out))
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    bad += sum(int(n) for n in errors.groups()) if errors else 0
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    return Wrk(rps, _ms(latency["50"]), _ms(latency["99"]), requests, bad)


def wrk_pages(game: str, args: argparse.Namespace, replays: list[int]) -> dict[str, list[str]]:
    """Each page and API read: its label and the paths wrk picks from."""
    rng = random.Random(args.seed)

    def some(template: str, ids: list[int] | range) -> list[str]:
        return [template.format(id=rng.choice(ids)) for _ in range(WRK_PATHS)]

    bots, matches = range(1, args.bots + 1), range(1, args.matches + 1)
    frames = "/matches/{id}/replay/frames.json?view=spectator&start=0&count=200"
    pages = {
        "home": ["/"],
        "leaderboard": [f"/leaderboard/{game}"],
        "match list": ["/matches"],
        f"match list ({game})": [f"/matches?game={game}"],
        "bot page": some("/bots/{id}", bots),
        "match page": some("/matches/{id}", matches),
        "API leaderboard": [f"/api/v1/games/{game}/leaderboard"],
        "API match list": ["/api/v1/matches"],
        "API bot": some("/api/v1/bots/{id}", bots),
        "API match": some("/api/v1/matches/{id}", matches),
    }
    if replays:
        pages.update(
            {
                "replay summary": some("/matches/{id}/replay/summary.json", replays),
                "replay frames": some(frames, replays),
                "replay download": some("/matches/{id}/replay.json.gz", replays),
                "API replay": some("/api/v1/matches/{id}/replay", replays),
            }
        )
    return pages


def wrk_table(site: int, floor: Wrk, pages: dict[str, list[str]], args, folder: Path) -> None:
    """Phase 0: wrk against each page; one table, with each page's ratio to the floor."""
    print(
        f"wrk, {args.connections} connections, {args.wrk_seconds:g} s a page,"
        f" {args.workers} gunicorn workers:"
    )
    header = f"{'page':<24} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'bad':>5} {'× floor':>8}"
    print(header)
    print("-" * len(header))

    def row(label: str, got: Wrk) -> None:
        print(
            f"{label:<24} {got.rps:8.0f} {got.p50_ms:8.1f} {got.p99_ms:8.1f}"
            f" {got.bad:5d} {got.rps / floor.rps:8.2f}"
        )

    row("floor (2 KB constant)", floor)
    for label, paths in pages.items():
        if label in KEPT_UNTIL_CHANGED:  # first as a visitor finds it, then once all are kept
            row(f"{label}, first reads", run_wrk(site, paths, args, folder))
            began = time.perf_counter()
            warm(site, paths, 2 * args.workers)
            print(
                f"  ({len(set(paths))} pages read {2 * args.workers} times each in"
                f" {time.perf_counter() - began:.1f} s)"
            )
        row(label, run_wrk(site, paths, args, folder))


def warm(port: int, paths: list[str], times: int) -> None:
    """Read every distinct path `times` times, a few at once, so each gunicorn worker
    has most likely made and kept it."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda path: fetch_ok_ms(port, path), list(dict.fromkeys(paths)) * times))


def measure_floor(args: argparse.Namespace, folder: Path) -> Wrk:
    """The floor app under the site's gunicorn settings, measured by wrk and stopped."""
    server, port = start_gunicorn("sqlite://", str(folder), args.workers, FLOOR)
    try:
        wait_ready(port, server, "/")
        return run_wrk(port, ["/"], args, folder)
    finally:
        stop({"floor": server})


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
    parser.add_argument("--replays", type=int, default=20, help="matches given a real replay")
    parser.add_argument("--wrk-seconds", type=float, default=15, help="per page; 0 skips wrk")
    parser.add_argument("--connections", type=int, default=16, help="wrk's connections")
    parser.add_argument("--wrk-threads", type=int, default=2, help="wrk's threads")
    parser.add_argument("--url", help="a database filled before: measured, never filled")
    args = parser.parse_args()
    if args.wrk_seconds and shutil.which("wrk") is None:
        parser.error("wrk is not installed: apt-get install wrk (or --wrk-seconds 0)")
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
        if args.url:
            url, replays = args.url, _replay_ids(args.url)
        else:
            url = new_database("ladder")
            began = time.perf_counter()
            upgrade(url)
            fill(url, game, args.bots, args.matches, args.seed)
            replays = add_replays(url, game, args.replays, args.seed)
            print(
                f"{game} on {args.database}: {args.bots:,} bots, {args.matches:,} matches"
                f" ({len(replays)} with a real replay) filled in"
                f" {time.perf_counter() - began:.1f} s"
            )
        floor = measure_floor(args, Path(tmp)) if args.wrk_seconds else None
        server, port = start_gunicorn(url, tmp, args.workers)
        try:
            wait_ready(port, server)
            pages = wrk_pages(game, args, replays)
            for paths in pages.values():  # warm every worker on every kind of page
                for _ in range(2 * args.workers):
                    fetch_ok_ms(port, paths[0])
            replay_paths = (p for label, ps in pages.items() if "replay" in label for p in ps)
            for path in dict.fromkeys(replay_paths):
                fetch_ok_ms(port, path)  # a replay's first read computes what later ones serve
            if floor is not None:
                wrk_table(port, floor, pages, args, Path(tmp))
            if args.requests:
                one_at_a_time(port, game, args)
            if args.readers:
                under_load(port, game, args)
        finally:
            stop({"web": server})  # before the database goes: no pool left connected


def _replay_ids(url: str) -> list[int]:
    """The matches of an already filled database that have a real replay stored."""
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from ladder.extensions import make_engine
    from ladder.models import Blob

    eng = make_engine(url)
    try:
        with Session(eng) as session:
            keys = session.scalars(select(Blob.key).where(Blob.key.like("replays/%"))).all()
        return sorted(int(k.rsplit("/", 1)[1].split(".")[0]) for k in keys)
    finally:
        eng.dispose()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # the `finally`s have stopped everything by now
        sys.exit("interrupted")
