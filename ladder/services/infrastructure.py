"""What counts as a failure of the infrastructure, and the words for failed work.

A bot's misbehaviour is a result (a status and a log), never an exception. What
raises while work runs either is infrastructure (database, Redis, sandbox, disk:
the work goes back where it was and the task retries) or is a bug (the work fails
at once with the reason: another try would fail again). Each start counts as an
attempt, and work that used MAX_ATTEMPTS fails instead of going back, so nothing
is handed out forever.

The task layer passes what it calls "too long" (Celery's soft time limit) as
`too_long`: this layer imports no Celery.
"""

from __future__ import annotations

from sqlalchemy.exc import OperationalError

from ladder.broker.store import RedisError
from ladder.settings import Settings
from workers import Limits, SandboxUnavailable

# Failures of what runs the work, not of the work itself: worth another attempt.
INFRASTRUCTURE = (OperationalError, RedisError, SandboxUnavailable, OSError)
REASON_CHARS = 300
TOO_LONG = "the match took too long"
WORKER_LOST = "its worker stopped before the end (lease lapsed)"
# Exceptions that mean "the work ran out of time" (none here: the task layer says which).
NEVER: tuple[type[BaseException], ...] = ()


def limits(settings: Settings) -> Limits:
    return Limits.from_dict(dict(settings.bot_limits))


def max_attempts(settings: Settings) -> int:
    return max(1, settings.max_attempts)


def unsafe(settings: Settings) -> bool:
    return settings.unsafe_no_sandbox


def describe(exc: BaseException) -> str:
    """An exception as one short line for a log a person reads."""
    text = " ".join(str(exc).split())
    line = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return line if len(line) <= REASON_CHARS else line[: REASON_CHARS - 1] + "…"


def tries(attempts: int) -> str:
    return f"{attempts} attempt{'s' if attempts != 1 else ''} failed"
