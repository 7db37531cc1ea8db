"""Settings for the ladder, read once from the environment, and the log format.

One flat mapping of upper-case keys (Flask's config style). `create_app`
takes a dict of overrides, which is how tests point the app at a temporary
database and directories.

Logs are structured: one JSON object a line on stderr, from the web and the
workers alike (`configure_logging`, called first by each process's entry
point). `log.info("match played", extra={"match_id": 7})` becomes one line like
`{"ts": ..., "level": "info", "component": "worker", "msg": "match played", "match_id": 7}`.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VAR = ROOT / "var"
ARTIFACT_STORES = ("database", "directory")  # the first is the default


def _secret_key(var: Path) -> str:
    """A stable secret for development: kept in var/secret_key, made once.

    gunicorn runs several workers; each must sign sessions with the same key.
    """
    path = var / "secret_key"
    if not path.exists():
        var.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def _int(env: dict, name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"environment variable {name} must be an integer, not {raw!r}") from None


def _choice(env: dict, name: str, choices: tuple[str, ...]) -> str:
    """One of `choices` (the first by default); anything else is an error at start."""
    raw = env.get(name) or choices[0]
    if raw not in choices:
        allowed = " or ".join(repr(c) for c in choices)
        raise ValueError(f"environment variable {name} must be {allowed}, not {raw!r}")
    return raw


def database_url(env: dict | None = None) -> str:
    """DATABASE_URL, else a SQLite file under var/."""
    env = os.environ if env is None else env
    var = Path(env.get("LADDER_VAR", VAR))
    return env.get("DATABASE_URL") or f"sqlite:///{var / 'ladder.sqlite3'}"


def from_env(env: dict | None = None) -> dict:
    """The ladder's settings from `env` (default: os.environ)."""
    env = dict(os.environ if env is None else env)
    var = Path(env.get("LADDER_VAR", VAR))
    return {
        "SECRET_KEY": env.get("SECRET_KEY") or _secret_key(var),
        "DATABASE_URL": database_url(env),
        # Where uploaded bots and replays are kept: "database" (the blobs table, so a
        # worker host needs only DATABASE_URL and REDIS_URL) or "directory" (files
        # under ARTIFACT_DIR, which every host must then share). See ladder.artifacts.
        "ARTIFACT_STORE": _choice(env, "ARTIFACT_STORE", ARTIFACT_STORES),
        "ARTIFACT_DIR": env.get("ARTIFACT_DIR") or str(var / "artifacts"),
        # A worker's own copies of the bot files it played, by content hash, evicted
        # least recently used first past BOT_CACHE_BYTES.
        "BOT_CACHE_DIR": env.get("BOT_CACHE_DIR") or str(var / "bot-cache"),
        "BOT_CACHE_BYTES": _int(env, "BOT_CACHE_BYTES", 256 * 1024 * 1024),
        # Legacy only: where replays and uploads were kept before the artifact store.
        # Nothing writes here any more; `ladder artifacts import` reads them once.
        "REPLAY_DIR": env.get("REPLAY_DIR") or str(var / "replays"),
        "UPLOAD_DIR": env.get("UPLOAD_DIR") or str(var / "uploads"),
        "STARTER_DIR": env.get("STARTER_DIR") or str(ROOT / "bots" / "starter"),
        # A bot file (.py or .zip as uploaded) and what a zip may unpack to.
        "MAX_BOT_BYTES": _int(env, "MAX_BOT_BYTES", 512 * 1024),
        "MAX_UNZIPPED_BYTES": _int(env, "MAX_UNZIPPED_BYTES", 8 * 1024 * 1024),
        "MAX_ZIP_FILES": _int(env, "MAX_ZIP_FILES", 200),
        # Uploads per user per rolling hour, web and API together; refused ones count too.
        "UPLOADS_PER_HOUR": _int(env, "UPLOADS_PER_HOUR", 20),
        "PAGE_SIZE": _int(env, "PAGE_SIZE", 50),
        # Failed logins allowed per rolling window before further tries are refused (429).
        "LOGIN_WINDOW_S": _int(env, "LOGIN_WINDOW_S", 900),
        "LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS": _int(
            env, "LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS", 5
        ),
        "LOGIN_FAILURES_PER_ADDRESS": _int(env, "LOGIN_FAILURES_PER_ADDRESS", 20),
        "LOGIN_FAILURES_PER_ACCOUNT": _int(env, "LOGIN_FAILURES_PER_ACCOUNT", 50),
        # Accounts registered (tries with a valid name and password) per address per hour.
        "REGISTRATIONS_PER_HOUR": _int(env, "REGISTRATIONS_PER_HOUR", 10),
        # Challenges a user may start per rolling hour, and have queued or running at once.
        "CHALLENGES_PER_HOUR": _int(env, "CHALLENGES_PER_HOUR", 25),
        "CHALLENGES_IN_FLIGHT": _int(env, "CHALLENGES_IN_FLIGHT", 25),
        # The house account (`ladder house`); nobody may register this name in any case.
        "HOUSE_USER": env.get("HOUSE_USER") or "demo",
        # Reverse proxies in front of the site whose X-Forwarded-* headers are trusted
        # (0: none). Set it behind nginx, or every login would share the proxy's address.
        "PROXY_HOPS": _int(env, "PROXY_HOPS", 0),
        # Set COOKIE_SECURE=1 behind HTTPS so the session cookie is never sent in clear.
        "SESSION_COOKIE_SECURE": env.get("COOKIE_SECURE", "") in ("1", "true", "yes"),
        # TrueSkill dynamics factor for open play (tournaments use 0).
        "OPEN_PLAY_TAU": float(env.get("OPEN_PLAY_TAU") or 0.05),
        # The broker. Without it nothing is queued: work waits in the database.
        "REDIS_URL": env.get("REDIS_URL") or None,
        # Ladder matches the scheduler keeps queued or running, per game.
        "LADDER_IN_FLIGHT": _int(env, "LADDER_IN_FLIGHT", 4),
        # Seconds between scheduler runs (Celery beat).
        "SCHEDULE_EVERY_S": _int(env, "SCHEDULE_EVERY_S", 5),
        # A worker holds a lease on the match it plays, refreshed while it runs;
        # work whose lease lapsed (its worker died) is handed out again.
        "LEASE_S": _int(env, "LEASE_S", 30),
        # Queued work older than this is sent to the queue again (a lost message).
        "REQUEUE_AFTER_S": _int(env, "REQUEUE_AFTER_S", 600),
        # Times a match or a validation is started before it ends `failed` with the
        # last reason (unrated, its bots free again): a worker that dies mid-match,
        # an infrastructure error or a time-out each use one.
        "MAX_ATTEMPTS": _int(env, "MAX_ATTEMPTS", 3),
        # Crash triage: a version whose last N ladder matches all faulted is paused from
        # matchmaking until its owner resumes it (0: never pause).
        "PAUSE_AFTER_FAULTS": _int(env, "PAUSE_AFTER_FAULTS", 5),
        # Hard limit on one task; a match that takes longer is failed, unrated.
        "TASK_TIME_LIMIT_S": _int(env, "TASK_TIME_LIMIT_S", 1800),
        # Bot limits for ladder matches, as workers.limits.Limits names: "move_ms=500,bank_ms=5000".
        "BOT_LIMITS": _limits(env.get("BOT_LIMITS", "")),
        # Development only: run bots without bubblewrap (prints a warning).
        "UNSAFE_NO_SANDBOX": env.get("UNSAFE_NO_SANDBOX", "") in ("1", "true", "yes"),
    }


def _limits(raw: str) -> dict:
    """`name=value,name=value` into a dict of ints (checked later by Limits.from_dict)."""
    out = {}
    for part in filter(None, (p.strip() for p in raw.split(","))):
        name, sep, value = part.partition("=")
        if not sep or not re.fullmatch(r"[0-9]+", value.strip()):
            raise ValueError(f"BOT_LIMITS wants name=integer pairs, not {part!r}")
        out[name.strip()] = int(value)
    return out


# -- logs ---------------------------------------------------------------------------
# Attributes every LogRecord has; anything else came in through `extra`.
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    def __init__(self, component: str) -> None:
        super().__init__()
        self.component = component

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "component": self.component,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure_logging(component: str, level: int = logging.INFO) -> None:
    """Send every log record to stderr as JSON lines tagged with `component`."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter(component))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # Python warnings (Celery's as root, say) become JSON records too, not loose lines.
    logging.captureWarnings(True)
