"""The Celery app a worker or beat process loads: `celery -A ladder.jobs.worker_app`.

Made at import, like Flask's Celery example's `make_celery.py`, so that the
worker's tasks run inside this Flask app's context.
"""

from ladder import create_app
from ladder.settings import configure_logging

configure_logging("worker")
flask_app = create_app()
celery = flask_app.extensions["celery"]
