"""Live tables through the whole stack: what a person's click costs, and what waiting tables
take from the ladder.

Run by hand (a few minutes with the defaults; it needs redis-server and bubblewrap, and
PostgreSQL's server binaries for the default database):

    .venv/bin/python bench/table_web.py [--database postgresql|sqlite] [--moves 60]
        [--tables 8] [--matches 60] [--rounds 2]

It starts what a server runs (tests/integration/live.py's LiveLadder: a private Redis and
a fresh migrated database; gunicorn with deploy/gunicorn.conf.py and 2 workers; a ladder
worker `ladder worker --concurrency 2`; a table worker `ladder worker --tables` of
`--tables` processes, every bot in the real sandbox), seats one person (an API token) and
three fast bots (house `random` and `greedy` and the person's own copy of `random`), and
stops everything at the end, on Ctrl-C or SIGTERM too. Beat is not started: nothing is
scheduled but what the bench queues.

1. Click to answer, per game, 4 seats: the person sits in seat 0 and plays random legal
   moves through the API, up to `--moves` of them a game (then resigns). For each move
   after which a bot is to play: the time from sending POST /api/v1/tables/<id>/move to
   the first GET of the table (sent back to back, `--poll-ms` apart) that shows the
   person's turn again with the bots' moves applied; p50 / p95 over the moves. It
   includes up to one read's time after the bots answered (the read then in flight may
   have just missed it), and the reads themselves take CPU from the runner and the bots
   on a 2-core machine; `--poll-ms` spaces them. Beside it:
   - "bots": the bots' own thinking in that gap (the sum of their `decision_ms` in the
     table's replay), and "rest" = click to answer less it, the figure to hold against
     the goal "under 300 ms plus the bots' own thinking";
   - "POST": the move's own answer (it waits, up to MOVE_WAIT_S, for the runner to
     apply the person's move; the bots' answers come with later reads);
   - "GET": each read the bench made meanwhile (a read rebuilds the game from its
     actions; section 2 also times reads of a waiting table with no game moving);
   - "page": an estimate of what a page (static/js/table.js) shows: the POST, then a
     read every 150 ms (POLL_BOT) plus the read's own time, until a read would find the
     bots' answers, from the same moves' times.
2. Ladder throughput with 0 and with `--tables` live tables waiting on a person:
   `--matches` ranked 4-player Manila matches of fast bots queued at once for the ladder
   worker, timed from the first sent to the last recorded (bench/throughput.py's
   `time_matches`), and how many of the 2 cores were busy. Waiting tables hold processes
   and memory but no CPU and no ladder worker, so the two rates should differ by noise.
   `--rounds` repeats the pair, alternating (the machine's speed drifts), after a
   warm-up of 4 matches that is not counted; the medians of the runs follow.
3. The table worker's memory, idle and with `--tables` tables waiting (the games in turn):
   the Celery main process, its pool processes and every sandbox process below them
   (bwrap, zygote, bot), as PSS from /proc/<pid>/smaps_rollup where readable (else RSS,
   and it says so), and RSS beside it. "per table" is (the pool processes + sandboxes) /
   tables: each waiting table holds one pool process and its 3 bots' sandboxes; "added per
   table" is (with tables - idle) / tables, what a table adds to a pool process already
   started. Tables per GiB follow from both. The main process is paid once per worker.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from bench.readers import HOST, TIMEOUT_S
from bench.stack import DATABASES, databases, percentile, stop_cleanly_on_sigterm
from bench.throughput import Run, active_ids, time_matches, wait_for_workers
from bench.web import gunicorn_command, wait_ready
from ladder.broker import announce
from ladder.cli.processes import free_port, worker_command
from ladder.extensions import app_settings, db
from ladder.services import accounts, bots
from ladder.settings import ROOT
from tests.integration.live import LiveLadder, house_versions, wait_until
from workers.procfs import children, descendants
from workers.staging import house_file

GIB = 1 << 30
PLAYERS = 4
WEB_WORKERS = 2  # as `ladder web` and deploy/README.md
LADDER_CONCURRENCY = 2  # `ladder worker`'s default
POLL_BOT_MS = 150  # table.js: how often a page reads the table while a bot is to move
OPPONENTS = ["random", "greedy", "random-2"]  # house random and greedy, the person's random
PERSON = "skipper"
TURN_WAIT_S = 60  # for a table to come back to the person, before the bench gives up
CLOSE_WAIT_S = 300  # for the resigned tables, played out together, to end
READS_AT_REST = 20  # GETs of a waiting table, to time a read with nothing else going on


# -- HTTP ---------------------------------------------------------------------------------
class Api:
    """The tables API on loopback as the person: one request per connection, as a page."""

    def __init__(self, port: int, token: str, own: dict[str, int]) -> None:
        self.port, self.auth = port, {"Authorization": f"Bearer {token}"}
        self.own = own  # game -> the person's random-2

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        status, raw = self.raw(method, path, body)
        return status, json.loads(raw or b"{}")

    def raw(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(HOST, self.port, timeout=TIMEOUT_S)
        try:
            headers = dict(self.auth)
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
            conn.request(method, f"/api/v1{path}", body=data, headers=headers)
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def ok(self, method: str, path: str, body: dict | None = None, want: int = 200) -> dict:
        status, answer = self.call(method, path, body)
        if status != want:
            raise RuntimeError(f"{method} {path} answered {status}: {answer}")
        return answer

    def new_table(self, game: str) -> int:
        opponents = [self.own[game] if name == "random-2" else name for name in OPPONENTS]
        body = {"game": game, "players": PLAYERS, "seat": 0, "opponents": opponents}
        return self.ok("POST", "/tables", body, want=201)["id"]

    def table(self, table_id: int) -> dict:
        return self.ok("GET", f"/tables/{table_id}")


def persons_turn(table: dict) -> bool:
    return table["state"] == "over" or (table["to_move"] == table["seat"] and bool(table["legal"]))


def is_over(table: dict) -> bool:
    return table["state"] == "over"


def waits_on_person(table: dict) -> bool:
    return table["state"] == "playing" and persons_turn(table)


def wait_for(api: Api, table_id: int, check, what: str, timeout_s: float = TURN_WAIT_S) -> dict:
    """The table once `check(table)` holds, read every 0.2 s (`timeout_s` at most)."""

    def seen() -> dict | None:
        now = api.table(table_id)
        return now if check(now) else None

    return wait_until(seen, timeout_s, f"table {table_id}: {what}")


# -- setup --------------------------------------------------------------------------------
def seat_person(live: LiveLadder) -> tuple[str, dict[str, int]]:
    """The person's account and API token, the house bots, and the person's own copy of
    each game's house `random` (a version takes one seat a table); returns the token and,
    per game, that copy's version id."""
    own = {}
    for game in engine.game_names():
        house_versions(live, game)  # seeds the house bots once, announcing nothing
    with live.app.app_context():
        user = accounts.register(db.session, PERSON, "correct horse battery")
        settings = app_settings(live.app)
        with announce.quiet(db.session):  # validated by hand below
            for game in engine.game_names():
                source = house_file(game, "random").read_bytes()
                version = bots.upload_version(
                    db.session, settings, user, game, "random-2", "bot.py", source
                )
                bots.start_validation(db.session, version.id)
                bots.finish_validation(db.session, version.id, True, "bench")
                own[game] = version.id
        _, token = accounts.create_token(db.session, user, "bench")
        db.session.commit()
    return token, own


def manila_ladder_ids(live: LiveLadder) -> list[int]:
    """Four fast Manila versions for the ladder's matches, bench/throughput.py's table:
    house random and greedy, the person's random-2 and a greedy-2 made here."""
    with live.app.app_context():
        from sqlalchemy import select

        from ladder.models import User

        user = db.session.scalar(select(User).where(User.username == PERSON))
        source = house_file("manila", "greedy").read_bytes()
        with announce.quiet(db.session):
            extra = bots.upload_version(
                db.session, app_settings(live.app), user, "manila", "greedy-2", "bot.py", source
            )
            bots.start_validation(db.session, extra.id)
            bots.finish_validation(db.session, extra.id, True, "bench")
        db.session.commit()
        return active_ids(db.session, "manila", ("random", "greedy", "random-2", "greedy-2"))


# -- 1. click to answer ---------------------------------------------------------------------
@dataclass
class Gap:
    """One move of the person after which bots played, as the bench saw it."""

    step: int  # actions applied before the person's move
    next_step: int  # actions applied when the person was asked again
    click_ms: float  # POST sent -> a GET shows the person's turn again
    post_ms: float  # the POST's own answer
    read_ms: list[float] = field(default_factory=list)  # each GET after the POST
    bots_ms: float = 0.0  # the bots' decision_ms between, from the replay


def play_one(api: Api, game: str, moves: int, poll_s: float, rng: random.Random) -> list[Gap]:
    """A table of `game`: the person's random moves, each timed to the bots' answers."""
    table_id = api.new_table(game)
    now = wait_for(api, table_id, persons_turn, "the person's first turn")
    gaps: list[Gap] = []
    made = 0
    while now["state"] != "over" and made < moves:
        step = now["step"]
        began = time.perf_counter()
        answer = api.ok("POST", f"/tables/{table_id}/move", {"action": rng.choice(now["legal"])})
        post_ms = (time.perf_counter() - began) * 1000
        made += 1
        reads: list[float] = []
        now = answer
        while not (persons_turn(now) and now["step"] > step):
            if time.perf_counter() - began > TURN_WAIT_S:
                raise SystemExit(f"table {table_id} did not come back to the person")
            time.sleep(poll_s)
            read_began = time.perf_counter()
            now = api.table(table_id)
            reads.append((time.perf_counter() - read_began) * 1000)
        click_ms = (time.perf_counter() - began) * 1000
        if now["step"] > step + 1:  # bots moved: a person moving twice waits for nobody
            gaps.append(Gap(step, now["step"], click_ms, post_ms, reads))
    if now["state"] != "over":
        api.ok("POST", f"/tables/{table_id}/resign")
        now = wait_for(api, table_id, is_over, "the end after resigning")
    if not now.get("match_id"):
        raise SystemExit(f"table {table_id} ended with no match: {now.get('note')}")
    status, stored = api.raw("GET", f"/matches/{now['match_id']}/replay")
    if status != 200:
        raise SystemExit(f"the replay of table {table_id} answered {status}")
    replay = json.loads(gzip.decompress(stored))
    decided = replay["decision_ms"]
    for gap in gaps:  # the bots' steps in between: after the person's move, to the next ask
        gap.bots_ms = sum(decided[k] or 0 for k in range(gap.step + 1, gap.next_step))
    return gaps


def page_ms(gap: Gap) -> float:
    """What table.js shows: its POST, then a read every POLL_BOT_MS (each as long as the
    bench's reads took) until one shows the person's turn."""
    if not gap.read_ms:
        return gap.post_ms
    read = statistics.median(gap.read_ms)
    after_post = gap.click_ms - gap.post_ms  # how long the bots' answers took to show
    polls = max(1, math.ceil((after_post - read) / (POLL_BOT_MS + read)))
    return gap.post_ms + polls * (POLL_BOT_MS + read)


def pair(values: list[float]) -> str:
    return f"{percentile(values, 0.5):7.1f} {percentile(values, 0.95):7.1f}"


def click_to_answer(api: Api, args: argparse.Namespace) -> None:
    print(
        f"1. click to answer, {PLAYERS} seats (the person + {', '.join(OPPONENTS)}), up to"
        f" {args.moves} person moves a game, reads {args.poll_ms:g} ms apart;"
        " ms, p50 p95:"
    )
    header = (
        f"   {'game':<10} {'n':>4}  {'click->answer':>15}  {'bots':>15}  {'rest':>15}"
        f"  {'POST':>15}  {'GET':>15}  {'page (est.)':>15}"
    )
    print(header)
    rng = random.Random(args.seed)
    for game in engine.game_names():
        gaps = play_one(api, game, args.moves, args.poll_ms / 1000, rng)
        if not gaps:
            print(f"   {game:<10} no move of the person was followed by a bot's")
            continue
        reads = [ms for g in gaps for ms in g.read_ms] or [0.0]
        print(
            f"   {game:<10} {len(gaps):>4}  {pair([g.click_ms for g in gaps])}"
            f"  {pair([g.bots_ms for g in gaps])}"
            f"  {pair([g.click_ms - g.bots_ms for g in gaps])}"
            f"  {pair([g.post_ms for g in gaps])}  {pair(reads)}"
            f"  {pair([page_ms(g) for g in gaps])}"
        )


# -- 3. memory ------------------------------------------------------------------------------
def kib(pid: int, name: str, key: str) -> int | None:
    """A `key: N kB` line of /proc/<pid>/<name>, in KiB; None if unreadable or gone."""
    try:
        text = Path(f"/proc/{pid}/{name}").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return None


@dataclass
class Memory:
    processes: dict[str, int]  # part -> processes
    names: dict[str, int]  # a sandbox process's name (comm) -> how many
    pss: dict[str, float]  # part -> MiB (RSS for a process whose PSS is unreadable)
    rss: dict[str, float]
    pss_unreadable: int


def table_worker_memory(main_pid: int) -> Memory:
    pool = children(main_pid)
    sandboxes = [pid for child in pool for pid in descendants(child)]
    parts = {"main": [main_pid], "pool": pool, "sandboxes": sandboxes}
    pss: dict[str, float] = {}
    rss: dict[str, float] = {}
    unreadable = 0
    for part, pids in parts.items():
        pss[part] = rss[part] = 0.0
        for pid in pids:
            resident = kib(pid, "status", "VmRSS") or 0
            proportional = kib(pid, "smaps_rollup", "Pss")
            if proportional is None:
                unreadable += 1
                proportional = resident
            pss[part] += proportional / 1024
            rss[part] += resident / 1024
    names: dict[str, int] = {}
    for pid in sandboxes:
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        names[name] = names.get(name, 0) + 1
    return Memory({k: len(v) for k, v in parts.items()}, names, pss, rss, unreadable)


def show_memory(label: str, m: Memory) -> None:
    def part(name: str) -> str:
        return f"{name} {m.processes[name]} ({m.pss[name]:.0f} / {m.rss[name]:.0f})"

    names = ", ".join(f"{name} {n}" for name, n in sorted(m.names.items()))
    print(
        f"   {label}: {part('main')}, {part('pool')}, {part('sandboxes')} [{names}];"
        f" total PSS {sum(m.pss.values()):.0f} MiB, RSS {sum(m.rss.values()):.0f} MiB"
        + (f" ({m.pss_unreadable} processes without smaps_rollup: RSS)" if m.pss_unreadable else "")
    )


def per_gib(mib: float) -> str:
    return f"{GIB / (mib * (1 << 20)):.0f}" if mib > 0 else "?"


# -- 2. ladder throughput, and the tables that wait -------------------------------------------
def open_tables(api: Api, count: int) -> list[int]:
    """`count` tables, the games in turn, each played to the person's first turn."""
    games = engine.game_names()
    ids = [api.new_table(games[i % len(games)]) for i in range(count)]
    for table_id in ids:
        wait_for(api, table_id, waits_on_person, "waiting on the person")
    return ids


def timed_read(api: Api, table_id: int) -> float:
    began = time.perf_counter()
    api.table(table_id)
    return (time.perf_counter() - began) * 1000


def close_tables(api: Api, ids: list[int]) -> None:
    for table_id in ids:
        api.ok("POST", f"/tables/{table_id}/resign")
    for table_id in ids:  # the fallback and the bots play each one out, all at once
        wait_for(api, table_id, is_over, "the end after resigning", CLOSE_WAIT_S)


def show_run(label: str, run: Run, matches: int) -> None:
    print(
        f"   {label}: {run.rate:.1f} matches/minute, {run.cores_busy:.2f} of"
        f" {os.cpu_count()} cores busy ({matches} matches)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=DATABASES, default="postgresql")
    parser.add_argument("--moves", type=int, default=60, help="the person's moves a game, at most")
    parser.add_argument("--poll-ms", type=float, default=2.0, help="between the bench's reads")
    parser.add_argument("--tables", type=int, default=8, help="tables waiting in 2. and 3.")
    parser.add_argument("--matches", type=int, default=60, help="ladder matches a run")
    parser.add_argument("--rounds", type=int, default=2, help="of 0 / N tables, alternating")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.tables < 1 or args.moves < 1 or args.matches < 1 or args.rounds < 1:
        parser.error("--tables, --moves, --matches and --rounds are at least 1")
    stop_cleanly_on_sigterm()
    with (
        tempfile.TemporaryDirectory(prefix="tradewinds-bench-") as tmp,
        databases(args.database, Path(tmp)) as new_database,
    ):
        var = Path(tmp) / "var"
        var.mkdir()
        live = LiveLadder(
            var,
            new_database("ladder"),
            PYTHONPATH=str(ROOT),  # this checkout, whichever the virtualenv was made from
            TABLE_WORKERS=str(args.tables),
            TABLE_OPEN_PER_USER=str(args.tables + 2),
            LADDER_IN_FLIGHT="0",
            SECRET_KEY="bench",
        )
        try:
            measure(live, args)
        except (AssertionError, SystemExit, RuntimeError) as exc:
            if not isinstance(exc, SystemExit) or isinstance(exc.code, str):  # not a SIGTERM
                tail = live.log("tables")[-3000:]
                print(f"the table worker's log ends:\n{tail}", file=sys.stderr)
            raise
        finally:
            live.close()


def measure(live: LiveLadder, args: argparse.Namespace) -> None:
    token, own = seat_person(live)
    ladder_ids = manila_ladder_ids(live)
    port = free_port(0)
    web = live.start("web", gunicorn_command(port, WEB_WORKERS))
    tables = live.start("tables", worker_command(args.tables, tables=True))
    live.start("worker0", [*worker_command(LADDER_CONCURRENCY), "--hostname", "ladder@%h"])
    wait_ready(port, web)
    wait_for_workers(live.app, 2, live.var)  # the ladder worker and the table worker
    live.wait_for_log("tables", " ready.")
    api = Api(port, token, own)
    print(
        f"{args.database}, {os.cpu_count()} cores; gunicorn {WEB_WORKERS} workers, ladder worker"
        f" --concurrency {LADDER_CONCURRENCY}, table worker {args.tables} processes"
    )
    idle = table_worker_memory(tables.pid)
    click_to_answer(api, args)

    print("2. ladder throughput, 4-player Manila, house random, greedy and copies of both:")
    first_seed = 2 * LADDER_CONCURRENCY  # a warm-up first: bot files fetched, sandboxes pooled
    warm = time_matches(live.app, ladder_ids, first_seed, live.var)
    show_run("warm-up, not counted", warm, first_seed)
    memory = None
    reads: list[float] = []
    read_game = engine.game_names()[1 % len(engine.game_names())]  # open_tables' 2nd table
    rates: dict[int, list[float]] = {0: [], args.tables: []}
    for round_ in range(args.rounds):
        for waiting in (0, args.tables) if round_ % 2 == 0 else (args.tables, 0):
            ids = open_tables(api, waiting) if waiting else []
            if ids and memory is None:
                memory = table_worker_memory(tables.pid)
                reads = [timed_read(api, ids[1 % len(ids)]) for _ in range(READS_AT_REST)]
            run = time_matches(live.app, ladder_ids, args.matches, live.var, first_seed)
            first_seed += args.matches
            rates[waiting].append(run.rate)
            show_run(f"{waiting} tables waiting on a person", run, args.matches)
            if ids:
                close_tables(api, ids)
    for waiting, found in rates.items():
        print(
            f"   median, {waiting} tables waiting: {statistics.median(found):.1f} matches/minute"
            f" (runs: {', '.join(f'{r:.0f}' for r in found)})"
        )

    assert memory is not None
    print(
        f"   (a GET of a waiting {read_game} table with"
        f" nothing else going on: median {statistics.median(reads):.1f} ms, p95"
        f" {percentile(reads, 0.95):.1f} ms, {READS_AT_REST} reads)"
    )
    print("3. the table worker's memory (processes (PSS / RSS MiB)):")
    show_memory("idle", idle)
    show_memory(f"{args.tables} tables waiting", memory)
    held = memory.pss["pool"] + memory.pss["sandboxes"]
    added = sum(memory.pss.values()) - sum(idle.pss.values())
    held_rss = memory.rss["pool"] + memory.rss["sandboxes"]
    n = args.tables
    print(
        f"   per table: {held / n:.1f} MiB PSS ({held_rss / n:.1f} RSS), a pool process and"
        f" {memory.processes['sandboxes'] / n:.1f} sandbox processes -> {per_gib(held / n)}"
        f" tables a GiB ({per_gib(held_rss / n)} by RSS); added per table to an idle worker:"
        f" {added / n:.1f} MiB PSS -> {per_gib(added / n)} a GiB; the main process"
        f" {memory.pss['main']:.0f} MiB once"
    )


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # the `finally`s have stopped everything by now
        sys.exit("interrupted")
