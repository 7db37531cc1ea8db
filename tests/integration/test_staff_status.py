"""The staff status page against a real Redis and a real Celery worker."""

from __future__ import annotations

import shutil
import signal

import pytest
import redis

from ladder.services import accounts
from ladder.staff_cli import set_staff
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
    assert len(after["workers"]) == 1 and after["workers"][0].startswith("deckhand@")
    page = client.get("/staff").get_data(as_text=True)
    assert '<td class="n" id="queue-depth">0</td>' in page
    assert f"<td>{after['workers'][0]}</td>" in page


def test_workers_come_and_go_with_their_heartbeat(ladder):
    from ladder.services.status import WORKER_KEY, workers_seen

    url = ladder.app.config["REDIS_URL"]
    assert workers_seen(url) == []
    first = ladder.start_worker("bosun")
    ladder.start_worker("cook")
    seen = workers_seen(url)
    assert [name.split("@")[0] for name in seen] == ["bosun", "cook"]
    # A worker that stops signs off at once...
    first.send_signal(signal.SIGTERM)
    first.wait(timeout=30)
    assert [name.split("@")[0] for name in workers_seen(url)] == ["cook"]
    # ...and one that is killed is forgotten when its last beat expires.
    client = redis.Redis.from_url(url)
    ttl = client.ttl(WORKER_KEY + seen[1])
    client.close()
    assert 0 < ttl <= 15
    ladder.kill("cook")
    wait_until(lambda: workers_seen(url) == [], 20, "the killed worker's heartbeat to expire")
