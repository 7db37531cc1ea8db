"""The ladder's own keys in a real Redis: marks of sent messages and leases on work.

A Redis restarted empty is a FLUSHALL here: the same empty store, seconds faster.
"""

from __future__ import annotations

import time

import pytest
import redis

from ladder.broker import store as broker
from ladder.cli.processes import free_port, start_redis, stop
from ladder.jobs.leases import Leases
from ladder.jobs.marks import Marks


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    port = free_port(0)
    proc = start_redis(tmp_path_factory.mktemp("redis"), port)
    client = redis.Redis(port=port)
    yield client
    client.close()
    stop({"redis": proc})


@pytest.fixture(autouse=True)
def empty(client):
    client.flushall()


def wait_for(check, timeout_s=5.0):
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_marks_say_which_work_has_a_message_waiting(client):
    marks = Marks(client, ttl_s=300)
    for ident in (1, 2, 3):
        marks.mark("match", ident)
    marks.mark("tournament", 4)  # one mark per match, whichever queue
    marks.mark("validate", 1)
    marks.unmark("challenge", 2)  # a worker took match 2's message
    assert marks.unmarked("match", [1, 2, 3, 4, 5]) == [2, 5]
    assert marks.unmarked("validate", [1, 2]) == [2]
    assert 290 < client.ttl(broker.announced_key("match", 1)) <= 300
    client.flushall()  # Redis restarted empty: every message, and every mark, gone
    assert marks.unmarked("match", [1, 3, 4]) == [1, 3, 4]


def test_marks_are_read_in_chunks(client):
    marks = Marks(client, ttl_s=60)
    for ident in range(0, 2500, 2):
        marks.mark("match", ident)
    assert marks.unmarked("match", range(2500)) == list(range(1, 2500, 2))


def test_a_redis_restarted_empty_is_young_again(client):
    leases = Leases(client, ttl_s=30)
    assert leases.age_s() < 1
    client.set(broker.SINCE_KEY, repr(time.time() - 100))
    assert 99 < leases.age_s() < 102
    client.flushall()
    assert leases.age_s() < 1


def test_a_live_worker_takes_its_lease_back_after_redis_lost_it(client):
    leases = Leases(client, ttl_s=2)  # refreshed every 2/3 s
    key = broker.lease_key("match", 9)
    with leases.hold("match", 9):
        token = client.get(key)
        client.flushall()
        assert not leases.held("match", 9)
        wait_for(lambda: client.get(key) == token)
    assert not leases.held("match", 9)


def test_a_resumed_worker_leaves_its_successors_lease_alone(client):
    leases = Leases(client, ttl_s=2)
    key = broker.lease_key("match", 10)
    with leases.hold("match", 10):
        # Frozen past its lease: the key lapsed and another worker took the match.
        client.set(key, b"other-host:1:beef", ex=2)
        time.sleep(1.5)  # two of its refreshes
        assert client.get(key) == b"other-host:1:beef"
    assert client.get(key) == b"other-host:1:beef"  # its release did not remove it
