"""What one match costs, per game and house bot: worker CPU, database bytes, Redis
operations, and the web reads of its page. The figures deploy/README.md's capacity
table is built on.

1. Worker CPU (`cpu`): for each game and house bot (`random`, `greedy`, `search`),
   four seats of that bot play matches through the real sandbox (`workers.run_match`,
   as a worker does). Each sample is a fresh process that plays 1 match, then one that
   plays 1 + N; their CPU (own plus every process they waited for: bwrap, the
   zygotes, the bots) differ by the N matches, so a worker's one-off start-up
   (interpreter, sandbox probe, zygotes) drops out. The replays' own decision_cpu_ms
   (the bots' cgroup time on their moves) shows how much of it is the bots' thinking.
2. Database bytes (`storage`): the outcomes are recorded `--copies` times each through
   `matches.record_match` on a private PostgreSQL cluster; the growth of every
   relation (pg_total_relation_size: heap, TOAST, indexes) and the WAL written
   (pg_current_wal_lsn) are divided by the matches recorded, beside the blob's own size.
3. Web reads (`web`): one match page, the viewer's summary and first frames window,
   and the download, through the app in process: SQL statements run and bytes sent.
4. Redis operations (`redis`): a private Redis and one real `ladder worker`; INFO
   commandstats is read around M matches sent through Celery, and around the same time
   idle, so what the worker does anyway (polling, heartbeats) is taken out.
5. Growth (`growth`): a simulated month, `--days` days of `--per-day` matches (a
   1/1000 scale of 10^6 a day by default) among 10,000 bots, its rows made as
   bench/synthetic makes them and each match given a replay drawn in turn from the
   ones measured in part 1 (every game and house bot alike); once without retention,
   once per `--keep-days`, when the real `services.retention.prune_replays` runs at
   the end of each simulated day, then a plain VACUUM (autovacuum's part). The
   tables that grow by the match are scaled back up to the full rate.
6. Schedule and record rate (`rate`): on a ladder of 10,000 bots with `--history`
   matches recorded, `scheduler.schedule_ladder` (beat's step) tops the ladder up to
   each `--targets` in-flight count; then `--record-matches` queued matches are
   claimed and recorded (`start_match`, `record_match`, results simulated, not
   played) by 1, 2, 4 processes at once: matches a second each step sustains.

Run by hand, on a quiet machine (needs bubblewrap, PostgreSQL, redis-server):

    .venv/bin/python bench/per_match.py                 # everything, a few minutes
    .venv/bin/python bench/per_match.py --parts cpu --matches 3 --bots random
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine

GAMES = tuple(engine.game_names())
BOTS = ("random", "greedy", "search")
PLAYERS = 4  # in every game's range; the ladder's tables are 2-5
FULL_RATE = 1_000_000  # matches a day: issue 30's "a hundred times the load"


# -- 1. worker CPU ---------------------------------------------------------------------
def child(game: str, bot: str, count: int, first_seed: int, out: str) -> None:
    """Play `count` matches in this process, close the sandboxes, and write the CPU and
    wall time used (self and waited-for children) and the outcomes to `out`."""
    from workers import close_pools, run_match

    start_wall, start = time.monotonic(), os.times()
    outcomes = []
    for n in range(count):
        done = run_match(game, [f"{game}/{bot}"] * PLAYERS, seed=first_seed + n)
        outcomes.append(done.to_dict())
    close_pools()  # the zygotes and bwrap exit and are waited for: their CPU counts now
    end, wall = os.times(), time.monotonic() - start_wall
    cpu = (end.user - start.user) + (end.system - start.system)
    children = (end.children_user - start.children_user) + (
        end.children_system - start.children_system
    )
    Path(out).write_text(
        json.dumps(
            {"cpu": cpu + children, "children": children, "wall": wall, "outcomes": outcomes}
        )
    )


def run_child(game: str, bot: str, count: int, seed: int, folder: Path) -> dict:
    out = folder / f"{game}-{bot}-{count}-{seed}.json"
    command = [sys.executable, __file__, "--child", game, bot, str(count), str(seed), str(out)]
    subprocess.run(command, check=True)
    return json.loads(out.read_text())


@dataclass
class CpuFigure:
    game: str
    bot: str
    cpu_s: float  # worker host CPU seconds per match, start-up taken out
    wall_s: float
    bot_move_cpu_s: float  # of which the bots' own CPU on their moves (the replay's)
    steps: float
    outcomes: list[dict]


def measure_cpu(game: str, bot: str, count: int, folder: Path) -> CpuFigure:
    one = run_child(game, bot, 1, 10_000, folder)
    many = run_child(game, bot, 1 + count, 20_000, folder)
    outcomes = many["outcomes"][1:]
    move_cpu = [sum(o["replay"].get("decision_cpu_ms") or []) / 1000 for o in outcomes]
    return CpuFigure(
        game,
        bot,
        (many["cpu"] - one["cpu"]) / count,
        (many["wall"] - one["wall"]) / count,
        statistics.mean(move_cpu),
        statistics.mean(len(o["replay"]["actions"]) for o in outcomes),
        outcomes,
    )


# -- 2. database bytes -------------------------------------------------------------------
SIZES = """SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'm')"""


def database_bytes(url: str) -> tuple[int, int]:
    """(bytes every table takes with its TOAST and indexes, WAL position) at `url`."""
    from sqlalchemy import create_engine, text

    eng = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with eng.connect() as conn:
            conn.execute(text("CHECKPOINT"))
            size = conn.scalar(text(SIZES))
            wal = conn.scalar(text("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn"))
    finally:
        eng.dispose()
    return int(size), int(wal)


def bench_app(url: str, extra: dict | None = None):
    from ladder import create_app

    return create_app(
        {"DATABASE_URL": url, "SECRET_KEY": "bench", "TESTING": True, **(extra or {})}
    )


def house_versions(app, game: str) -> list[int]:
    """Four active versions of `game` (one owner each, the house random bot's file)."""
    from ladder.extensions import app_settings, db
    from ladder.services import accounts, bots
    from workers import house_file

    settings = app_settings(app).with_overrides({"UPLOADS_PER_HOUR": 10_000})
    source = house_file(game, "random").read_bytes()
    ids = []
    with app.app_context():
        for seat in range(PLAYERS):
            owner = accounts.register(db.session, f"{game}{seat}", "a bench password, long")
            version = bots.upload_version(
                db.session, settings, owner, game, "b", "bot.py", source + f"#{seat}\n".encode()
            )
            bots.finish_validation(db.session, version.id, True, "bench")
            db.session.commit()
            ids.append(version.id)
    return ids


def record(app, versions: list[int], outcome: dict) -> int:
    """One ranked match for `outcome` made, started and recorded as a worker would."""
    from ladder.extensions import app_settings, db
    from ladder.services import matches

    settings = app_settings(app)
    with app.app_context():
        match = matches.create_match(
            db.session, settings, outcome["game"], versions, ranked=True, seed=outcome["seed"]
        )
        db.session.commit()
        matches.start_match(db.session, match.id)
        db.session.commit()
        matches.record_match(db.session, settings, match.id, outcome)
        db.session.commit()
        return match.id


def measure_storage(figures: list[CpuFigure], copies: int, new_database) -> dict:
    """Per (game, bot): bytes the tables grew and WAL written per recorded match."""
    from ladder.cli.db import upgrade
    from ladder.extensions import db
    from ladder.models import Blob
    from ladder.services import storage

    url = new_database("per_match")
    upgrade(url)
    app = bench_app(url)
    versions = {game: house_versions(app, game) for game in {f.game for f in figures}}
    found = {}
    for figure in figures:
        size0, wal0 = database_bytes(url)
        ids = [
            record(app, versions[figure.game], outcome)
            for _ in range(copies)
            for outcome in figure.outcomes
        ]
        size1, wal1 = database_bytes(url)
        with app.app_context():
            blobs = [
                db.session.get(Blob, storage.replay_key(figure.game, i)).stored_size for i in ids
            ]
            db.session.close()
        found[(figure.game, figure.bot)] = {
            "growth": (size1 - size0) / len(ids),
            "wal": (wal1 - wal0) / len(ids),
            "blob": statistics.mean(blobs),
            "last_match": ids[-1],
        }
    with app.app_context():
        db.engine.dispose()
    return {"url": url, "per": found}


# -- 3. web reads ------------------------------------------------------------------------
def measure_web(url: str, match_ids: dict) -> dict:
    """SQL statements and bytes of one match page and its replay's reads, per game."""
    from sqlalchemy import event

    from ladder.extensions import db

    app = bench_app(url)
    client = app.test_client()
    out = {}
    with app.app_context():
        eng = db.engine
    counted: list[str] = []

    def count(_conn, _cursor, statement, *_args) -> None:
        counted.append(statement)

    event.listen(eng, "before_cursor_execute", count)
    try:
        for (game, bot), match_id in match_ids.items():
            pages = {
                "match page": f"/matches/{match_id}",
                "viewer summary": f"/matches/{match_id}/replay/summary.json",
                "viewer frames": f"/matches/{match_id}/replay/frames.json",
                "download": f"/api/v1/matches/{match_id}/replay",
            }
            for label, path in pages.items():
                client.get(path)  # warm: the first request of a process pays for imports
                counted.clear()
                response = client.get(path)
                assert response.status_code == 200, (path, response.status_code)
                out[(game, bot, label)] = (len(counted), len(response.data))
    finally:
        event.remove(eng, "before_cursor_execute", count)
        eng.dispose()
    return out


# -- 4. Redis operations -----------------------------------------------------------------
def command_calls(redis_url: str) -> dict[str, int]:
    """Calls per Redis command so far (INFO commandstats)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        stats = client.info("commandstats")
    finally:
        client.close()
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


def measure_redis(count: int, new_database, folder: Path) -> dict:
    """Redis calls per match played through Celery by one real worker, idle calls apart."""
    from bench.throughput import prepare, wait_for_workers, wait_until_done
    from ladder.broker import announce
    from ladder.cli.processes import free_port, start_redis, stop, worker_command
    from ladder.extensions import app_settings, db
    from ladder.services import matches

    url = new_database("redis")
    var = folder / "redis-run"
    var.mkdir()
    procs: dict[str, subprocess.Popen] = {}
    port = free_port(0)
    procs["redis"] = start_redis(var, port)
    redis_url = f"redis://127.0.0.1:{port}/0"
    env = {**os.environ, "LADDER_VAR": str(var), "REDIS_URL": redis_url, "SECRET_KEY": "bench"}
    env.update(DATABASE_URL=url, LADDER_IN_FLIGHT="0")
    app = None
    try:
        app, ids = prepare(url, var, redis_url)
        out = (var / "worker0.log").open("wb")
        procs["worker"] = subprocess.Popen(
            [*worker_command(1), "--hostname", "bench0@%h"],
            env=env,
            stdout=out,
            stderr=out,
            start_new_session=True,
        )
        wait_for_workers(app, 1, var)
        with app.app_context():
            send = announce.listen_to(db.session)
            announce.listen(db.session, None)
            quiet = app_settings(app)
            queued = [
                matches.create_match(db.session, quiet, "manila", ids, ranked=True, seed=n).id
                for n in range(count)
            ]
            db.session.commit()
            before, start = command_calls(redis_url), time.monotonic()
            for match_id in queued:
                send("match", match_id)
            wait_until_done(count, start, var)
            elapsed = time.monotonic() - start
            busy = command_calls(redis_url)
            time.sleep(elapsed)  # the same time idle: what the worker does anyway
            idle = command_calls(redis_url)
    finally:
        stop(procs)
        if app is not None:
            with app.app_context():
                db.engine.dispose()
    names = set(busy) | set(idle)
    during = {n: busy.get(n, 0) - before.get(n, 0) for n in names}
    quiet_calls = {n: idle.get(n, 0) - busy.get(n, 0) for n in names}
    per_match = {n: (during[n] - quiet_calls[n]) / count for n in names}
    return {
        "matches": count,
        "seconds": elapsed,
        "during": sum(during.values()),
        "idle_per_s": sum(quiet_calls.values()) / elapsed,
        "per_match": {n: v for n, v in sorted(per_match.items()) if abs(v) >= 0.05},
    }


# -- 5. growth over a simulated month ---------------------------------------------------
SIM_GAME = "manila"  # the rows' game (tables of 3 to 5); the replays come from every game
SIM_BOTS = 10_000


def simulated_rows(per_day: int, days: int, seed: int):
    """bench/synthetic's ladder of SIM_BOTS bots, `per_day` matches a day for `days` days:
    its rows with their times spread evenly over each day."""
    from bench.synthetic import START, ladder_rows
    from ladder.models import Match, RatingHistory

    step = timedelta(days=1) / per_day

    def when(match_id: int) -> datetime:
        return START + (match_id - 1) * step

    for table, rows in ladder_rows(SIM_GAME, SIM_BOTS, per_day * days, seed):
        if table is Match.__table__:
            for row in rows:
                row["created_at"] = row["started_at"] = row["finished_at"] = when(row["id"])
        elif table is RatingHistory.__table__:
            for row in rows:
                row["recorded_at"] = when(row["match_id"])
        yield table, rows


def vacuum(url: str) -> None:
    """Plain VACUUM (no FULL), what autovacuum does: freed space is reused, not returned."""
    from sqlalchemy import create_engine

    eng = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with eng.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM")
    finally:
        eng.dispose()


def table_bytes(url: str) -> dict[str, int]:
    """pg_total_relation_size of each table (heap, TOAST, indexes), and the whole database."""
    from sqlalchemy import create_engine, text

    eng = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with eng.connect() as conn:
            found = dict(
                conn.execute(
                    text(
                        "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c"
                        " JOIN pg_namespace n ON n.oid = c.relnamespace"
                        " WHERE n.nspname = 'public' AND c.relkind = 'r'"
                    )
                ).all()
            )
            found["(database)"] = conn.scalar(text("SELECT pg_database_size(current_database())"))
    finally:
        eng.dispose()
    return {name: int(size) for name, size in found.items()}


def simulate_month(
    blobs: list[bytes], per_day: int, days: int, keep_days: int | None, new_database
) -> dict:
    """A ladder's database after `days` days of `per_day` matches, each with a replay
    drawn in turn from `blobs` (stored replays of real matches); with `keep_days`, the
    real retention policy runs at the end of each day, then VACUUM (autovacuum's part)."""
    from bench.synthetic import START, _advance_sequences, _copy
    from ladder.cli.db import upgrade
    from ladder.extensions import app_settings, db, make_engine
    from ladder.models import Blob
    from ladder.services import retention, storage

    name = f"month_{'none' if keep_days is None else keep_days}"
    url = new_database(name)
    upgrade(url)
    eng = make_engine(url)
    try:
        with eng.begin() as conn:
            for table, rows in simulated_rows(per_day, days, seed=7):
                _copy(conn, table, rows)
            _advance_sequences(conn)
            conn.exec_driver_sql("ANALYZE")
    finally:
        eng.dispose()
    app = bench_app(url)
    pruned = freed = 0
    prune_s = 0.0
    for day in range(days):
        first = day * per_day + 1
        rows = []
        for m in range(first, first + per_day):
            data = blobs[m % len(blobs)]
            rows.append(
                {
                    "key": storage.replay_key(SIM_GAME, m),
                    "data": data,
                    "encoding": "identity",
                    "size": len(data),
                    "stored_size": len(data),
                    "created_at": START + timedelta(days=day),
                }
            )
        eng = make_engine(url)
        try:
            with eng.begin() as conn:
                _copy(conn, Blob.__table__, rows)
        finally:
            eng.dispose()
        if keep_days is not None:
            with app.app_context():
                started = time.monotonic()
                done = retention.prune_replays(
                    db.session, app_settings(app), keep_days, now=START + timedelta(days=day + 1)
                )
                prune_s += time.monotonic() - started
                db.session.close()
            pruned += done.matches
            freed += done.bytes
            vacuum(url)
    with app.app_context():
        db.engine.dispose()
    sizes = table_bytes(url)
    return {
        "keep_days": keep_days,
        "matches": per_day * days,
        "pruned": pruned,
        "freed": freed,
        "prune_s": prune_s,
        "sizes": sizes,
    }


def describe_month(month: dict, scale: float) -> str:
    """One line of the growth report: the sizes found, and at the full rate (the tables
    that grow by the match times the scale; the rest, bots and catalogue, as it is)."""
    sizes = {name: size / 1e6 for name, size in month["sizes"].items()}
    shown = ("blobs", "matches", "match_seats", "rating_history")
    rest = sizes["(database)"] - sum(sizes[name] for name in shown)
    keep = month["keep_days"]
    line = (
        f"  {'no retention' if keep is None else f'keep {keep} days':14}"
        f" database {sizes['(database)']:9,.1f} MB (replay blobs {sizes['blobs']:8,.1f},"
        f" matches {sizes['matches']:6,.1f}, seats {sizes['match_seats']:6,.1f},"
        f" rating history {sizes['rating_history']:6,.1f}, all else {rest:5,.1f});"
        f" at full rate {(sum(sizes[name] for name in shown) * scale + rest) / 1e3:8,.1f} GB"
    )
    if keep is not None:
        line += (
            f"; pruned {month['pruned']:,} replays ({month['freed'] / 1e6:,.1f} MB)"
            f" in {month['prune_s']:.1f} s"
        )
    return line


def stored_replays(figures: list[CpuFigure]) -> list[bytes]:
    """Every measured outcome's replay as the ladder stores it, games and bots interleaved."""
    from ladder.services import storage

    pools = [[storage.encode_replay(o["replay"]) for o in f.outcomes] for f in figures]
    mixed = []
    for n in range(max(len(pool) for pool in pools)):
        mixed.extend(pool[n % len(pool)] for pool in pools)
    return mixed


# -- 6. the schedule and record steps at the ladder's rate -----------------------------------
def rate_database(new_database, history: int) -> str:
    """A ladder of SIM_BOTS active bots with `history` matches recorded (bench/synthetic)."""
    from bench.synthetic import fill
    from ladder.cli.db import upgrade

    url = new_database("rate")
    upgrade(url)
    fill(url, SIM_GAME, SIM_BOTS, history, seed=3)
    return url


def measure_schedule(url: str, targets: list[int]) -> list[tuple[int, int, float]]:
    """`scheduler.schedule_ladder` (beat's step) topping the ladder up to each in-flight
    target in turn: (target, matches made, seconds)."""
    import random

    from ladder.broker import announce
    from ladder.extensions import app_settings, db
    from ladder.services import scheduler

    app = bench_app(url)
    found = []
    rng = random.Random(5)
    with app.app_context():
        announce.listen(db.session, None)  # no broker: what is sent is the Redis part's
        for target in targets:
            settings = app_settings(app).with_overrides({"LADDER_IN_FLIGHT": target})
            started = time.monotonic()
            made = scheduler.schedule_ladder(db.session, settings, rng)
            found.append((target, len(made), time.monotonic() - started))
        db.session.close()
        db.engine.dispose()
    return found


def random_record(game: str, players: int, seed: int) -> dict:
    """A random game played to the end in process, its record as a worker stores it."""
    import random

    state = engine.get_game(game).new_game(players, seed=seed)
    chooser = random.Random(seed)
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
    record = state.record()
    record.update(seats=[f"bot{i} v1" for i in range(players)], statuses=["ok"] * players)
    record.update(decision_ms=[3] * len(record["actions"]))
    return record


def simulated_outcome(match, replay: dict) -> dict:
    """What a worker reports for `match`, its result drawn from the seed, not played."""
    import random

    n = match.players
    ranks = list(range(1, n + 1))
    random.Random(match.seed).shuffle(ranks)
    return {
        "game": match.game,
        "seed": match.seed,
        "players": n,
        "options": {},
        "statuses": ["ok"] * n,
        "scores": [10 * (n - r) for r in ranks],
        "ranks": ranks,
        "errors": [None] * n,
        "stderr": [""] * n,
        "replay": {**replay, "seed": match.seed, "players": n},
    }


def recorder(url: str, ids: list[int], replay: dict, ready, go, results) -> None:
    """One process claiming and recording `ids` as workers do, once `go` is set."""
    from sqlalchemy import text

    from ladder.broker import announce
    from ladder.extensions import app_settings, db
    from ladder.services import matches

    app = bench_app(url)
    with app.app_context():
        announce.listen(db.session, None)
        settings = app_settings(app)
        db.session.execute(text("SELECT 1"))  # connected before the clock starts
        db.session.rollback()
        ready.put(True)
        go.wait()
        started = time.monotonic()
        for match_id in ids:
            matches.start_match(db.session, match_id)
            db.session.commit()
            match = matches.get_match(db.session, match_id)
            matches.record_match(db.session, settings, match_id, simulated_outcome(match, replay))
            db.session.commit()
        results.put((started, time.monotonic(), len(ids)))
        db.session.close()
        db.engine.dispose()


def measure_record(url: str, replay: dict, processes: int, count: int) -> float:
    """Matches a second `processes` recorders claim and record, `count` queued matches
    shared between them (made by the scheduler's own create_match): the rate of the
    whole, first start to last end."""
    import multiprocessing

    from sqlalchemy import select

    from ladder.broker import announce
    from ladder.extensions import app_settings, db
    from ladder.models import Match, MatchState
    from ladder.services import matches

    app = bench_app(url)
    with app.app_context():
        announce.listen(db.session, None)
        queued = list(
            db.session.scalars(
                select(Match.id).where(Match.state == MatchState.QUEUED).order_by(Match.id)
            )
        )
        settings = app_settings(app)
        n = 0
        while len(queued) < count:
            # Four bots in turn (ids n+1..n+4: four owners), so recorders rarely wait on
            # each other's rating locks, as on a ladder of 10,000 bots.
            table = [1 + (PLAYERS * n + k) % SIM_BOTS for k in range(PLAYERS)]
            made = matches.create_match(db.session, settings, SIM_GAME, table, ranked=True)
            db.session.flush()
            queued.append(made.id)
            n += 1
        db.session.commit()
        db.session.close()
        db.engine.dispose()
    queued = queued[:count]
    spawn = multiprocessing.get_context("spawn")
    ready, results, go = spawn.Queue(), spawn.Queue(), spawn.Event()
    workers = [
        spawn.Process(target=recorder, args=(url, queued[i::processes], replay, ready, go, results))
        for i in range(processes)
    ]
    for w in workers:
        w.start()
    for _ in workers:
        ready.get(timeout=120)
    go.set()
    done = [results.get(timeout=1800) for _ in workers]
    for w in workers:
        w.join()
    return sum(n for _, _, n in done) / (max(e for _, e, _ in done) - min(s for s, _, _ in done))


# -- the report ----------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--parts", nargs="+", default=["cpu", "storage", "web", "redis", "growth", "rate"]
    )
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--bots", nargs="+", default=list(BOTS), choices=BOTS)
    parser.add_argument("--matches", type=int, default=20, help="matches per game and bot")
    parser.add_argument("--search-matches", type=int, default=3, help="(search bots are slow)")
    parser.add_argument("--copies", type=int, default=5, help="records of each outcome")
    parser.add_argument("--redis-matches", type=int, default=40)
    parser.add_argument("--per-day", type=int, default=1000, help="growth: matches a day")
    parser.add_argument("--days", type=int, default=30, help="growth: days simulated")
    parser.add_argument("--keep-days", type=int, nargs="+", default=[7], help="growth")
    parser.add_argument("--history", type=int, default=100_000, help="rate: matches before")
    parser.add_argument("--targets", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--recorders", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--record-matches", type=int, default=600)
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        game, bot, count, seed, out = args.child
        child(game, bot, int(count), int(seed), out)
        return
    from bench.stack import databases, stop_cleanly_on_sigterm

    stop_cleanly_on_sigterm()
    with (
        tempfile.TemporaryDirectory(prefix="bench-per-match-") as tmp,
        databases("postgresql", Path(tmp)) as new_database,
    ):
        folder = Path(tmp)
        figures = []
        if {"cpu", "storage", "web", "growth"} & set(args.parts):
            print(f"worker CPU per match ({PLAYERS} seats of one house bot, real sandbox):")
            for game in args.games:
                for bot in args.bots:
                    count = args.search_matches if bot == "search" else args.matches
                    f = measure_cpu(game, bot, count, folder)
                    figures.append(f)
                    print(
                        f"  {game:9} {bot:6} {f.cpu_s:7.2f} CPU s  {f.wall_s:7.2f} wall s"
                        f"  (bots' moves {f.bot_move_cpu_s:6.2f} s, {f.steps:5.0f} steps,"
                        f" n={count})",
                        flush=True,
                    )
        if {"storage", "web"} & set(args.parts):
            stored = measure_storage(figures, args.copies, new_database)
            print(f"PostgreSQL bytes per recorded match ({args.copies} records per outcome):")
            for (game, bot), s in stored["per"].items():
                print(
                    f"  {game:9} {bot:6} tables grew {s['growth']:9,.0f} B"
                    f"  WAL {s['wal']:9,.0f} B  replay blob {s['blob']:8,.0f} B",
                    flush=True,
                )
            if "web" in args.parts:
                last = {key: s["last_match"] for key, s in stored["per"].items()}
                print("web reads of one match (SQL statements, response bytes):")
                for (game, bot, label), (queries, size) in measure_web(stored["url"], last).items():
                    print(f"  {game:9} {bot:6} {label:15} {queries:3} queries  {size:9,} B")
        if "growth" in args.parts:
            blobs = stored_replays(figures)
            scale = FULL_RATE / args.per_day
            print(
                f"a simulated month: {args.days} days of {args.per_day:,} matches a day"
                f" (1/{scale:,.0f} of {FULL_RATE:,}), {SIM_BOTS:,} bots, replays drawn in"
                f" turn from the {len(blobs)} measured ({statistics.mean(map(len, blobs)):,.0f}"
                " B on average):"
            )
            for keep in [None, *args.keep_days]:
                month = simulate_month(blobs, args.per_day, args.days, keep, new_database)
                print(describe_month(month, scale), flush=True)
        if "rate" in args.parts:
            url = rate_database(new_database, args.history)
            print(
                f"schedule and record on one PostgreSQL ({SIM_BOTS:,} bots,"
                f" {args.history:,} matches recorded before):"
            )
            for target, made, seconds in measure_schedule(url, args.targets):
                print(
                    f"  schedule_ladder up to {target:5} in flight: {made:5} made in"
                    f" {seconds:6.1f} s = {made / seconds:7.1f} matches/s",
                    flush=True,
                )
            replay = random_record(SIM_GAME, PLAYERS, 1)
            for processes in args.recorders:
                per_s = measure_record(url, replay, processes, args.record_matches)
                print(
                    f"  start + record_match, {processes} processes: {per_s:7.1f} matches/s",
                    flush=True,
                )
        if "redis" in args.parts:
            found = measure_redis(args.redis_matches, new_database, folder)
            print(
                f"Redis calls, one worker, {found['matches']} Manila matches"
                f" in {found['seconds']:.1f} s: {found['during']} during,"
                f" {found['idle_per_s']:.1f}/s when idle; per match, idle taken out:"
            )
            for name, calls in found["per_match"].items():
                print(f"  {name:12} {calls:6.1f}")
            print(f"  {'total':12} {sum(found['per_match'].values()):6.1f}")


if __name__ == "__main__":
    main()
