"""A live ladder for integration tests: a real Redis, real Celery workers and beat.

Processes are started with the same commands `ladder run` uses, in their own
process groups so a test can SIGKILL a worker whole, and every one is stopped
at the end of the test. Below the ladder: bots and matches set up on it by hand.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from ladder import create_app
from ladder.broker import announce
from ladder.cli import db as schema
from ladder.cli.processes import beat_command, free_port, start_redis, stop, worker_command
from ladder.extensions import app_settings, make_engine
from ladder.models import Bot, BotVersion, Match
from ladder.services import accounts, bots, matches
from ladder.services.house import seed_house_bots

TEARDOWN_WAIT_S = 1  # for running matches to end when a test's ladder is closed


class LiveLadder:
    """Redis, a migrated database and the Celery processes of one test.

    The database is a SQLite file under `var`, or the (migrated) one at
    `database_url`, a PostgreSQL database the workers and beat reach through
    DATABASE_URL in their environment, as on a real worker host.
    """

    def __init__(self, var: Path, database_url: str | None = None, **settings: str) -> None:
        self.var = var
        self.procs: dict[str, subprocess.Popen] = {}
        self.logs: list = []
        port = free_port(0)
        self.procs["redis"] = start_redis(var, port)
        self.database_url = database_url or f"sqlite:///{var / 'ladder.sqlite3'}"
        self.env = {
            **os.environ,
            "DATABASE_URL": self.database_url,
            "LADDER_VAR": str(var),
            "REDIS_URL": f"redis://127.0.0.1:{port}/0",
            "SECRET_KEY": "integration-secret",
            "LEASE_S": "3",
            "SCHEDULE_EVERY_S": "1",
            "PAGE_CACHE_S": "0",  # pages show what a test just did
            **settings,
        }
        schema.upgrade(self.database_url)
        overrides = {k: v for k, v in self.env.items() if k in ("REDIS_URL",)}
        self.app = create_app(
            {
                **overrides,
                "LADDER_VAR": str(var),
                "DATABASE_URL": self.database_url,
                "REPLAY_DIR": str(var / "replays"),
                "UPLOAD_DIR": str(var / "uploads"),
                "SECRET_KEY": "integration-secret",
                "WTF_CSRF_ENABLED": False,
                "PAGE_CACHE_S": 0,
            }
        )
        self.engine = make_engine(self.database_url)

    def session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def start(self, name: str, command: list[str]) -> subprocess.Popen:
        log = open(self.var / f"{name}.log", "ab")  # noqa: SIM115 - closed in close()
        self.logs.append(log)
        proc = subprocess.Popen(
            command, env=self.env, stdout=log, stderr=log, start_new_session=True
        )
        self.procs[name] = proc
        return proc

    def start_worker(self, name: str = "worker", concurrency: int = 1) -> subprocess.Popen:
        proc = self.start(name, [*worker_command(concurrency), "--hostname", f"{name}@%h"])
        self.wait_for_log(name, " ready.")
        return proc

    def start_beat(self) -> subprocess.Popen:
        return self.start("beat", beat_command(self.var))

    def kill(self, name: str) -> None:
        """SIGKILL a process and everything in its group, as a crash would."""
        proc = self.procs.pop(name)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def log(self, name: str) -> str:
        path = self.var / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def wait_for_log(self, name: str, text: str, timeout_s: float = 30) -> None:
        wait_until(lambda: text in self.log(name), timeout_s, f"{name} to log {text!r}")

    def close(self) -> None:
        # A test is over: its running matches need not end (nothing reads them now).
        stop(self.procs, wait_s=TEARDOWN_WAIT_S)
        for log in self.logs:
            log.close()
        self.engine.dispose()
        self.app.extensions["ladder.db"].kw["bind"].dispose()


def wait_until(check: Callable[[], object], timeout_s: float, what: str):
    """Poll `check` until it returns something true; fail the test after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


GOOD_BOT = b"""
def act(view, legal):
    # Prefer passing in the auction, else the first choice.
    for action in legal:
        if action["type"] == "pass":
            return action
    return legal[0]
"""


def active_version(live, user_name, name, source, game="manila"):
    """Register `user_name` and give them an active bot `name` (validated by hand, not in
    the sandbox); returns the version's id."""
    with live.app.app_context():
        from ladder.extensions import db

        user = accounts.register(db.session, user_name, "correct horse")
        db.session.commit()
        with announce.quiet(db.session):  # set up by hand: not sent to validation
            version = bots.upload_version(
                db.session, app_settings(live.app), user, game, name, "bot.py", source
            )
        bots.start_validation(db.session, version.id)
        bots.finish_validation(db.session, version.id, True, "set up by the test")
        db.session.commit()
        return version.id


def house_versions(live, game):
    """Seed the house bots; the ids of every active version of `game`, oldest first."""
    with live.app.app_context():
        from ladder.extensions import db

        seed_house_bots(db.session, app_settings(live.app))  # announces nothing
    with live.session() as s:
        return s.scalars(
            select(BotVersion.id)
            .join(Bot, BotVersion.bot_id == Bot.id)
            .where(Bot.game == game, BotVersion.state == "active")
            .order_by(BotVersion.id)
        ).all()


def match_state(live, match_id):
    """A match's state as the database has it now."""
    with live.session() as s:
        return s.get(Match, match_id).state


def create_ranked(live, game, version_ids, seed=None):
    """Queue a ranked match of these versions (announced to the workers); returns its id."""
    with live.app.app_context():
        from ladder.extensions import db

        match = matches.create_match(
            db.session, app_settings(live.app), game, version_ids, ranked=True, seed=seed
        )
        db.session.commit()
        return match.id
