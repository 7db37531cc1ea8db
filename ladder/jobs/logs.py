"""Celery's own lines: beat's ticks moved from INFO to DEBUG, and what a worker says
on a signal written as our JSON lines.

Beat sends `ladder.schedule` every SCHEDULE_EVERY_S and the table sweep every
minute; Celery logs each sending (beat) and each receipt and success (worker) at
INFO, which buries what happened among lines saying nothing happened. The tasks
log at INFO themselves when they did something ("scheduled", "tables ended"), so
those lines stay; `--loglevel DEBUG` shows the ticks again.

On a signal ("worker: Warm shutdown (MainProcess)") Celery writes plain text straight
to the process's stdout, past logging (its handler must not take a lock); `json_sayings`
has it write the same words as one JSON line of the process's own format, still with a
single unlocked write.
"""

from __future__ import annotations

import contextlib
import logging
import os
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


def json_saying(msg: str) -> str:
    """Celery's signal-time words as a line of the root handler's format (JSON lines,
    `settings.configure_logging`), tagged with the process's component."""
    record = logging.LogRecord("celery.apps.worker", logging.INFO, "", 0, msg.strip(), (), None)
    handlers = logging.getLogger().handlers
    formatter = handlers[0].formatter if handlers else None
    return (formatter.format(record) if formatter else record.getMessage()) + "\n"


def _say(msg, f=None) -> None:
    # No stderr left at shutdown: nothing to tell.
    with contextlib.suppress(OSError, ValueError):
        os.write(2, json_saying(str(msg)).encode())


def json_sayings() -> None:
    """Have Celery's worker write its signal-time words as JSON lines (see above)."""
    import celery.apps.worker

    celery.apps.worker.safe_say = _say
