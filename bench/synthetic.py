"""A synthetic ladder for the web benchmark: users, bots, rated matches, their seats,
rating history, head to head and records by table size and seat, as the service would
have recorded them.

Rows are made in batches, in foreign-key order, and written the fastest way each
database offers: executemany on SQLite, COPY on PostgreSQL (100,000 matches are
about 800,000 rows; row by row INSERTs would take several minutes there).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from array import array
from collections.abc import Iterator
from datetime import datetime, timedelta

from psycopg import sql
from sqlalchemy import Connection, Table, insert, select, text
from sqlalchemy.orm import Session

import engine
from ladder.artifacts import DatabaseStore
from ladder.extensions import make_engine
from ladder.models import (
    Bot,
    BotVersion,
    HeadToHead,
    Match,
    MatchSeat,
    Rating,
    RatingHistory,
    SeatRecord,
    User,
)
from ladder.ranking import ratings
from ladder.services import head_to_head, storage

BATCH = 20_000
START = datetime(2026, 1, 1)
# Tables whose ids the fill chooses itself; PostgreSQL's sequences must then skip them.
CHOSEN_IDS = (User, Bot, BotVersion, Match, MatchSeat)


def fill(url: str, game: str, bots: int, matches: int, seed: int) -> None:
    """Synthetic ladder: `bots` active bots owned by bots/10 users, `matches` rated matches."""
    eng = make_engine(url)
    try:
        with eng.begin() as conn:
            write = _copy if conn.dialect.name == "postgresql" else _insert
            for table, rows in ladder_rows(game, bots, matches, seed):
                write(conn, table, rows)
            if conn.dialect.name == "postgresql":
                _advance_sequences(conn)
            conn.exec_driver_sql("ANALYZE")  # the planner should see the real sizes
    finally:
        eng.dispose()


def add_replays(url: str, game: str, count: int, seed: int) -> list[int]:
    """Real replays for `count` of the matches (spread over the ids), kept in the database
    store: random legal moves from the match's own seed and table size. Returns their ids."""
    eng = make_engine(url)
    try:
        with Session(eng) as session:
            last = session.scalar(select(Match.id).order_by(Match.id.desc()).limit(1)) or 0
            ids = sorted(random.Random(seed).sample(range(1, last + 1), min(count, last)))
            store = DatabaseStore(session)
            for match in session.scalars(select(Match).where(Match.id.in_(ids))):
                record = _played(game, match.players, match.seed)
                match.replay_key = storage.save_replay(store, game, match.id, record)
                match.engine_version = record.get("engine_version")
            session.commit()
        return ids
    finally:
        eng.dispose()


def _played(game: str, players: int, seed: int) -> dict:
    """A whole game of random legal moves, recorded as a worker records one."""
    state = engine.get_game(game).new_game(players, seed=seed)
    chooser = random.Random(seed)
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
    record = state.record()
    record.update(
        seats=[f"bot v1 seat {s}" for s in range(players)],
        statuses=["ok"] * players,
        ranks=state.result()["ranks"],
    )
    return record


def ladder_rows(game: str, bots: int, matches: int, seed: int) -> Iterator[tuple[Table, list]]:
    """(table, rows) batches, parents before children; the same seed gives the same ladder."""
    rng = random.Random(seed)
    spec = engine.get_game(game)
    users = max(1, bots // 10)
    yield User.__table__, [_user(u) for u in range(1, users + 1)]
    yield Bot.__table__, [_bot(b, users, game) for b in range(1, bots + 1)]
    yield BotVersion.__table__, [_version(b, users) for b in range(1, bots + 1)]
    strength = {b: rng.gauss(25, 5) for b in range(1, bots + 1)}
    games = dict.fromkeys(strength, 0)
    match_rows, seat_rows, history_rows = [], [], []
    # Head to head as recording keeps it, in flat arrays (bot * (bots + 1) + opponent):
    # a dict of 4 million pairs would take a gigabyte.
    met = {name: array("i", bytes(4 * (bots + 1) ** 2)) for name in head_to_head.COUNTS}
    records: dict[tuple[int, int, int], list[int]] = {}  # games, wins, rank sum
    seat_id = 0
    for m in range(1, matches + 1):
        when = START + timedelta(seconds=30 * m)
        players = rng.randint(spec.min_players, spec.max_players)
        table = rng.sample(range(1, bots + 1), players)
        order = sorted(table, key=lambda b: strength[b] + rng.gauss(0, 5), reverse=True)
        match_rows.append(_match(m, game, players, when, spec.version))
        ranked = [(b, order.index(b) + 1) for b in table]
        for (b, o), tally in head_to_head.pairs(ranked).items():
            for name, n in tally.items():
                met[name][b * (bots + 1) + o] += n
        for seat, b in enumerate(table):
            seat_id += 1
            games[b] += 1
            rank = order.index(b) + 1
            record = records.setdefault((b, players, seat), [0, 0, 0])
            record[0] += 1
            record[1] += rank == 1
            record[2] += rank
            sigma = max(1.0, ratings.SIGMA * 0.97 ** games[b])
            mu = 25 + (strength[b] - 25) * (1 - sigma / ratings.SIGMA) + rng.gauss(0, 0.3)
            seat_rows.append(_seat(seat_id, m, seat, b, players, rank, mu, sigma))
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
            yield Match.__table__, match_rows
            yield MatchSeat.__table__, seat_rows
            yield RatingHistory.__table__, history_rows
            match_rows, seat_rows, history_rows = [], [], []
    last = START + timedelta(seconds=30 * matches)
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
    yield Rating.__table__, rows
    yield (
        SeatRecord.__table__,
        [
            {"version_id": b, "players": p, "seat": seat, "games": g, "wins": w}
            | {"rank_sum": r, "faults": 0}
            for (b, p, seat), (g, w, r) in sorted(records.items())
        ],
    )
    pairs = []
    for b in range(1, bots + 1):
        for o in range(1, bots + 1):
            at = b * (bots + 1) + o
            if met["met"][at]:
                pairs.append({"bot_id": b, "opponent_id": o, **{k: a[at] for k, a in met.items()}})
        if len(pairs) >= BATCH or b == bots:
            yield HeadToHead.__table__, pairs
            pairs = []


def _user(u: int) -> dict:
    return {"id": u, "username": f"user{u}", "password_hash": "x", "created_at": START}


def _bot(b: int, users: int, game: str) -> dict:
    return {
        "id": b,
        "owner_id": 1 + b % users,
        "game": game,
        "name": f"bot{b}",
        "created_at": START,
    }


def _version(b: int, users: int) -> dict:
    return {
        "id": b,
        "bot_id": b,
        "number": 1,
        "uploaded_by_id": 1 + b % users,
        "filename": "bot.py",
        "kind": "py",
        "size": 100,
        "sha256": "0" * 64,
        "file_key": f"bots/{'0' * 64}.py",
        "state": "active",
        "validation_log": "",
        "created_at": START,
    }


def _match(m: int, game: str, players: int, when: datetime, version: str) -> dict:
    return {
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
        "replay_key": f"replays/{game}/{m}.json.gz",
        "engine_version": version,
    }


def _seat(ident, m, seat, b, players, rank, mu, sigma) -> dict:
    return {
        "id": ident,
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


def _insert(conn: Connection, table: Table, rows: list[dict]) -> None:
    if rows:
        conn.execute(insert(table), rows)


def _copy(conn: Connection, table: Table, rows: list[dict]) -> None:
    """COPY the rows in; columns left out get their model's plain defaults, as insert() does."""
    if not rows:
        return
    columns = list(rows[0])
    defaults = {
        c.name: c.default.arg
        for c in table.columns
        if c.name not in columns and c.default is not None and c.default.is_scalar
    }
    statement = sql.SQL("COPY {} ({}) FROM STDIN").format(
        sql.Identifier(table.name), sql.SQL(", ").join(map(sql.Identifier, [*columns, *defaults]))
    )
    tail = [_cell(v) for v in defaults.values()]
    raw = conn.connection.driver_connection  # psycopg's own connection, same transaction
    with raw.cursor() as cursor, cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row([*(_cell(row[c]) for c in columns), *tail])


def _cell(value):
    """What COPY's text format takes: JSON columns as their text, the rest as they are."""
    return json.dumps(value) if isinstance(value, dict | list) else value


def _advance_sequences(conn: Connection) -> None:
    """Ids were chosen here, so move each id sequence past them (the app inserts later)."""
    for model in CHOSEN_IDS:
        name = model.__tablename__
        conn.execute(
            text(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), max(id)) FROM {name}")
        )


def main() -> None:
    """Fill a database at a URL (already migrated to head) once, to measure it many times."""
    parser = argparse.ArgumentParser(description="fill a migrated database with a synthetic ladder")
    parser.add_argument("url")
    parser.add_argument("--game", default="manila")
    parser.add_argument("--bots", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--replays", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    began = time.perf_counter()
    fill(args.url, args.game, args.bots, args.matches, args.seed)
    add_replays(args.url, args.game, args.replays, args.seed)
    print(f"filled in {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":  # python -m bench.synthetic URL, from the checkout
    main()
