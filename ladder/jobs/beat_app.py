"""The Celery app beat loads: `celery -A ladder.jobs.beat_app beat` (`ladder beat`).

The worker's app (`worker_app`), with the log lines tagged `beat`, so an operator
reading a merged log can tell the scheduler from the workers.
"""

from ladder import create_app
from ladder.jobs.logs import quiet_ticks
from ladder.settings import configure_logging

configure_logging("beat")
flask_app = create_app()
celery = flask_app.extensions["celery"]
quiet_ticks(celery.conf.beat_schedule)
