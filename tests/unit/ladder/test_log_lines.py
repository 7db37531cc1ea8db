"""Log lines for operators: each process's lines name it, carry one timestamp format
(ISO 8601, UTC) and a level, gunicorn's access lines too, and beat's ticks stay at DEBUG.

Each process's logging is set up by the module it loads (`ladder.web.wsgi`,
`ladder.jobs.worker_app`, `ladder.jobs.beat_app`, `ladder.jobs.tables_app`); each is
imported here in a fresh interpreter, as gunicorn and Celery import it, and its records
come out through the real formatter.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
from datetime import timedelta
from types import SimpleNamespace

import pytest
from gunicorn.config import Config

from ladder.cli.processes import beat_command, web_command, worker_command
from ladder.jobs.logs import QuietTicks
from ladder.web.gunicorn_log import JsonLogger

ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")

# What a process logs once its module is imported: a line of its own, Celery's lines
# about a tick (beat's sending, a worker's receipt and success) and about a match.
RECORDS = """
import importlib, logging, sys
importlib.import_module(sys.argv[1])
logging.getLogger("ladder.jobs.tasks").info("scheduled", extra={"new_matches": 2})
logging.getLogger("celery.beat").info(
    "Scheduler: Sending due task %s (%s)", "schedule-ladder", "ladder.schedule"
)
for name in ("ladder.schedule", "ladder.play_match"):
    logging.getLogger("celery.app.trace").info(
        "Task %(name)s[%(id)s] succeeded in %(runtime)ss: %(return_value)s",
        {"name": name, "id": "x", "runtime": 0.01, "return_value": None},
    )
logging.getLogger("celery.worker.strategy").info(
    "Task %(name)s[%(id)s] received", {"name": "ladder.end_abandoned_tables", "id": "y"}
)
logging.getLogger().setLevel(logging.DEBUG)
logging.getLogger("celery.beat").info("Scheduler: Sending due task a (ladder.schedule)")
"""


def _run(script: str, module: str, tmp_path) -> subprocess.CompletedProcess:
    """`script` in a fresh interpreter that is given `module` to import first."""
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "PYTHONWARNINGS"}}
    env.update(LADDER_VAR=str(tmp_path), DATABASE_URL=f"sqlite:///{tmp_path / 'l.sqlite3'}")
    done = subprocess.run(
        [sys.executable, "-c", script, module],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done


def _lines(module: str, tmp_path) -> list[dict]:
    return [json.loads(line) for line in _run(RECORDS, module, tmp_path).stderr.splitlines()]


@pytest.mark.parametrize(
    ("module", "component"),
    [
        ("ladder.web.wsgi", "web"),
        ("ladder.jobs.worker_app", "worker"),
        ("ladder.jobs.beat_app", "beat"),
        ("ladder.jobs.tables_app", "tables"),
    ],
)
def test_each_process_names_itself_with_a_time_and_a_level(module, component, tmp_path):
    lines = _lines(module, tmp_path)
    assert lines and all(line["component"] == component for line in lines)
    assert all(ISO.fullmatch(line["ts"]) and line["level"] for line in lines)
    assert lines[0]["msg"] == "scheduled" and lines[0]["new_matches"] == 2
    if component == "web":
        return  # the web loads no Celery worker or beat: Celery's lines are as logged
    messages = [(line["level"], line["msg"]) for line in lines]
    # The tick's lines are gone at INFO; a match's success stays; at DEBUG a tick shows.
    assert messages == [
        ("info", "scheduled"),
        ("info", "Task ladder.play_match[x] succeeded in 0.01s: None"),
        ("debug", "Scheduler: Sending due task a (ladder.schedule)"),
    ]


def test_the_commands_load_the_modules_that_name_them(tmp_path):
    assert "ladder.jobs.beat_app" in beat_command(tmp_path)
    assert "ladder.jobs.worker_app" in worker_command(2)
    assert "ladder.jobs.tables_app" in worker_command(2, tables=True)
    web = web_command("127.0.0.1:0", 1)
    assert web[web.index("--logger-class") + 1] == "ladder.web.gunicorn_log.JsonLogger"


def test_a_failed_tick_stays_an_error():
    record = logging.makeLogRecord(
        {"name": "celery.app.trace", "levelno": logging.ERROR, "levelname": "ERROR"}
    )
    record.msg, record.args = "Task %(name)s[%(id)s] raised", {"name": "ladder.schedule", "id": "z"}
    assert QuietTicks({"ladder.schedule"}).filter(record) and record.levelname == "ERROR"


def _gunicorn_logger() -> tuple[JsonLogger, io.StringIO, io.StringIO]:
    cfg = Config()
    cfg.set("accesslog", "-")
    cfg.set("errorlog", "-")
    logger = JsonLogger(cfg)
    access, errors = io.StringIO(), io.StringIO()
    for handler in logger.access_log.handlers:
        handler.setStream(access)
    for handler in logger.error_log.handlers:
        handler.setStream(errors)
    return logger, access, errors


def test_gunicorn_access_and_error_lines_are_the_apps_format():
    logger, access, errors = _gunicorn_logger()
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": "/games",
        "RAW_URI": "/games?x=1",
        "QUERY_STRING": "x=1",
        "SERVER_PROTOCOL": "HTTP/1.1",
    }
    resp = SimpleNamespace(status="200 OK", sent=512, headers=[])
    req = SimpleNamespace(headers=[("HOST", "example")])
    logger.access(resp, req, environ, timedelta(milliseconds=7))
    logger.info("Booting worker with pid: %s", 12)
    line = json.loads(access.getvalue())
    assert ISO.fullmatch(line.pop("ts"))
    assert line == {
        "level": "info",
        "component": "web",
        "logger": "gunicorn.access",
        "msg": "request",
        "method": "GET",
        "path": "/games",
        "status": 200,
        "ms": 7,
        "bytes": 512,
    }
    booted = json.loads(errors.getvalue())
    assert (booted["level"], booted["component"], booted["msg"]) == (
        "info",
        "web",
        "Booting worker with pid: 12",
    )
    assert ISO.fullmatch(booted["ts"])


# What Celery's worker says on SIGTERM or SIGINT, through the function it calls then.
SIGNAL_SAYING = """
import importlib, sys
importlib.import_module(sys.argv[1])
from celery.apps import worker
worker.safe_say("worker: Warm shutdown (MainProcess)", sys.__stdout__)
"""


@pytest.mark.parametrize(
    ("module", "component"),
    [("ladder.jobs.worker_app", "worker"), ("ladder.jobs.tables_app", "tables")],
)
def test_a_worker_stopped_by_a_signal_says_so_in_a_json_line(module, component, tmp_path):
    done = _run(SIGNAL_SAYING, module, tmp_path)
    assert done.stdout == ""
    (line,) = [json.loads(text) for text in done.stderr.splitlines()]
    assert line["msg"] == "worker: Warm shutdown (MainProcess)"
    assert line["component"] == component and line["level"] == "info"
    assert ISO.fullmatch(line["ts"])
