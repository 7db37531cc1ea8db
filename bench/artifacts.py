"""Replays in the artifact store: a large Caravelas replay's size, stored size, and the
time to fetch it from each store and to serve it to the viewer.

The large case is a four-player Caravelas game of house `random` bots, played
in process through the engine (no sandbox needed), the seed chosen from the
first 50 for a length near `--steps` (2,500 by default); its record carries the
fields the match runner adds (statuses, per-move times, seats). It is recorded
as a match through the services, so it is stored exactly as the ladder stores
replays, in a fresh database (a SQLite file, or a private PostgreSQL cluster on a
Unix socket), then timed, median of `--repeat` runs each:

- `get` from the database store (a fresh session each time: one SELECT of the row),
- `get` from the directory store (one file read),
- the viewer's two requests through the Flask app in process (the summary, and
  the first frames window), and the download, each from the database store.

Run by hand, on a quiet machine:

    .venv/bin/python bench/artifacts.py --database sqlite
    .venv/bin/python bench/artifacts.py --database postgresql
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy.orm import Session

import engine
from bench.stack import DATABASES, databases, stop_cleanly_on_sigterm
from ladder import artifacts, create_app
from ladder.cli.db import upgrade
from ladder.extensions import db, make_engine
from ladder.services import accounts, bots, matches, storage
from workers import house_file

GAME = "caravelas"
PLAYERS = 4
SEEDS = range(50)


def house_random():
    """The house random bot's module, loaded in this process."""
    path = house_file(GAME, "random")
    spec = importlib.util.spec_from_file_location("house_random", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def play(seed: int, bot) -> dict:
    """The outcome of one game of house random bots, shaped as the match runner's."""
    state = engine.get_game(GAME).new_game(PLAYERS, seed=seed)
    random.seed(seed)
    clock = random.Random(seed)
    while not state.is_over():
        seat = state.current_player()
        state.apply(bot.act(state.view(seat), state.legal_actions()))
    record, result = state.record(), state.result()
    steps = len(record["actions"])
    record.update(
        statuses=["ok"] * PLAYERS,
        ranks=result["ranks"],
        errors=[None] * PLAYERS,
        decision_ms=[round(clock.uniform(0.2, 40), 3) for _ in range(steps)],
        decision_cpu_ms=[round(clock.uniform(0.1, 30), 3) for _ in range(steps)],
        seats=[f"demo/random-{i} v1" for i in range(PLAYERS)],
        bot_seeds=[clock.randrange(2**31) for _ in range(PLAYERS)],
    )
    return {
        "game": GAME,
        "seed": seed,
        "players": PLAYERS,
        "options": {},
        "statuses": ["ok"] * PLAYERS,
        "scores": result["scores"],
        "ranks": result["ranks"],
        "errors": [None] * PLAYERS,
        "stderr": [""] * PLAYERS,
        "replay": record,
    }


def large_game(steps: int) -> tuple[int, dict]:
    """(seed, outcome) of the game whose length is nearest `steps` among SEEDS."""
    bot = house_random()
    best = None
    for seed in SEEDS:
        outcome = play(seed, bot)
        gap = abs(len(outcome["replay"]["actions"]) - steps)
        if best is None or gap < best[0]:
            best = (gap, seed, outcome)
    return best[1], best[2]


def record_match(app, seed: int, outcome: dict) -> int:
    """Store the game as a finished match through the services; its id."""
    quiet = {**app.config, "UPLOADS_PER_HOUR": 1000}  # no broker here: nothing is announced
    source = house_file(GAME, "random").read_bytes()
    with app.app_context():
        session = db.session
        owner = accounts.register(session, "bench", "a bench password, long enough")
        ids = []
        for i in range(PLAYERS):
            version = bots.upload_version(
                session, quiet, owner, GAME, f"random-{i}", "bot.py", source + f"# {i}\n".encode()
            )
            bots.finish_validation(session, version.id, True, "bench")
            ids.append(version.id)
        match = matches.create_match(session, quiet, GAME, ids, ranked=False, seed=seed)
        matches.start_match(session, match.id)
        matches.record_match(session, quiet, match.id, outcome)
        session.commit()  # the services flush; their caller commits
        return match.id


def median_ms(run: Callable[[], object], repeat: int) -> float:
    run()  # warm: imports, first connection, caches
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(database: str, steps: int, repeat: int) -> None:
    seed, outcome = large_game(steps)
    record = outcome["replay"]
    raw = json.dumps(record, separators=(",", ":"), sort_keys=True).encode()
    gz = storage.encode_replay(record)
    print(f"replay: {GAME}, {PLAYERS} players, seed {seed}, {len(record['actions'])} steps")
    print(f"  JSON {len(raw):,} bytes; stored (gzip) {len(gz):,} bytes ({len(gz) / len(raw):.1%})")
    with (
        tempfile.TemporaryDirectory(prefix="bench-artifacts-") as tmp,
        databases(database, Path(tmp)) as new_database,
    ):
        url = new_database("artifacts")
        upgrade(url)
        app = create_app(
            {
                "DATABASE_URL": url,
                "SECRET_KEY": "bench",
                "ARTIFACT_STORE": "database",
                "ARTIFACT_DIR": str(Path(tmp) / "artifacts"),
                "TESTING": True,
            }
        )
        match_id = record_match(app, seed, outcome)
        key = storage.replay_key(GAME, match_id)
        eng = make_engine(url)
        with Session(eng) as session:
            store = artifacts.DatabaseStore(session)
            assert store.get(key) == gz
            print(
                f"  in the blobs table: {store.stored_size(key):,} bytes"
                " (kept as is: gzip does not compress again)"
            )

        def from_database() -> bytes:
            with Session(eng) as session:
                return artifacts.DatabaseStore(session).get(key)

        directory = artifacts.DirectoryStore(Path(tmp) / "artifacts")
        directory.put(key, gz)
        client = app.test_client()
        base = f"/matches/{match_id}/replay"

        def get(url: str) -> Callable[[], bytes]:
            def fetch() -> bytes:
                response = client.get(url)
                assert response.status_code == 200, (url, response.status_code)
                return response.data

            return fetch

        print(f"median of {repeat} ({database}):")
        rows = [
            ("fetch from the database store", from_database),
            ("fetch from the directory store", lambda: directory.get(key)),
            ("viewer summary.json", get(f"{base}/summary.json")),
            ("viewer frames.json (first window)", get(f"{base}/frames.json")),
            ("download (API)", get(f"/api/v1/matches/{match_id}/replay")),
        ]
        for label, run in rows:
            print(f"  {label:36} {median_ms(run, repeat):8.2f} ms")
        eng.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=DATABASES, default="sqlite")
    parser.add_argument("--steps", type=int, default=2500, help="the replay's length, about")
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    stop_cleanly_on_sigterm()
    measure(args.database, args.steps, args.repeat)


if __name__ == "__main__":
    main()
