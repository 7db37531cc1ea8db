"""The one Redis module: its clients, the keys the ladder keeps there, and their timeouts.

Redis (REDIS_URL) is Celery's broker and also the ladder's own small store:
leases on work in progress (`ladder.jobs.leases`), the workers' heartbeats
(`ladder.jobs.heartbeat`, read by the staff page), the moves people make at
live tables on their way from the web to the table runner (`push_move`,
`take_move`), and a mark beside each message sent (`announced_key`): the mark
lives in the same store as the message, so a Redis that restarts empty loses
both, and the sweep, finding queued work unmarked, announces it again at once
(`ladder.services.sweep`). Nothing else imports `redis`, and this module imports
neither Celery nor Flask: the services and queries below the task layer use its
names, and the task layer binds a client to an app.

- `AppClient`: one app's long-lived client (one connection pool, made on first
  use in each process and reused by every task); the Celery app closes it when
  a worker process stops (`ladder.jobs.celery_app`).
- `quick(url)`: a new client that gives up after QUICK_TIMEOUT_S, for whoever
  must never stall on a dead broker (the status page, the heartbeat); its
  caller closes it.
"""

from __future__ import annotations

import json

import redis

Client = redis.Redis
RedisError = redis.RedisError  # any failure of the broker: worth another attempt

# Key names. Every key of ours starts with PREFIX; QUEUE is Celery's own.
PREFIX = "tradewinds:"
LEASE_KEY = PREFIX + "lease:"  # + "<kind>:<id>": a live worker is busy with that work
WORKER_KEY = PREFIX + "worker:"  # + the worker's name: its latest heartbeat
ANNOUNCED_KEY = PREFIX + "announced:"  # + "<kind>:<id>": a message for that work was sent
TABLE_KEY = PREFIX + "tables:"  # + "<id>:moves": a live table's moves, web to runner
SINCE_KEY = PREFIX + "since"  # when this Redis first held our keys: a restart empty resets it
QUEUE = "celery"  # Celery's default queue: a Redis list of waiting messages

# Timeouts, in seconds.
MOVES_KEEP_S = 2 * 3600  # a table's list of moves outlives its longest match by this much
MOVE_SLICE_S = 1.0  # the runner waits for a move in slices this long, at most
QUICK_TIMEOUT_S = 1  # connect and reply, for `quick` clients
WORKER_BEAT_S = 5  # a worker sets its heartbeat key this often...
WORKER_FORGET_S = 3 * WORKER_BEAT_S  # ...and the key expires this long after the last beat
# Redis gives a taken message to another worker when it is not acknowledged within
# the task's time limit (TASK_TIME_LIMIT_S) plus this margin.
VISIBILITY_MARGIN_S = 60

SCHEMES = ("redis://", "rediss://", "unix://")


def lease_key(kind: str, ident: int) -> str:
    return f"{LEASE_KEY}{kind}:{ident}"


def announced_key(kind: str, ident: int) -> str:
    """The mark of a sent message; `kind` is the work's kind ("validate" or "match" for
    every kind of match: a match has one message at a time, whichever queue it is on)."""
    return f"{ANNOUNCED_KEY}{kind}:{ident}"


def moves_key(table_id: int) -> str:
    return f"{TABLE_KEY}{table_id}:moves"


def push_move(client: Client, table_id: int, message: dict) -> None:
    """Put one checked move (or resignation) at the end of the table's list of moves."""
    key = moves_key(table_id)
    pipe = client.pipeline()
    pipe.rpush(key, json.dumps(message, separators=(",", ":")))
    pipe.expire(key, MOVES_KEEP_S)
    pipe.execute()


def take_move(client: Client, table_id: int, timeout_s: float) -> dict | None:
    """The first move waiting on the table's list, waiting at most `timeout_s` (capped at
    MOVE_SLICE_S) for one; None if none came. A message that is not a JSON object is
    dropped and reads as none."""
    wait = min(max(timeout_s, 0.01), MOVE_SLICE_S)
    found = client.blpop([moves_key(table_id)], timeout=wait)
    if not found:
        return None
    try:
        message = json.loads(found[1])
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def drop_moves(client: Client, table_id: int) -> None:
    client.delete(moves_key(table_id))


def worker_key(name: str) -> str:
    return WORKER_KEY + name


def worker_name(key: bytes) -> str:
    """The worker a heartbeat key belongs to."""
    return key.decode().removeprefix(WORKER_KEY)


def is_redis(url: str | None) -> bool:
    """Whether `url` names a Redis (tests run Celery on an in-memory broker instead)."""
    return (url or "").startswith(SCHEMES)


class AppClient:
    """One app's long-lived client: made on first use in a process, closed with it."""

    def __init__(self, url: str | None) -> None:
        self.url = url
        self.client: Client | None = None

    def get(self) -> Client:
        if self.client is None:
            if not self.url:
                raise RuntimeError("no broker configured (REDIS_URL is not set)")
            self.client = redis.Redis.from_url(self.url)
        return self.client

    def close(self, **_signal) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None


def quick(url: str) -> Client:
    """A new client that gives up after QUICK_TIMEOUT_S; ValueError for a URL not of Redis."""
    return redis.Redis.from_url(
        url, socket_connect_timeout=QUICK_TIMEOUT_S, socket_timeout=QUICK_TIMEOUT_S
    )
