"""The one Redis module (`ladder.broker.store`): key names that outlive a release; and the
app's client and its teardown, bound by the Celery app (`ladder.jobs.celery_app`)."""

from __future__ import annotations

import pytest
from celery.signals import worker_process_shutdown

from ladder import create_app
from ladder.broker import store as broker
from ladder.jobs import celery_app


def test_keys_keep_the_names_live_workers_use():
    # A release must not rename keys: leases and heartbeats of running workers are read by name.
    assert broker.lease_key("match", 7) == "tradewinds:lease:match:7"
    assert broker.worker_key("deckhand@host") == "tradewinds:worker:deckhand@host"
    assert broker.worker_name(b"tradewinds:worker:deckhand@host") == "deckhand@host"
    assert broker.QUEUE == "celery"


@pytest.mark.parametrize(
    ("url", "redis"),
    [
        ("redis://127.0.0.1:6379/0", True),
        ("rediss://cache.example:6380/1", True),
        ("unix:///run/redis.sock", True),
        ("memory://", False),
        (None, False),
    ],
)
def test_only_a_redis_url_is_a_redis(url, redis):
    assert broker.is_redis(url) is redis


def test_celery_runs_in_memory_without_a_broker_and_waits_out_the_time_limit_with_one(config):
    assert (
        celery_app.celery_settings(config.with_overrides({"REDIS_URL": None}))["broker_url"]
        == "memory://"
    )
    settings = celery_app.celery_settings(config.with_overrides({"REDIS_URL": "redis://h/0"}))
    assert settings["broker_url"] == "redis://h/0"
    visibility = settings["broker_transport_options"]["visibility_timeout"]
    assert visibility == config["TASK_TIME_LIMIT_S"] + broker.VISIBILITY_MARGIN_S


def test_the_apps_client_is_made_once_and_closed_when_a_worker_process_stops(config):
    app = create_app({**config, "REDIS_URL": "redis://127.0.0.1:1/0"})  # never connected
    with app.app_context():
        first = celery_app.client()
        assert celery_app.client() is first
        worker_process_shutdown.send(sender=None, pid=1, exitcode=0)
        assert celery_app.client() is not first


def test_without_a_broker_the_client_says_what_is_missing(app):
    with app.app_context(), pytest.raises(RuntimeError, match="REDIS_URL"):
        celery_app.client()


def test_a_url_that_is_not_of_redis_is_refused_at_once():
    with pytest.raises(ValueError):
        broker.quick("amqp://127.0.0.1/")
