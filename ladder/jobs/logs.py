"""Celery's own lines for beat's ticks, moved from INFO to DEBUG.

Beat sends `ladder.schedule` every SCHEDULE_EVERY_S and the table sweep every
minute; Celery logs each sending (beat) and each receipt and success (worker) at
INFO, which buries what happened among lines saying nothing happened. The tasks
log at INFO themselves when they did something ("scheduled", "tables ended"), so
those lines stay; `--loglevel DEBUG` shows the ticks again.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

# The loggers of Celery's per-task lines: beat's sending, the worker's receipt and success.
TICK_LOGGERS = ("celery.beat", "celery.worker.strategy", "celery.app.trace")
SENDING = "Scheduler: Sending due task"


class QuietTicks(logging.Filter):
    """Demotes Celery's lines about a beat task (`tasks`, by name) to DEBUG."""

    def __init__(self, tasks: Collection[str]) -> None:
        super().__init__()
        self.tasks = frozenset(tasks)

    def _is_tick(self, record: logging.LogRecord) -> bool:
        if str(record.msg).startswith(SENDING):
            return True
        if record.levelno != logging.INFO:  # a failed tick stays what it was logged as
            return False
        args = record.args  # Celery's task lines pass the task's facts as a dict
        return isinstance(args, dict) and args.get("name") in self.tasks

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._is_tick(record):
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


def quiet_ticks(beat_schedule: dict) -> None:
    """Put QuietTicks on Celery's per-task loggers for every task of `beat_schedule`."""
    quiet = QuietTicks({entry["task"] for entry in beat_schedule.values()})
    for name in TICK_LOGGERS:
        logger = logging.getLogger(name)
        logger.filters = [f for f in logger.filters if not isinstance(f, QuietTicks)]
        logger.addFilter(quiet)
