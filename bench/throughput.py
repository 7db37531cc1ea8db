"""Ladder throughput: 4-player Manila matches of house bots completed per minute.

Run by hand: `.venv/bin/python bench/throughput.py [--matches N] [--workers 1 2]
[--rounds R]`. For each worker count it starts a private Redis, a fresh SQLite
database and that many Celery worker processes (one match at a time each, as
`ladder worker --concurrency 1`), queues N ranked matches, and times them from
the first queued to the last recorded. The worker counts take turns for R
rounds and the medians are compared, because a shared machine's speed drifts
by ten per cent from one minute to the next. Needs redis-server and bubblewrap.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import func, select

from ladder import create_app
from ladder.cli.db import upgrade
from ladder.cli.processes import free_port, start_redis, stop, worker_command
from ladder.extensions import db
from ladder.models import Bot, BotVersion, Match
from ladder.services import accounts, bots, matches
from ladder.services.house import seed_house_bots
from workers.staging import house_file


def prepare(var: Path, redis_url: str):
    """A migrated database with four active Manila bots; returns the app and their ids."""
    url = f"sqlite:///{var / 'ladder.sqlite3'}"
    upgrade(url)
    app = create_app(
        {
            "DATABASE_URL": url,
            "REDIS_URL": redis_url,
            "SECRET_KEY": "bench",
            "UPLOAD_DIR": str(var / "uploads"),
            "REPLAY_DIR": str(var / "replays"),
        }
    )
    quiet = {**app.config, "DISPATCH": None}
    with app.app_context():
        seed_house_bots(db.session, quiet)
        user = accounts.register(db.session, "bench", "bench-password")
        source = house_file("manila", "random").read_bytes()
        extra = bots.upload_version(db.session, quiet, user, "manila", "random-2", "bot.py", source)
        bots.start_validation(db.session, extra.id)
        bots.finish_validation(db.session, extra.id, True, "bench")
        ids = db.session.scalars(
            select(BotVersion.id)
            .join(Bot, BotVersion.bot_id == Bot.id)
            .where(Bot.game == "manila", BotVersion.state == "active")
        ).all()
    return app, ids[:4]


def one_run(workers: int, count: int) -> float:
    """Matches per minute with `workers` worker processes."""
    with tempfile.TemporaryDirectory() as tmp:
        var = Path(tmp)
        procs: dict[str, subprocess.Popen] = {}
        port = free_port(0)
        procs["redis"] = start_redis(var, port)
        redis_url = f"redis://127.0.0.1:{port}/0"
        env = {**os.environ, "LADDER_VAR": str(var), "REDIS_URL": redis_url, "SECRET_KEY": "bench"}
        env["LADDER_IN_FLIGHT"] = "0"
        try:
            app, ids = prepare(var, redis_url)
            for i in range(workers):
                command = [*worker_command(1), "--hostname", f"bench{i}@%h"]
                out = (var / f"worker{i}.log").open("wb")
                procs[f"worker{i}"] = subprocess.Popen(
                    command, env=env, stdout=out, stderr=out, start_new_session=True
                )
            time.sleep(4)  # let the workers connect before the clock starts
            with app.app_context():
                quiet = {**app.config, "DISPATCH": None}
                queued = [
                    matches.create_match(db.session, quiet, "manila", ids, ranked=True, seed=n).id
                    for n in range(count)
                ]
                start = time.monotonic()  # from the first task sent to the last match recorded
                for match_id in queued:
                    app.config["DISPATCH"]("match", match_id)
                while True:
                    db.session.expire_all()
                    done = db.session.scalar(
                        select(func.count(Match.id)).where(Match.state.in_(("finished", "failed")))
                    )
                    if done >= count:
                        break
                    if time.monotonic() - start > 600:
                        tail = (var / "worker0.log").read_text()[-2000:]
                        raise SystemExit(
                            f"only {done} of {count} matches done; worker0 says:\n{tail}"
                        )
                    time.sleep(0.25)
                elapsed = time.monotonic() - start
                failed = db.session.scalar(
                    select(func.count(Match.id)).where(Match.state == "failed")
                )
            if failed:
                print(f"  warning: {failed} matches failed", file=sys.stderr)
            return count / elapsed * 60
        finally:
            stop(procs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3, help="runs of each, interleaved")
    args = parser.parse_args()
    runs: dict[int, list[float]] = {workers: [] for workers in args.workers}
    for _ in range(args.rounds):  # interleaved: the machine's speed drifts
        for workers in args.workers:
            rate = one_run(workers, args.matches)
            runs[workers].append(rate)
            print(f"{workers} worker(s): {rate:.0f} matches/minute ({args.matches} matches)")
    rates = {workers: statistics.median(found) for workers, found in runs.items()}
    for workers, rate in rates.items():
        spread = ", ".join(f"{r:.0f}" for r in runs[workers])
        print(f"median, {workers} worker(s): {rate:.0f} matches/minute (runs: {spread})")
    if 1 in rates:
        for workers, rate in rates.items():
            if workers != 1:
                print(f"{workers} workers / 1 worker: {rate / rates[1]:.2f}x (medians)")


if __name__ == "__main__":
    main()
