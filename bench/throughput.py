"""Ladder throughput: 4-player Manila matches of fast house bots completed per minute.

For each worker count it starts a private Redis, a fresh database (a SQLite
file, or a new database on one private PostgreSQL cluster, Unix socket only)
and that many Celery worker processes (one match at a time each, as
`ladder worker --concurrency 1`), queues N ranked matches once every worker
answers, and times them from the first queued to the last recorded. It also
reads how many of the machine's cores were busy meanwhile (/proc/stat), which
shows where adding workers stops paying: when the cores are full, the rate
flattens. The worker counts take turns for R rounds and the medians are
compared, because a shared machine's speed drifts by ten per cent from one
minute to the next. Needs redis-server and bubblewrap; everything started is
stopped at the end, on Ctrl-C or SIGTERM too.

Full runs, on a quiet machine:

    .venv/bin/python bench/throughput.py --database sqlite --workers 1 2 4 --rounds 3
    .venv/bin/python bench/throughput.py --database postgresql --workers 1 2 4 --rounds 3

(400 matches a run, the default).
A small check: `.venv/bin/python bench/throughput.py --database postgresql --matches 20 --rounds 1`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from flask import Flask
from sqlalchemy import func, select

from bench.stack import DATABASES, databases, stop_cleanly_on_sigterm
from ladder import create_app
from ladder.broker import announce
from ladder.cli.db import upgrade
from ladder.cli.processes import free_port, start_redis, stop, worker_command
from ladder.extensions import app_settings, db
from ladder.models import Bot, BotVersion, Match
from ladder.services import accounts, bots, matches
from ladder.services.house import seed_house_bots
from workers.staging import house_file

READY_S = 120  # for every worker to answer a ping (imports, sandbox probe)
DONE_S = 600  # for all the matches, before the run is called stuck


@dataclass
class Run:
    rate: float  # matches per minute
    cores_busy: float  # the machine's cores in use on average while the matches ran


def prepare(url: str, var: Path, redis_url: str) -> tuple[Flask, list[int]]:
    """A migrated database with four active Manila bots; returns the app and their ids.

    The table is house random and greedy plus a second copy of each: fast bots, so
    the figure measures the ladder (queue, sandbox, protocol, recording), not a
    bot's thinking. The house search bots spend up to 150 ms a move and would make
    it a figure of their own time limit.
    """
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
    quiet = app_settings(app)
    table = ("random", "greedy", "random-2", "greedy-2")
    with app.app_context():
        announce.listen(db.session, None)  # set up by hand: nothing is sent to workers
        seed_house_bots(db.session, quiet)
        user = accounts.register(db.session, "bench", "bench-password")
        for name in table[2:]:
            source = house_file("manila", name.removesuffix("-2")).read_bytes()
            extra = bots.upload_version(db.session, quiet, user, "manila", name, "bot.py", source)
            bots.start_validation(db.session, extra.id)
            bots.finish_validation(db.session, extra.id, True, "bench")
            db.session.commit()  # the services flush; their caller commits
        ids = active_ids(db.session, "manila", table)
    return app, ids


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) clock ticks of all cores since boot, from /proc/stat."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    total = sum(fields[:8])  # guest time is already inside user
    return total - idle, total


def wait_for_workers(app: Flask, workers: int, var: Path) -> None:
    """Return once `workers` workers answer a ping, so the clock starts with all of them."""
    control = app.extensions["celery"].control
    deadline = time.monotonic() + READY_S
    while len(control.ping(timeout=1.0)) < workers:
        if time.monotonic() > deadline:
            tail = (var / "worker0.log").read_text(errors="replace")[-2000:]
            raise SystemExit(f"not all {workers} workers answered in {READY_S} s; worker0:\n{tail}")


def one_run(workers: int, count: int, url: str) -> Run:
    """Matches per minute with `workers` worker processes, on the fresh database at `url`."""
    with tempfile.TemporaryDirectory() as tmp:
        var = Path(tmp)
        procs: dict[str, subprocess.Popen] = {}
        app = None
        port = free_port(0)
        procs["redis"] = start_redis(var, port)
        redis_url = f"redis://127.0.0.1:{port}/0"
        env = {**os.environ, "LADDER_VAR": str(var), "REDIS_URL": redis_url, "SECRET_KEY": "bench"}
        env.update(DATABASE_URL=url, LADDER_IN_FLIGHT="0")
        try:
            app, ids = prepare(url, var, redis_url)
            for i in range(workers):
                command = [*worker_command(1), "--hostname", f"bench{i}@%h"]
                out = (var / f"worker{i}.log").open("wb")
                procs[f"worker{i}"] = subprocess.Popen(
                    command, env=env, stdout=out, stderr=out, start_new_session=True
                )
            wait_for_workers(app, workers, var)
            return time_matches(app, ids, count, var)
        finally:
            stop(procs)
            if app is not None:  # close its pool before the database goes
                with app.app_context():
                    db.engine.dispose()


def time_matches(app: Flask, ids: list[int], count: int, var: Path, first_seed: int = 0) -> Run:
    """Queue `count` ranked Manila matches of the versions `ids`, send them all at once and
    time them from the first sent to the last recorded (var/worker0.log is shown if they
    take too long)."""
    with app.app_context():
        send = announce.listen_to(db.session)  # the Celery app's sender
        announce.listen(db.session, None)  # queued first, then sent all at once
        quiet = app_settings(app)
        seeds = range(first_seed, first_seed + count)
        queued = [
            matches.create_match(db.session, quiet, "manila", ids, ranked=True, seed=n).id
            for n in seeds
        ]
        db.session.commit()  # before they are sent: a worker must see them
        start, ticks = time.monotonic(), cpu_ticks()  # first task sent to last recorded
        for match_id in queued:
            send("match", match_id)
        wait_until_done(queued, start, var)
        elapsed = time.monotonic() - start
        busy = [b - a for a, b in zip(ticks, cpu_ticks(), strict=True)]
        failed = db.session.scalar(
            select(func.count(Match.id)).where(Match.id.in_(queued), Match.state == "failed")
        )
        db.session.commit()
    if failed:
        print(f"  warning: {failed} matches failed", file=sys.stderr)
    cores = os.cpu_count() or 1
    return Run(count / elapsed * 60, cores * busy[0] / max(1, busy[1]))


def wait_until_done(queued: list[int], start: float, var: Path) -> None:
    """Poll until the `queued` matches are finished or failed (inside the app's context)."""
    count = len(queued)
    while True:
        db.session.expire_all()
        done = db.session.scalar(
            select(func.count(Match.id)).where(
                Match.id.in_(queued), Match.state.in_(("finished", "failed"))
            )
        )
        db.session.commit()  # end the read: PostgreSQL would hold its snapshot open
        if done >= count:
            return
        if time.monotonic() - start > DONE_S:
            tail = (var / "worker0.log").read_text(errors="replace")[-2000:]
            raise SystemExit(f"only {done} of {count} matches done; worker0 says:\n{tail}")
        time.sleep(0.25)


def measure(args: argparse.Namespace, new_database: Callable[[str], str]) -> dict[int, list[Run]]:
    """Every worker count once per round, in turn (the machine's speed drifts)."""
    runs: dict[int, list[Run]] = {workers: [] for workers in args.workers}
    for round_ in range(args.rounds):
        for workers in args.workers:
            url = new_database(f"run{round_}w{workers}")
            run = one_run(workers, args.matches, url)
            runs[workers].append(run)
            print(
                f"{workers} worker(s): {run.rate:.0f} matches/minute, {run.cores_busy:.2f} cores"
                f" busy ({args.matches} matches, {args.database})"
            )
    return runs


def summarise(runs: dict[int, list[Run]], database: str) -> None:
    """Medians per worker count, the gain from each step, and how full the cores were."""
    cores = os.cpu_count() or 1
    print(f"{database}, {cores} cores:")
    previous: tuple[int, float] | None = None
    for workers, found in sorted(runs.items()):
        rate = statistics.median(r.rate for r in found)
        busy = statistics.median(r.cores_busy for r in found)
        spread = ", ".join(f"{r.rate:.0f}" for r in found)
        step = ""
        if previous is not None:
            step = f"  x{rate / previous[1]:.2f} over {previous[0]} worker(s)"
        print(
            f"  median, {workers} worker(s): {rate:.0f} matches/minute, {busy:.2f} of {cores}"
            f" cores busy (runs: {spread}){step}"
        )
        previous = (workers, rate)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=DATABASES, default="sqlite")
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--rounds", type=int, default=3, help="runs of each, interleaved")
    args = parser.parse_args()
    stop_cleanly_on_sigterm()
    with (
        tempfile.TemporaryDirectory(prefix="tradewinds-bench-") as tmp,
        databases(args.database, Path(tmp)) as new_database,
    ):
        runs = measure(args, new_database)
    summarise(runs, args.database)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # the `finally`s have stopped everything by now
        sys.exit("interrupted")


def active_ids(session, game: str, names) -> list[int]:
    """The active version id of each of the bots `names` of `game`, in that order."""
    found = dict(
        session.execute(
            select(Bot.name, BotVersion.id)
            .join(Bot, BotVersion.bot_id == Bot.id)
            .where(Bot.game == game, BotVersion.state == "active")
        ).all()
    )
    return [found[name] for name in names]
