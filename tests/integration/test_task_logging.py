"""Every Celery task's code path, run for real, logs without a logging error.

A log call whose `extra` names a LogRecord attribute raises KeyError inside
the task (the schedule task once failed every 5 s for `created`); a formatter
that cannot format a record only prints "--- Logging error ---" and goes on.
Here each task runs in-process against a real Redis, database and sandbox,
under the JSON handler the processes use, made strict so either kind fails.
"""

from __future__ import annotations

import json
import logging

import pytest
from sqlalchemy import select

from ladder import create_app, settings
from ladder.cli.db import upgrade
from ladder.cli.processes import free_port, start_redis, stop
from ladder.extensions import app_settings, db
from ladder.jobs import tasks
from ladder.models import BotVersion, Match
from ladder.services import bots, matches
from ladder.services.house import seed_house_bots
from tests.integration.conftest import needs_bwrap

pytestmark = [pytest.mark.integration, needs_bwrap]

BOT = b"def act(view, legal):\n    return legal[-1]\n"


class StrictJson(logging.Handler):
    """The processes' JSON format; a record it cannot format fails the test."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(settings.JsonFormatter("test"))
        self.lines: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.lines.append(json.loads(self.format(record)))
        except Exception:  # as logging.StreamHandler does: hand it to handleError
            self.handleError(record)

    def handleError(self, record: logging.LogRecord) -> None:
        raise AssertionError(f"logging error on {record.msg!r}")


@pytest.fixture
def app(tmp_path):
    port = free_port(0)
    redis = start_redis(tmp_path, port)
    url = f"sqlite:///{tmp_path / 'ladder.sqlite3'}"
    upgrade(url)
    values = settings.Settings.from_env({"LADDER_VAR": str(tmp_path), "SECRET_KEY": "t"})
    values = values.as_config()
    values.update(DATABASE_URL=url, REDIS_URL=f"redis://127.0.0.1:{port}/0", LADDER_IN_FLIGHT=1)
    try:
        yield create_app(values)
    finally:
        stop({"redis": redis})


@pytest.fixture
def strict_log():
    handler = StrictJson()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)


def test_every_task_logs_cleanly(app, strict_log):
    with app.app_context():
        session, config = db.session, app_settings(app)
        seed_house_bots(session, config, "a-demo-password")
        user = session.scalar(select(BotVersion)).bot.owner
        version = bots.upload_version(session, config, user, "manila", "mine", "bot.py", BOT)
        assert tasks.validate_version.run(version.id) == "active"
        assert tasks.schedule.run()["created"]  # a ladder match for every game
        queued = session.scalars(select(Match.id).where(Match.state == "queued")).all()
        assert tasks.play_match.run(queued[0]) == "finished"
        assert tasks.play_tournament_match.run(queued[1]) == "finished"
        opponents = [v.id for v in session.scalars(select(BotVersion)) if v.bot.game == "manila"][
            :2
        ]
        challenge = matches.create_challenge(session, config, user, version.id, opponents)
        assert tasks.play_challenge_match.run(challenge.id) == "finished"
        tasks.schedule.run()
    said = {line["msg"] for line in strict_log.lines}
    assert {"validated", "match played", "scheduled"} <= said
    assert all(line["component"] == "test" for line in strict_log.lines)


def test_the_strict_handler_fails_on_a_bad_record(strict_log):
    with pytest.raises(AssertionError, match="logging error"):
        logging.getLogger("x").info("%d", "not a number")
    with pytest.raises(KeyError):
        logging.getLogger("x").info("clash", extra={"created": 1})
