"""Workers announce themselves in Redis every few seconds.

The staff page lists the workers seen lately by reading these keys. Asking
Celery instead (a broadcast ping) waits out its whole timeout on every page
load, because nobody knows how many workers will answer. Each beat is a small
JSON object: when, and how this host keeps bots apart (`workers.isolation`),
so staff see a worker whose bots are paused by signals only.
"""

from __future__ import annotations

import json
import logging

from celery import bootsteps

import workers
from ladder.broker import store as broker
from ladder.models import utcnow

log = logging.getLogger(__name__)


def isolation() -> dict | None:
    """This host's sandbox isolation, or None if probing it failed (the beat goes on)."""
    try:
        found = workers.isolation()
    except Exception:
        log.warning("probing the sandbox isolation failed", exc_info=True)
        return None
    return {"mode": found.get("mode"), "warning": found.get("warning")}


def beat_value(isolation: dict | None) -> str:
    return json.dumps({"at": utcnow().isoformat(), "isolation": isolation})


class WorkerHeartbeat(bootsteps.StartStopStep):
    """A worker bootstep: set its heartbeat key (expiring) now and every few seconds."""

    requires = ("celery.worker.components:Timer",)

    def __init__(self, worker, **kwargs) -> None:
        super().__init__(worker, **kwargs)
        self.client: broker.Client | None = None
        self.timer_entry = None
        self.name = ""
        self.isolation: dict | None = None

    def start(self, worker) -> None:
        url = worker.app.conf.broker_url
        if not broker.is_redis(url):
            return  # no Redis broker (tests with an in-memory one): nothing to announce in
        self.client = broker.quick(url)
        self.name = worker.hostname
        self.isolation = isolation()  # chosen once at start, like the sandboxes' own
        self.beat()
        self.timer_entry = worker.timer.call_repeatedly(
            broker.WORKER_BEAT_S, self.beat, priority=10
        )

    def beat(self) -> None:
        if self.client is None:
            return  # stopped: the timer entry may fire once more
        try:
            value = beat_value(self.isolation)
            self.client.set(broker.worker_key(self.name), value, ex=broker.WORKER_FORGET_S)
        except broker.RedisError as exc:
            # A slow or restarting Redis: the next beat tries again, so one line says
            # so (the traceback, which names only redis-py's own frames, at DEBUG).
            log.warning(
                "worker heartbeat failed (%s: %s); the next try is in %d s",
                type(exc).__name__, exc, broker.WORKER_BEAT_S,
            )  # fmt: skip
            log.debug("worker heartbeat failure", exc_info=True)

    def stop(self, worker) -> None:
        if self.timer_entry is not None:
            self.timer_entry.cancel()
            self.timer_entry = None
        if self.client is not None:
            try:
                self.client.delete(broker.worker_key(self.name))  # gone now, not at expiry
            except broker.RedisError:
                log.warning("worker heartbeat could not sign off", exc_info=True)
            self.client.close()
            self.client = None

    shutdown = stop
