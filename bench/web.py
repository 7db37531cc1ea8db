"""Web speed: leaderboard and bot page render times under gunicorn, on a large ladder.

Run by hand: `.venv/bin/python bench/web.py [--bots 2000] [--matches 100000] [--requests 200]`.
Builds a fresh SQLite database (through Alembic) in a temporary directory, fills it
with synthetic users, bots, matches, seats and rating history, starts gunicorn on a
free local port, and prints the median and 90th percentile of the time to fetch
(connect, render, read) the leaderboard page and random bot pages.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import insert

import engine
from ladder.cli.db import upgrade
from ladder.extensions import make_engine
from ladder.models import Bot, BotVersion, Match, MatchSeat, Rating, RatingHistory, User
from ladder.ranking import ratings

BATCH = 20_000


def fill(url: str, game: str, bots: int, matches: int, seed: int) -> None:
    """Synthetic ladder: `bots` active bots owned by bots/10 users, `matches` rated matches."""
    rng = random.Random(seed)
    spec = engine.get_game(game)
    start = datetime(2026, 1, 1)
    users = max(1, bots // 10)
    eng = make_engine(url)
    with eng.begin() as conn:
        conn.execute(
            insert(User),
            [
                {"id": u, "username": f"user{u}", "password_hash": "x", "created_at": start}
                for u in range(1, users + 1)
            ],
        )
        conn.execute(
            insert(Bot),
            [
                {
                    "id": b,
                    "owner_id": 1 + b % users,
                    "game": game,
                    "name": f"bot{b}",
                    "created_at": start,
                }
                for b in range(1, bots + 1)
            ],
        )
        conn.execute(
            insert(BotVersion),
            [
                {
                    "id": b,
                    "bot_id": b,
                    "number": 1,
                    "uploaded_by_id": 1 + b % users,
                    "filename": "bot.py",
                    "kind": "py",
                    "size": 100,
                    "sha256": "0" * 64,
                    "path": f"{b}/v1.py",
                    "state": "active",
                    "validation_log": "",
                    "created_at": start,
                }
                for b in range(1, bots + 1)
            ],
        )
    strength = {b: rng.gauss(25, 5) for b in range(1, bots + 1)}
    games = dict.fromkeys(strength, 0)
    match_rows, seat_rows, history_rows = [], [], []
    seat_id = 0
    for m in range(1, matches + 1):
        when = start + timedelta(seconds=30 * m)
        players = rng.randint(spec.min_players, spec.max_players)
        table = rng.sample(range(1, bots + 1), players)
        order = sorted(table, key=lambda b: strength[b] + rng.gauss(0, 5), reverse=True)
        match_rows.append(
            {
                "id": m,
                "game": game,
                "seed": m,
                "players": players,
                "options": {},
                "ranked": True,
                "state": "finished",
                "created_at": when,
                "started_at": when,
                "finished_at": when,
                "replay_path": f"{game}/{m // 1000}/{m}.json.gz",
                "engine_version": spec.version,
            }
        )
        for seat, b in enumerate(table):
            seat_id += 1
            games[b] += 1
            rank = order.index(b) + 1
            sigma = max(1.0, ratings.SIGMA * 0.97 ** games[b])
            mu = 25 + (strength[b] - 25) * (1 - sigma / ratings.SIGMA) + rng.gauss(0, 0.3)
            seat_rows.append(
                {
                    "id": seat_id,
                    "match_id": m,
                    "seat": seat,
                    "version_id": b,
                    "status": "ok",
                    "rank": rank,
                    "score": float(10 * (players - rank)),
                    "error": None,
                    "stderr": "",
                    "mu_before": mu,
                    "sigma_before": sigma,
                    "mu_after": mu,
                    "sigma_after": sigma,
                }
            )
            history_rows.append(
                {
                    "version_id": b,
                    "match_id": m,
                    "mu": mu,
                    "sigma": sigma,
                    "skill": ratings.conservative(mu, sigma),
                    "recorded_at": when,
                }
            )
        if len(match_rows) >= BATCH or m == matches:
            with eng.begin() as conn:
                conn.execute(insert(Match), match_rows)
                conn.execute(insert(MatchSeat), seat_rows)
                conn.execute(insert(RatingHistory), history_rows)
            match_rows, seat_rows, history_rows = [], [], []
    last = start + timedelta(seconds=30 * matches)
    with eng.begin() as conn:
        rows = []
        for b in range(1, bots + 1):
            sigma = max(1.0, ratings.SIGMA * 0.97 ** games[b])
            mu = 25 + (strength[b] - 25) * (1 - sigma / ratings.SIGMA)
            rows.append(
                {
                    "version_id": b,
                    "game": game,
                    "mu": mu,
                    "sigma": sigma,
                    "skill": ratings.conservative(mu, sigma),
                    "games": games[b],
                    "last_played_at": last,
                }
            )
        conn.execute(insert(Rating), rows)
        conn.exec_driver_sql("ANALYZE")
    eng.dispose()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch_ms(port: int, path: str) -> float:
    """Milliseconds to connect, send a GET and read the whole 200 response."""
    began = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path)
    response = conn.getresponse()
    response.read()
    conn.close()
    if response.status != 200:
        raise RuntimeError(f"GET {path} answered {response.status}")
    return (time.perf_counter() - began) * 1000


def wait_ready(port: int, server: subprocess.Popen) -> None:
    for _ in range(300):
        if server.poll() is not None:
            raise RuntimeError("gunicorn exited early")
        try:
            fetch_ms(port, "/api/v1/games")
            return
        except (OSError, RuntimeError):
            time.sleep(0.1)
    raise RuntimeError("gunicorn did not answer in 30 s")


def report(label: str, times: list[float]) -> None:
    times = sorted(times)
    p90 = times[int(len(times) * 0.9) - 1]
    print(
        f"{label:<26} median {statistics.median(times):6.1f} ms  p90 {p90:6.1f} ms  n={len(times)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--game", default=None, help="default: the first registered game")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    names = engine.game_names()
    if not names:
        sys.exit("no game is registered")
    game = args.game or names[0]

    with tempfile.TemporaryDirectory(prefix="tradewinds-bench-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'ladder.sqlite3'}"
        began = time.perf_counter()
        upgrade(url)
        fill(url, game, args.bots, args.matches, args.seed)
        print(
            f"{game}: {args.bots:,} bots, {args.matches:,} matches filled in "
            f"{time.perf_counter() - began:.1f} s"
        )
        port = free_port()
        env = dict(os.environ, DATABASE_URL=url, LADDER_VAR=tmp, SECRET_KEY="bench")
        gunicorn = Path(sys.executable).with_name("gunicorn")
        server = subprocess.Popen(
            [
                str(gunicorn),
                "--workers",
                str(args.workers),
                "--bind",
                f"127.0.0.1:{port}",
                "--log-level",
                "warning",
                "ladder:create_app()",
            ],
            env=env,
        )
        try:
            wait_ready(port, server)
            rng = random.Random(args.seed)
            for path in (f"/leaderboard/{game}", "/bots/1"):  # warm both workers
                for _ in range(4):
                    fetch_ms(port, path)
            report(
                "leaderboard page 1",
                [fetch_ms(port, f"/leaderboard/{game}") for _ in range(args.requests)],
            )
            report(
                "leaderboard page 20",
                [fetch_ms(port, f"/leaderboard/{game}?page=20") for _ in range(args.requests)],
            )
            report(
                "bot page (random bot)",
                [
                    fetch_ms(port, f"/bots/{rng.randint(1, args.bots)}")
                    for _ in range(args.requests)
                ],
            )
            report(
                "match page (random)",
                [
                    fetch_ms(port, f"/matches/{rng.randint(1, args.matches)}")
                    for _ in range(args.requests)
                ],
            )
            report(
                "API leaderboard",
                [fetch_ms(port, f"/api/v1/games/{game}/leaderboard") for _ in range(args.requests)],
            )
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
