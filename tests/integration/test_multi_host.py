"""A ladder across hosts: one server side, two worker hosts, one host cut off mid-match.

The server side is a private PostgreSQL, a Redis and the web app (with beat).
Each worker host is a network namespace with only its loopback, reaching the
servers through a forwarder the test controls (tests/integration/hosts.py);
the hosts share no files with the web side or with each other, but for one
thing: the sandbox's claim folder (TRADEWINDS_LOCK_DIR). Two hosts on one
kernel share its uids and CPUs, and the claims are what keep two sandboxes
from running as the same uid; on real machines each host has its own.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import itertools
import json
import os
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import engine
from ladder import create_app
from ladder.broker import store as broker
from ladder.cli import db as schema
from ladder.cli.processes import beat_command
from ladder.extensions import make_engine
from ladder.models import BotVersion, Match, MatchSeat, Rating, RatingHistory
from ladder.services import accounts
from tests.integration.conftest import needs_bwrap
from tests.integration.hosts import (
    LOOPBACK,
    RedisOnSocket,
    WorkerHost,
    namespaces_unavailable,
    remove_stale_namespaces,
    stop_group,
    wait_for,
)
from tests.integration.live import create_ranked, house_versions, wait_until
from tests.pgcluster import SUPERUSER, bin_dir, start_cluster
from workers import claims


def _no_postgres() -> str | None:
    try:
        bin_dir()
    except RuntimeError as exc:
        return str(exc)
    return None


pytestmark = [
    pytest.mark.integration,
    needs_bwrap,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
    pytest.mark.skipif(namespaces_unavailable() is not None, reason=str(namespaces_unavailable())),
    pytest.mark.skipif(_no_postgres() is not None, reason=str(_no_postgres())),
]

MATCHES = 12
SECRET = "multi-host-secret"
# What every process of the ladder is told: quick leases and scheduling, and no
# ladder matches of the scheduler's own (the test queues every match itself).
KNOBS = {
    "ARTIFACT_STORE": "database",
    "SECRET_KEY": SECRET,
    "LEASE_S": 3,
    "SCHEDULE_EVERY_S": 1,
    "LADDER_IN_FLIGHT": 0,
}
# The same knobs as the other processes' environment reads them.
ENV_KNOBS = {name: str(value) for name, value in KNOBS.items()}

# Thinks a while on every move (a Manila match takes a second or two), so the
# host can be cut off while its match is surely still being played.
SLOW_BOT = b"""
import time

def act(view, legal):
    time.sleep(0.1)
    for action in legal:
        if action["type"] == "pass":
            return action
    return legal[0]
"""


class ServerSide:
    """PostgreSQL, Redis, the web app and beat: the part no worker host runs on.

    Each part is stopped by `stack` (in reverse order) as soon as it has started,
    so a failure half-way leaves nothing running.
    """

    def __init__(self, root: Path, stack: contextlib.ExitStack) -> None:
        self.folder = root / "server"
        self.web = root / "web"
        self.folder.mkdir()
        self.web.mkdir()
        self.cluster = start_cluster()
        stack.callback(self.cluster.stop)
        self.database = "ladder"
        self.url = self.cluster.create_database(self.database)
        schema.upgrade(self.url)
        self.engine = make_engine(self.url)
        stack.callback(self.engine.dispose)
        self.redis = RedisOnSocket(self.folder / "redis")
        stack.callback(self.redis.stop)
        where = {"DATABASE_URL": self.url, "REDIS_URL": self.redis.url}
        self.app = create_app(
            {
                **KNOBS,
                **where,
                "LADDER_VAR": str(self.web),
                "WTF_CSRF_ENABLED": False,
            }
        )
        # The app's own engine: its connections closed here, not by the garbage collector
        # in whatever test runs then (psycopg warns, and warnings fail tests).
        stack.callback(self.app.extensions["ladder.db"].kw["bind"].dispose)
        with open(self.folder / "beat.log", "ab") as log:
            beat = subprocess.Popen(
                beat_command(self.folder),
                env={**os.environ, **ENV_KNOBS, **where, "LADDER_VAR": str(self.folder)},
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        stack.callback(stop_group, beat)

    @property
    def sockets(self) -> dict[str, Path]:
        """What a host's forwarder relays to."""
        return {"postgres": self.cluster.socket_path, "redis": self.redis.socket_path}

    def session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def beat_log(self) -> str:
        return (self.folder / "beat.log").read_text(errors="replace")


@pytest.fixture
def site():
    """The server side and two worker hosts, `a` and `b`; all of it gone afterwards."""
    remove_stale_namespaces()
    root = Path(tempfile.mkdtemp(prefix="tw-multihost-"))
    root.chmod(0o711)  # sandbox uids pass through to each host's TMPDIR
    with contextlib.ExitStack() as stack:
        stack.callback(shutil.rmtree, root, ignore_errors=True)
        server = ServerSide(root, stack)
        # The one thing two hosts on one kernel must share, because they share its uids
        # (and CPUs): the machine's claim folder, the one every sandbox here uses.
        shared = {**ENV_KNOBS, "TRADEWINDS_LOCK_DIR": claims.lock_dir()}
        hosts = []
        for label in ("a", "b"):
            host = WorkerHost(root, label, server.sockets, server.database, SUPERUSER, shared)
            stack.callback(host.close)  # closed before the servers stop
            hosts.append(host)
        yield server, *hosts
        print_log_tails(server, hosts)


def print_log_tails(server: ServerSide, hosts: list[WorkerHost]) -> None:
    """The ends of every log; pytest shows them only for a failed test, to explain it."""
    logs = {f"host {host.label}": host.log() for host in hosts}
    logs |= {"beat": server.beat_log(), "postgres": server.cluster.log_tail()}
    for name, text in logs.items():
        print(f"----- {name} (last lines)", *text.splitlines()[-40:], sep="\n")


def upload(server: ServerSide, source: bytes) -> int:
    """Register a user and upload `source` through the web side; the new version's id."""
    with server.app.app_context():
        from ladder.extensions import db

        accounts.register(db.session, "alice", "correct horse")
        db.session.commit()
    client = server.app.test_client()
    client.post("/login", data={"username": "alice", "password": "correct horse"})
    page = client.post(
        "/bots/upload",
        data={"game": "manila", "name": "slowcoach", "file": (io.BytesIO(source), "bot.py")},
        content_type="multipart/form-data",
    )
    assert page.status_code in (200, 302), page.get_data(as_text=True)[:500]
    with server.session() as s:
        return s.scalar(select(func.max(BotVersion.id)))


def version_state(server: ServerSide, version_id: int) -> str:
    with server.session() as s:
        return s.get(BotVersion, version_id).state


def running_on(server: ServerSide, host: WorkerHost) -> int | None:
    """A match that `host` is playing now (its lease names the host), if any."""
    leases = broker.quick(server.redis.url)
    try:
        keys = leases.keys(broker.lease_key("match", "*"))
        mine = [
            int(key.decode().rsplit(":", 1)[1])
            for key in keys
            if (leases.get(key) or b"").decode().startswith(f"{host.hostname}:")
        ]
    finally:
        leases.close()
    with server.session() as s:
        for match_id in mine:
            if s.get(Match, match_id).state == "running":
                return match_id
    return None


def states(server: ServerSide, ids: list[int]) -> Counter:
    with server.session() as s:
        return Counter(s.scalars(select(Match.state).where(Match.id.in_(ids))))


def logged(host: WorkerHost, msg: str) -> list[dict]:
    """The entries of the host worker's JSON log whose message is `msg`."""
    found = []
    for line in host.log().splitlines():
        with contextlib.suppress(ValueError):
            entry = json.loads(line)
            if isinstance(entry, dict) and entry.get("msg") == msg:
                found.append(entry)
    return found


def ladder_files(host: WorkerHost) -> list[str]:
    """Files on the host other than its log, its bot cache and its temporary folder."""
    cache = host.var / "bot-cache"
    found = []
    for path in host.folder.rglob("*"):
        if path.is_dir() or path == host.log_path:
            continue
        if path.is_relative_to(cache) or path.is_relative_to(host.tmp):
            continue
        found.append(str(path.relative_to(host.folder)))
    return found


def test_a_host_cut_off_mid_match_loses_nothing_and_every_replay_downloads(site):
    server, a, b = site
    for host in (a, b):
        assert all(addr.startswith(LOOPBACK) for addr in host.ns.addresses()), host.label
        host.start_worker()
    for host in (a, b):
        host.wait_ready()

    # A new bot, uploaded on the web side and validated on whichever host takes it.
    slow = upload(server, SLOW_BOT)
    wait_until(lambda: version_state(server, slow) == "active", 60, "the upload's validation")
    house = [v for v in house_versions(server, "manila") if v != slow]
    assert len(house) >= 2
    pairs = itertools.cycle(itertools.combinations(house, 2))
    ids = [
        create_ranked(server, "manila", [slow, *next(pairs)], seed=300 + i) for i in range(MATCHES)
    ]

    # Once host B has recorded a match and is playing another, pull its cable, then crash it.
    cut = wait_for(
        lambda: "match played" in b.log() and running_on(server, b), 60, "host b mid-match"
    )
    b.cut()
    b.crash()
    assert states(server, [cut])["running"] == 1  # nobody recorded it: B could not

    wait_until(
        lambda: states(server, ids)["finished"] == len(ids),
        90,
        f"every match finished (now {dict(states(server, ids))})",
    )

    # Each match was played to the end exactly once, by one host or the other; the one
    # cut off was handed out again when its lease lapsed, and host A played it. A host
    # logs "match played" just after its commit, so the last line may lag the database.
    def played_by_host() -> dict[str, list[int]] | None:
        played = {
            host.label: [
                e["match_id"] for e in logged(host, "match played") if e["state"] == "finished"
            ]
            for host in (a, b)
        }
        return played if sum(len(found) for found in played.values()) >= len(ids) else None

    played = wait_until(played_by_host, 10, "each host's log of the matches it recorded")
    assert sorted(played["a"] + played["b"]) == ids, played
    assert played["b"] and cut in played["a"], played
    assert any(e["kind"] == "match" and e["id"] == cut for e in logged(a, "requeue"))
    client = server.app.test_client()
    with server.session() as s:
        # Every match recorded exactly once; the one cut off was played again by host A.
        assert s.scalar(select(func.count(Match.id))) == len(ids)
        assert s.get(Match, cut).attempts == 2
        for match_id in ids:
            seats = s.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id)).all()
            assert all(seat.rank is not None and seat.mu_after is not None for seat in seats)
            history = s.scalar(
                select(func.count(RatingHistory.id)).where(RatingHistory.match_id == match_id)
            )
            assert history == len(seats), match_id

        # No rating update lost: each version's count is the matches it played, and
        # each match started from the rating the one before left.
        seats_of = Counter(
            s.scalars(select(MatchSeat.version_id).where(MatchSeat.match_id.in_(ids)))
        )
        for version_id, count in seats_of.items():
            assert s.get(Rating, version_id).games == count, version_id
            rows = s.scalars(
                select(RatingHistory)
                .where(RatingHistory.version_id == version_id)
                .order_by(RatingHistory.id)
            ).all()
            assert len(rows) == count
            for before, after in itertools.pairwise(rows):
                seat = s.scalar(
                    select(MatchSeat).where(
                        MatchSeat.match_id == after.match_id, MatchSeat.version_id == version_id
                    )
                )
                assert seat.mu_before == pytest.approx(before.mu)

        # Every replay comes from the web side, whichever host recorded it.
        for match_id in ids:
            answer = client.get(f"/api/v1/matches/{match_id}/replay")
            assert answer.status_code == 200, (match_id, answer.get_data(as_text=True)[:300])
            record = json.loads(gzip.decompress(answer.data))
            scores = [
                seat.score
                for seat in s.scalars(
                    select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)
                )
            ]
            assert engine.replay(record).result()["scores"] == scores == record["result"]["scores"]

    # The hosts kept nothing of the ladder's but their logs and bot caches.
    for host in (a, b):
        assert ladder_files(host) == [], host.label
        assert not any(host.work.iterdir()), host.label
    assert any((a.var / "bot-cache").iterdir())  # A fetched its bots from the database
    # Nor did the web side keep a file: bots and replays are in the database (no bot cache).
    assert list(server.web.rglob("*")) == []
