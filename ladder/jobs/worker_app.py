"""The Celery app a worker loads: `celery -A ladder.jobs.worker_app` (beat's: beat_app).

Made at import, like Flask's Celery example's `make_celery.py`, so that the
worker's tasks run inside this Flask app's context.
"""

import warnings

from celery.exceptions import SecurityWarning

from ladder import create_app
from ladder.jobs.logs import json_sayings, quiet_ticks
from ladder.settings import configure_logging

# A worker runs as root on purpose: it makes a cgroup and claims an outer uid for
# every sandbox (deploy/README.md, "What the sandbox needs"). Celery warns of any
# root worker because one that accepts pickle runs the code a message carries;
# ours accepts JSON only (celery_app), so that warning would only teach operators
# to skip the log's warnings. Celery still refuses a root worker given pickle.
warnings.filterwarnings(
    "ignore", message="You're running the worker with superuser", category=SecurityWarning
)

configure_logging("worker")
json_sayings()
flask_app = create_app()
celery = flask_app.extensions["celery"]
quiet_ticks(celery.conf.beat_schedule)  # beat's tasks: their receipts and successes
