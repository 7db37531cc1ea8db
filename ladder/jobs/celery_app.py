"""Celery bound to the Flask app, as in Flask's own Celery example.

Every task runs inside the app's context, so it reaches the database and the
settings the same way a view does. The web process uses the same Celery app
only to send tasks: `DISPATCH` turns the services' `notify` into a queued task.
"""

from __future__ import annotations

from celery import Celery, Task
from flask import Flask

from ladder.jobs import broker

# The kind of work a service announces -> the task that does it.
TASKS = {
    "validate": "ladder.validate_version",
    "match": "ladder.play_match",
    "tournament": "ladder.play_tournament_match",
    "challenge": "ladder.play_challenge_match",
}
# Tournament matches have a queue of their own, so a busy ladder cannot starve a
# running tournament; so do challenges, so a flood of them cannot starve the ladder
# or a tournament. `ladder worker` consumes every queue (see cli.processes), taking
# from each in turn: Redis's round-robin moves the queue it just took from to the
# back, so each queue with waiting work gets an equal share of the workers.
DEFAULT_QUEUE = "celery"
TOURNAMENT_QUEUE = "tournaments"
CHALLENGE_QUEUE = "challenges"
QUEUES = (DEFAULT_QUEUE, TOURNAMENT_QUEUE, CHALLENGE_QUEUE)


def celery_init_app(app: Flask) -> Celery:
    """Make the Celery app for `app`; with a REDIS_URL, services queue their work."""

    class FlaskTask(Task):
        def __call__(self, *args, **kwargs):
            with app.app_context():
                return self.run(*args, **kwargs)

    redis = broker.celery_settings(app.config)
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
        broker_transport_options=redis["broker_transport_options"],
        worker_hijack_root_logger=False,
        # A task past its soft limit is told so (and fails its match, unrated);
        # the hard limit kills a worker child that ignores it.
        task_soft_time_limit=app.config["TASK_TIME_LIMIT_S"],
        task_time_limit=app.config["TASK_TIME_LIMIT_S"] + 30,
        beat_schedule={
            "schedule-ladder": {
                "task": "ladder.schedule",
                "schedule": float(app.config["SCHEDULE_EVERY_S"]),
            },
        },
        timezone="UTC",
        task_default_queue=DEFAULT_QUEUE,
        task_routes={
            TASKS["tournament"]: {"queue": TOURNAMENT_QUEUE},
            TASKS["challenge"]: {"queue": CHALLENGE_QUEUE},
        },
    )
    from ladder.jobs.heartbeat import WorkerHeartbeat

    celery.steps["worker"].add(WorkerHeartbeat)
    celery.set_default()
    app.extensions["celery"] = celery
    if app.config.get("REDIS_URL"):
        app.config["DISPATCH"] = lambda kind, ident: celery.send_task(TASKS[kind], args=[ident])
    # Register the tasks with this app.
    from ladder.jobs import tasks  # noqa: F401

    return celery
