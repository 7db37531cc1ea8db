"""The Celery app the table worker loads: `celery -A ladder.jobs.tables_app worker`
(`ladder worker --tables`).

The worker's app (`worker_app`), with the log lines tagged `tables`, so an operator
reading a merged log can tell the live tables' worker from the ladder's.
"""

from ladder.jobs import worker_app
from ladder.settings import configure_logging

configure_logging("tables")
flask_app = worker_app.flask_app
celery = worker_app.celery
