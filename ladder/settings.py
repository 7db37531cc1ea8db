"""Settings for the ladder, read once from the environment, and the log format.

`Settings` is one frozen object: each field is one setting, with its type, its
default and the environment variable it is read from (`Settings.from_env`).
The app keeps its Settings (`ladder.extensions.app_settings()`); services take
it as a parameter and read attributes. `app.config` gets the same values under
upper-case keys (`Settings.as_config`), which is what Flask and its extensions
read (SECRET_KEY, SESSION_COOKIE_SECURE) and how `create_app` takes overrides:
`create_app({"DATABASE_URL": ..., "LADDER_IN_FLIGHT": 2})`, the way tests point
the app at a temporary database and directories (`Settings.with_overrides`).

Logs are structured: one JSON object a line on stderr, from the web and the
workers alike (`configure_logging`, called first by each process's entry
point). `log.info("match played", extra={"match_id": 7})` becomes one line like
`{"ts": ..., "level": "info", "component": "worker", "msg": "match played", "match_id": 7}`.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import logging
import os
import re
import secrets
import sys
import time
import types
import typing
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ladder.ranking.ratings import OPEN_PLAY_TAU
from workers.info import HOUSE_OWNER

ROOT = Path(__file__).resolve().parent.parent


def default_var(root: Path) -> Path:
    """LADDER_VAR's default: var/ in a checkout (the folder holding pyproject.toml); for an
    installed package, whose folder is site-packages, var/ under the current folder."""
    return root / "var" if (root / "pyproject.toml").is_file() else Path.cwd() / "var"


VAR = default_var(ROOT)
ARTIFACT_STORES = ("database", "directory")  # the first is the default
RATINGS_SHOWN = ("online", "resolved")  # the first is the default (ladder/RATINGS.md)

T = TypeVar("T")


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


# -- reading one variable ---------------------------------------------------------------
# Each parser gets the variable's name and its value, never empty: an unset or empty
# variable leaves the setting at its default.
def _text(name: str, raw: str) -> str:
    return raw


def _optional_text(name: str, raw: str) -> str | None:
    return raw


def _int(name: str, raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"environment variable {name} must be an integer, not {raw!r}") from None


def _float(name: str, raw: str) -> float:
    return float(raw)


def _flag(name: str, raw: str) -> bool:
    return raw in ("1", "true", "yes")


def _choice(choices: tuple[str, ...]) -> Callable[[str, str], str]:
    """One of `choices`; anything else is an error at start."""

    def parse(name: str, raw: str) -> str:
        if raw not in choices:
            allowed = " or ".join(repr(c) for c in choices)
            raise ValueError(f"environment variable {name} must be {allowed}, not {raw!r}")
        return raw

    return parse


def _limits(name: str, raw: str) -> Mapping[str, int]:
    """`name=value,name=value` into a mapping of ints (checked later by Limits.from_dict)."""
    out = {}
    for part in filter(None, (p.strip() for p in raw.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not re.fullmatch(r"[0-9]+", value.strip()):
            raise ValueError(f"BOT_LIMITS wants name=integer pairs, not {part!r}")
        out[key.strip()] = int(value)
    return types.MappingProxyType(out)


@dataclass(frozen=True)
class Variable:
    """How a field is read from the environment: its variable, its parser, and for a
    default that lives under LADDER_VAR, how to make it from that folder."""

    name: str
    parse: Callable[[str, str], Any]
    under_var: Callable[[Path], Any] | None = None


def _setting(
    env: str,
    default: T,
    parse: Callable[[str, str], T],
    under_var: Callable[[Path], T] | None = None,
) -> T:
    # Typed as the default, so mypy checks default and parser against the field's type.
    return field(default=default, metadata={"env": Variable(env, parse, under_var)})


def _folder(env: str, name: str) -> str:
    """A folder setting whose default is `name` under LADDER_VAR (var/ in the checkout)."""
    return _setting(env, str(VAR / name), _text, lambda var: str(var / name))


def _database_url(var: Path) -> str:
    return f"sqlite:///{var / 'ladder.sqlite3'}"


@dataclass(frozen=True, slots=True)
class Settings:
    """Every setting of the ladder, with its default; `from_env` reads them.

    A field's key is its name in upper case (`LEASE_S` for `lease_s`), the name
    app.config and `with_overrides` use; `_setting` names the environment variable
    it is read from, the key but for COOKIE_SECURE. `Settings()` is the defaults
    for this checkout's var/, without a secret key (`from_env` makes one).
    """

    # Signs sessions and forms (default: one made once under LADDER_VAR).
    secret_key: str = field(
        default="", repr=False, metadata={"env": Variable("SECRET_KEY", _text, _secret_key)}
    )
    # The database (default: a SQLite file under LADDER_VAR).
    database_url: str = _setting("DATABASE_URL", _database_url(VAR), _text, _database_url)
    # Where uploaded bots and replays are kept: "database" (the blobs table, so a
    # worker host needs only DATABASE_URL and REDIS_URL) or "directory" (files
    # under ARTIFACT_DIR, which every host must then share). See ladder.artifacts.
    artifact_store: str = _setting("ARTIFACT_STORE", ARTIFACT_STORES[0], _choice(ARTIFACT_STORES))
    artifact_dir: str = _folder("ARTIFACT_DIR", "artifacts")
    # A worker's own copies of the bot files it played, by content hash, evicted
    # least recently used first past BOT_CACHE_BYTES.
    bot_cache_dir: str = _folder("BOT_CACHE_DIR", "bot-cache")
    bot_cache_bytes: int = _setting("BOT_CACHE_BYTES", 256 * 1024 * 1024, _int)
    # Legacy only: where replays and uploads were kept before the artifact store.
    # Nothing writes here any more; `ladder artifacts import` reads them once.
    replay_dir: str = _folder("REPLAY_DIR", "replays")
    upload_dir: str = _folder("UPLOAD_DIR", "uploads")
    # The starter bots the site offers for download, one folder per game.
    starter_dir: str = _setting("STARTER_DIR", str(ROOT / "bots" / "starter"), _text)
    # The bot author's kit the site offers at /download/: the wheel and sdist that
    # deploy/build-kit.sh (`make kit`) builds.
    kit_dir: str = _folder("KIT_DIR", "kit")
    # A bot file (.py or .zip as uploaded) and what a zip may unpack to.
    max_bot_bytes: int = _setting("MAX_BOT_BYTES", 512 * 1024, _int)
    max_unzipped_bytes: int = _setting("MAX_UNZIPPED_BYTES", 8 * 1024 * 1024, _int)
    max_zip_files: int = _setting("MAX_ZIP_FILES", 200, _int)
    # Uploads per user per rolling hour, web and API together, in two buckets: those
    # stored (UPLOADS_PER_HOUR) and those refused for what was sent: a syntax error, a
    # bad zip, an unknown game (REFUSED_UPLOADS_PER_HOUR, larger, so fixing a file by
    # trial does not use up the day's uploads, while a flood of bad files stops). A try
    # counts as refused until it is stored; when either bucket is full every upload is
    # refused (429) until the oldest try in it is an hour old. A file over
    # MAX_BOT_BYTES is refused before its content is read and counts in neither.
    uploads_per_hour: int = _setting("UPLOADS_PER_HOUR", 20, _int)
    refused_uploads_per_hour: int = _setting("REFUSED_UPLOADS_PER_HOUR", 60, _int)
    # Rows per page in lists and in the API.
    page_size: int = _setting("PAGE_SIZE", 50, _int)
    # Seconds a shared page (front page, leaderboards, match lists) may be served from a
    # web worker's memory before it is made again: how old a change may look (0: never).
    page_cache_s: int = _setting("PAGE_CACHE_S", 5, _int)
    # Seconds a shared page that can no longer change (a finished match, a stored
    # replay) is kept instead: how late its replay expiring may show; and the longest
    # a bot page is kept while its bot's revision stays put (PAGE_CACHE_S=0 turns all
    # of it off).
    page_cache_done_s: int = _setting("PAGE_CACHE_DONE_S", 300, _int)
    # Failed logins allowed per rolling window before further tries are refused (429).
    login_window_s: int = _setting("LOGIN_WINDOW_S", 900, _int)
    login_failures_per_account_and_address: int = _setting(
        "LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS", 5, _int
    )
    login_failures_per_address: int = _setting("LOGIN_FAILURES_PER_ADDRESS", 20, _int)
    login_failures_per_account: int = _setting("LOGIN_FAILURES_PER_ACCOUNT", 50, _int)
    # Accounts registered (tries with a valid name and password) per address per hour.
    registrations_per_hour: int = _setting("REGISTRATIONS_PER_HOUR", 10, _int)
    # Challenges a user may start per rolling hour, and have queued or running at once.
    challenges_per_hour: int = _setting("CHALLENGES_PER_HOUR", 25, _int)
    challenges_in_flight: int = _setting("CHALLENGES_IN_FLIGHT", 25, _int)
    # Live tables (ladder/TABLES.md): a person's clock, per move and for the whole match
    # (out of time, the fallback policy plays the seat out); tables a user may have not
    # yet over at once (beyond: 429); and the tables one table worker runs at once
    # (`ladder worker --tables`, one process each, started by `ladder run`).
    table_move_ms: int = _setting("TABLE_MOVE_MS", 300_000, _int)
    table_match_ms: int = _setting("TABLE_MATCH_MS", 3_600_000, _int)
    table_open_per_user: int = _setting("TABLE_OPEN_PER_USER", 3, _int)
    table_workers: int = _setting("TABLE_WORKERS", 4, _int)
    # The house account (`ladder house`); nobody may register this name in any case.
    house_user: str = _setting("HOUSE_USER", HOUSE_OWNER, _text)
    # Reverse proxies in front of the site whose X-Forwarded-* headers are trusted
    # (0: none). Set it behind nginx, or every login would share the proxy's address.
    proxy_hops: int = _setting("PROXY_HOPS", 0, _int)
    # Set COOKIE_SECURE=1 behind HTTPS so the session cookie is never sent in clear.
    session_cookie_secure: bool = _setting("COOKIE_SECURE", False, _flag)
    # TrueSkill dynamics factor for open play (tournaments use 0).
    open_play_tau: float = _setting("OPEN_PLAY_TAU", OPEN_PLAY_TAU, _float)
    # The broker. Without it nothing is queued: work waits in the database.
    redis_url: str | None = _setting("REDIS_URL", None, _optional_text)
    # Ladder matches the scheduler keeps queued or running, per game.
    ladder_in_flight: int = _setting("LADDER_IN_FLIGHT", 4, _int)
    # Candidate versions' tests (`services.version_tests`) take at most this share of the
    # workers' play time while ladder matches wait (over the last 10 minutes), and have at
    # most TEST_SHARE x LADDER_IN_FLIGHT x games matches in flight (at least 1).
    test_share: float = _setting("TEST_SHARE", 0.25, _float)
    # A candidate's test ends inconclusive after this many sets without a verdict.
    test_max_sets: int = _setting("TEST_MAX_SETS", 100, _int)
    # Seconds between scheduler runs (Celery beat).
    schedule_every_s: int = _setting("SCHEDULE_EVERY_S", 5, _int)
    # A worker holds a lease on the match it plays, refreshed while it runs;
    # work whose lease lapsed (its worker died) is handed out again.
    lease_s: int = _setting("LEASE_S", 30, _int)
    # Seconds a sent message is remembered (`jobs.marks`): queued work whose message
    # is not is sent again. A message lost with a Redis restarted empty, or taken by a
    # worker that died before it started, is forgotten at once; this bounds the rest.
    requeue_after_s: int = _setting("REQUEUE_AFTER_S", 300, _int)
    # Times a match or a validation is started before it ends `failed` with the
    # last reason (unrated, its bots free again): a worker that dies mid-match,
    # an infrastructure error or a time-out each use one.
    max_attempts: int = _setting("MAX_ATTEMPTS", 3, _int)
    # Crash triage: a version whose last N ladder matches all faulted is paused from
    # matchmaking until its owner resumes it (0: never pause).
    pause_after_faults: int = _setting("PAUSE_AFTER_FAULTS", 5, _int)
    # Days a ladder match's replay is kept after it finished; then `ladder replays prune`
    # (and beat, daily) drops it. Tournament and challenge matches keep theirs for good.
    replay_keep_days: int = _setting("REPLAY_KEEP_DAYS", 30, _int)
    # The rating boards rank by unless asked otherwise: "online" (TrueSkill, moved by
    # each result as it is recorded) or "resolved" (TrueSkill Through Time over the
    # history, re-solved every RESOLVE_EVERY_S, a day behind at worst). ladder/RATINGS.md.
    rating_shown: str = _setting("RATING_SHOWN", RATINGS_SHOWN[0], _choice(RATINGS_SHOWN))
    # Seconds between re-solves of every game's history (Celery beat; 0: never).
    resolve_every_s: int = _setting("RESOLVE_EVERY_S", 86_400, _int)
    # A re-solve takes at most the latest this many rated matches of a game, seeded with
    # the online ratings at the window's start (its cost grows with the matches solved).
    resolve_window: int = _setting("RESOLVE_WINDOW", 20_000, _int)
    # Hard limit on one task; a match that takes longer is failed, unrated.
    task_time_limit_s: int = _setting("TASK_TIME_LIMIT_S", 1800, _int)
    # Bot limits for ladder matches, as workers.limits.Limits names: "move_ms=500,bank_ms=5000".
    bot_limits: Mapping[str, int] = field(
        default_factory=lambda: types.MappingProxyType({}),
        metadata={"env": Variable("BOT_LIMITS", _limits)},
    )
    # Development only: run bots without bubblewrap (prints a warning).
    unsafe_no_sandbox: bool = _setting("UNSAFE_NO_SANDBOX", False, _flag)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The ladder's settings from `env` (default: os.environ).

        An unset or empty variable leaves its setting at the default; a value that
        does not parse is a ValueError naming the variable.
        """
        env = dict(os.environ if env is None else env)
        var = Path(env.get("LADDER_VAR", VAR))
        read = {}
        for f in dataclasses.fields(cls):
            value = _read(f, env, var)
            if value is not dataclasses.MISSING:
                read[f.name] = value
        return cls(**read)

    def with_overrides(
        self, overrides: Mapping[str, object], others: Collection[str] = ()
    ) -> Settings:
        """A copy with the settings `overrides` names by their upper-case keys.

        Keys that are not settings (TESTING, WTF_CSRF_ENABLED, SERVER_NAME) are not
        ours and are skipped. A key that nearly spells a setting's key, or that is a
        setting's environment variable rather than its key (COOKIE_SECURE), is a
        ValueError unless `others` knows it (the app passes Flask's own keys); a
        value of the wrong type for its setting is a TypeError.
        """
        changes: dict[str, Any] = {}
        for key, value in overrides.items():
            name = key.lower()
            if key in KEYS:
                if not _fits(value, _HINTS[name]):
                    wanted = getattr(_HINTS[name], "__name__", _HINTS[name])
                    raise TypeError(f"setting {key} wants {wanted}, not {value!r}")
                if isinstance(value, Mapping):
                    value = types.MappingProxyType(dict(value))
                changes[name] = value
            elif key not in others:
                _refuse_a_misspelt_key(key)
        return dataclasses.replace(self, **changes)

    def as_config(self) -> dict[str, Any]:
        """Every setting under its upper-case key, as app.config holds them."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name.upper()] = dict(value) if isinstance(value, Mapping) else value
        return out

    @classmethod
    def variables(cls) -> dict[str, str]:
        """Environment variable -> the attribute it sets, for every field."""
        return {f.metadata["env"].name: f.name for f in dataclasses.fields(cls)}


_HINTS = typing.get_type_hints(Settings)
# The upper-case keys of the settings, as in app.config and `create_app`'s overrides.
KEYS = frozenset(name.upper() for name in _HINTS)


def _read(f: dataclasses.Field, env: Mapping[str, str], var: Path) -> Any:
    """The field's value from `env`, or MISSING for the class default."""
    variable: Variable = f.metadata["env"]
    raw = env.get(variable.name)
    if raw:
        return variable.parse(variable.name, raw)
    if variable.under_var is not None:
        return variable.under_var(var)
    return dataclasses.MISSING


def _fits(value: object, hint: Any) -> bool:
    """Whether `value` may stand in a field typed `hint` (an int for a float, too)."""
    if typing.get_origin(hint) is types.UnionType:
        return any(_fits(value, arm) for arm in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if isinstance(value, bool) and hint is not bool:
        return False
    if hint is float:
        return isinstance(value, int | float)
    return isinstance(value, typing.get_origin(hint) or hint)


def _refuse_a_misspelt_key(key: str) -> None:
    variables = Settings.variables()
    if key in variables:
        raise ValueError(
            f"{key} is an environment variable: the setting is {variables[key].upper()}"
        )
    close = difflib.get_close_matches(key.upper(), sorted(KEYS), n=1, cutoff=0.8)
    if close:
        raise ValueError(f"unknown setting {key}: did you mean {close[0]}?")


def database_url(env: Mapping[str, str] | None = None) -> str:
    """DATABASE_URL, else a SQLite file under LADDER_VAR (var/ in the checkout)."""
    env = os.environ if env is None else env
    var = Path(env.get("LADDER_VAR", VAR))
    return _read(_FIELDS["database_url"], env, var)


_FIELDS = {f.name: f for f in dataclasses.fields(Settings)}


# -- logs ---------------------------------------------------------------------------
# Attributes every LogRecord has; anything else came in through `extra`.
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """One JSON object a line, the same in every process: `ts` (ISO 8601, UTC, to the
    millisecond), `level`, `component` (which process), `logger`, `msg`, then the
    record's own fields, so an operator can merge and filter every process's log."""

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
