"""The staff status page against a real Redis and a real Celery worker."""

from __future__ import annotations

import shutil
import signal

import pytest
import redis

import workers
from ladder.services import accounts
from ladder.services.accounts import set_staff
from tests.integration.live import LiveLadder, wait_until

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]

NO_SUCH_MATCH = 2**31 - 1  # a worker takes the message and finds nothing to play


@pytest.fixture
def ladder(tmp_path):
    live = LiveLadder(tmp_path, LADDER_IN_FLIGHT="0")
    yield live
    live.close()


def test_queue_depth_and_workers_are_read_from_redis_and_celery(ladder):
    with ladder.app.app_context():
        from ladder.extensions import db

        accounts.register(db.session, "harbour", "correct horse")
        set_staff(db.session, "harbour", True)
        db.session.commit()
    client = ladder.app.test_client()
    client.post("/login", data={"username": "harbour", "password": "correct horse"})

    def status():
        response = client.get("/staff/status.json")
        assert response.status_code == 200
        return response.get_json()

    # No worker yet: the messages wait in the queue and nobody answers a ping.
    celery = ladder.app.extensions["celery"]
    for _ in range(3):
        celery.send_task("ladder.play_match", args=[NO_SUCH_MATCH])
    before = status()
    assert before["broker_note"] is None
    assert before["queue"] == {"name": "celery", "depth": 3}
    assert before["workers"] == []
    page = client.get("/staff").get_data(as_text=True)
    assert '<td class="n" id="queue-depth">3</td>' in page

    ladder.start_worker("deckhand")
    after = wait_until(
        lambda: (s := status())["queue"]["depth"] == 0 and s["workers"] and s,
        30,
        "the worker to drain the queue and answer a ping",
    )
    [worker] = after["workers"]
    assert worker["name"].startswith("deckhand@")
    # The worker says how its bots are kept apart: this machine's own answer.
    assert worker["isolation"] == workers.isolation()["mode"]
    page = client.get("/staff").get_data(as_text=True)
    assert '<td class="n" id="queue-depth">0</td>' in page
    assert f"<td>{worker['name']}</td>" in page
    if worker["isolation"] != "signals":
        assert after["isolation_warnings"] == [] and "isolation-warning" not in page


def test_workers_come_and_go_with_their_heartbeat(ladder):
    from ladder.broker.store import WORKER_KEY
    from ladder.queries.status import workers_seen

    url = ladder.app.config["REDIS_URL"]
    assert workers_seen(url) == []
    first = ladder.start_worker("bosun")
    ladder.start_worker("cook")
    seen = workers_seen(url)
    assert [w["name"].split("@")[0] for w in seen] == ["bosun", "cook"]
    # A worker that stops signs off at once...
    first.send_signal(signal.SIGTERM)
    first.wait(timeout=30)
    assert [w["name"].split("@")[0] for w in workers_seen(url)] == ["cook"]
    # ...and one that is killed is forgotten when its last beat expires.
    client = redis.Redis.from_url(url)
    ttl = client.ttl(WORKER_KEY + seen[1]["name"])
    client.close()
    assert 0 < ttl <= 15
    ladder.kill("cook")
    wait_until(lambda: workers_seen(url) == [], 20, "the killed worker's heartbeat to expire")


def staff_client(live):
    with live.app.app_context():
        from ladder.extensions import db

        accounts.register(db.session, "harbour", "correct horse")
        set_staff(db.session, "harbour", True)
        db.session.commit()
    client = live.app.test_client()
    client.post("/login", data={"username": "harbour", "password": "correct horse"})
    return client


def test_a_worker_whose_bots_are_paused_by_signals_only_is_a_loud_warning(tmp_path):
    live = LiveLadder(tmp_path, LADDER_IN_FLIGHT="0", TRADEWINDS_CGROUPS="off")
    try:
        live.start_worker("lookout")
        client = staff_client(live)
        status = wait_until(
            lambda: (s := client.get("/staff/status.json").get_json())["workers"] and s,
            30,
            "the worker's heartbeat",
        )
        [worker] = status["workers"]
        assert worker["isolation"] == "signals"
        assert "TRADEWINDS_CGROUPS=off" in worker["warning"]
        assert status["isolation_warnings"] == [f"{worker['name']}: {worker['warning']}"]
        page = client.get("/staff").get_data(as_text=True)
        assert '<div class="warning" id="isolation-warning">' in page
        assert "paused by signals only" in page and worker["warning"] in page
        assert f'<td>{worker["name"]}</td><td class="error">signals</td>' in page
    finally:
        live.close()
