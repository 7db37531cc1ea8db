"""A worker's heartbeat that cannot reach Redis says so in one line and tries again.

An operator reads the warning; the traceback (redis-py's frames only) is for DEBUG.
"""

from __future__ import annotations

import logging
import socket

from ladder.broker import store as broker
from ladder.jobs.heartbeat import WorkerHeartbeat


def _closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_unreachable_redis_is_one_warning_line_and_the_beat_goes_on(caplog):
    step = WorkerHeartbeat.__new__(WorkerHeartbeat)
    step.client = broker.quick(f"redis://127.0.0.1:{_closed_port()}/0")
    step.name, step.isolation = "celery@test", None
    with caplog.at_level(logging.DEBUG, logger="ladder.jobs.heartbeat"):
        step.beat()
        step.beat()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    for record in warnings:
        assert record.exc_info is None
        message = record.getMessage()
        assert message.startswith("worker heartbeat failed (ConnectionError: ")
        assert message.endswith(f"the next try is in {broker.WORKER_BEAT_S} s")
    debug = [r for r in caplog.records if r.levelno == logging.DEBUG]
    assert debug and all(r.exc_info for r in debug)
