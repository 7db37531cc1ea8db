"""Celery bound to the Flask app, as in Flask's own Celery example.

Every task runs inside the app's context, so it reaches the database and the
settings the same way a view does. The web process uses the same Celery app
only to send tasks: it gives the app's sessions a sender, which turns what the
services announce (`ladder.broker.announce`, after their commit) into a queued
task, and marks it sent (`ladder.jobs.marks`). A broker that cannot be reached
loses nothing: the work is committed, the sender logs a warning, and the sweep
announces it once Redis is back (it finds the work unmarked). It also binds the
app's long-lived Redis client (`client()`), closed when a worker process stops.
"""

from __future__ import annotations

import logging

from celery import Celery, Task
from celery.schedules import crontab
from celery.signals import worker_process_shutdown
from flask import Flask, current_app
from kombu.exceptions import OperationalError as BrokerDown

from ladder.broker import store
from ladder.broker.announce import (
    BEAT_QUEUE,
    CHALLENGE_QUEUE,
    DEFAULT_QUEUE,
    QUEUES,
    SENDER,
    TABLE_QUEUE,
    TEST_QUEUE,
    TOURNAMENT_QUEUE,
)
from ladder.extensions import BROKER, app_settings
from ladder.jobs.marks import Marks
from ladder.settings import Settings

log = logging.getLogger(__name__)

__all__ = ["QUEUES", "TASKS", "celery_init_app", "celery_settings", "client"]

# The kind of work a service announces -> the task that does it.
TASKS = {
    "validate": "ladder.validate_version",
    "match": "ladder.play_match",
    "tournament": "ladder.play_tournament_match",
    "challenge": "ladder.play_challenge_match",
    "test": "ladder.play_test_match",
    "table": "ladder.play_table",
}
EXTENSION = BROKER  # app.extensions key: the app's store.AppClient


def celery_settings(settings: Settings) -> dict:
    """Celery's broker settings: REDIS_URL (else in memory: nothing is queued for real),
    and how long Redis keeps a taken, unacknowledged message from other workers."""
    return {
        "broker_url": settings.redis_url or "memory://",
        "broker_transport_options": {
            "visibility_timeout": settings.task_time_limit_s + store.VISIBILITY_MARGIN_S
        },
    }


def _resolve_schedule(settings: Settings) -> dict:
    """Beat's entry for the re-solve of every game's ratings (ladder/RATINGS.md): every
    RESOLVE_EVERY_S seconds (the first that long after beat starts), none for 0."""
    if settings.resolve_every_s <= 0:
        return {}
    every = float(settings.resolve_every_s)
    return {"resolve-ratings": {"task": "ladder.resolve_ratings", "schedule": every}}


def client() -> store.Client:
    """The current app's long-lived Redis client (one connection pool per process)."""
    return current_app.extensions[EXTENSION].get()


def celery_init_app(app: Flask) -> Celery:
    """Make the Celery app for `app`; with a REDIS_URL, services queue their work."""

    class FlaskTask(Task):
        def __call__(self, *args, **kwargs):
            with app.app_context():
                return self.run(*args, **kwargs)

    settings = app_settings(app)
    holder = store.AppClient(settings.redis_url)
    app.extensions[EXTENSION] = holder
    # A weak reference: an app that is dropped (tests make many) takes its receiver along.
    worker_process_shutdown.connect(holder.close)
    redis = celery_settings(settings)
    celery = Celery(app.name, task_cls=FlaskTask, broker=redis["broker_url"])
    celery.conf.update(
        task_ignore_result=True,
        # Messages are JSON and nothing else: a worker runs as root (it gives each
        # sandbox its own cgroup and uid), and a root worker that took pickle would
        # run whatever code a message carried. worker_app relies on this.
        accept_content=["json"],
        task_serializer="json",
        # A worker takes one message at a time and acknowledges it only when
        # the work is done, so a worker that dies leaves its work to others.
        worker_prefetch_multiplier=1,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        broker_connection_retry_on_startup=True,
        # A worker that loses Redis (restarted, say) plays on: the match it plays is
        # recorded through the database, and the sweep sends whatever Redis lost.
        worker_cancel_long_running_tasks_on_connection_loss=False,
        broker_transport_options=redis["broker_transport_options"],
        worker_hijack_root_logger=False,
        # A task past its soft limit is told so (and fails its match, unrated);
        # the hard limit kills a worker child that ignores it.
        task_soft_time_limit=settings.task_time_limit_s,
        task_time_limit=settings.task_time_limit_s + 30,
        beat_schedule={
            "schedule-ladder": {
                "task": "ladder.schedule",
                "schedule": float(settings.schedule_every_s),
            },
            # A live table whose runner is gone (its worker died) is ended.
            "end-abandoned-tables": {
                "task": "ladder.end_abandoned_tables",
                "schedule": 60.0,
            },
            # The replay retention policy (`services.retention`), once a day at a quiet hour.
            "prune-replays": {
                "task": "ladder.prune_replays",
                "schedule": crontab(hour=4, minute=20),
            },
            **_resolve_schedule(settings),
        },
        timezone="UTC",
        task_default_queue=DEFAULT_QUEUE,
        task_routes={
            TASKS["tournament"]: {"queue": TOURNAMENT_QUEUE},
            TASKS["challenge"]: {"queue": CHALLENGE_QUEUE},
            TASKS["test"]: {"queue": TEST_QUEUE},
            TASKS["table"]: {"queue": TABLE_QUEUE},  # the table worker's alone
            "ladder.end_abandoned_tables": {"queue": BEAT_QUEUE},
            "ladder.schedule": {"queue": BEAT_QUEUE},
            "ladder.prune_replays": {"queue": BEAT_QUEUE},
            "ladder.resolve_ratings": {"queue": BEAT_QUEUE},
        },
    )
    from ladder.jobs.heartbeat import WorkerHeartbeat

    celery.steps["worker"].add(WorkerHeartbeat)
    celery.set_default()
    app.extensions["celery"] = celery
    if settings.redis_url:

        def send(kind: str, ident: int) -> None:
            # The message first, then its mark: a mark without its message would hide
            # lost work for REQUEUE_AFTER_S; a message without a mark costs a spare one.
            try:
                celery.send_task(TASKS[kind], args=[ident])
                Marks(holder.get(), settings.requeue_after_s).mark(kind, ident)
            except (BrokerDown, store.RedisError, OSError) as exc:
                log.warning(
                    "work not announced: the broker is unreachable; the sweep announces"
                    " it again once it is back",
                    extra={"kind": kind, "id": ident, "error": str(exc)},
                )

        app.extensions["ladder.db"].kw.setdefault("info", {})[SENDER] = send
    # Register the tasks with this app.
    from ladder.jobs import tasks  # noqa: F401

    return celery
