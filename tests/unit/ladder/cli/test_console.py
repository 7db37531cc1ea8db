"""`ladder run`'s console: which log lines are alarms, following log files, the status
line, and the port probe that a restart within a minute must pass."""

from __future__ import annotations

import json
import socket
import time

import pytest

from ladder.cli.console import LogTail, alarming, status_line
from ladder.cli.processes import free_port
from ladder.services import matches
from tests.unit.ladder.conftest import make_active_bot, make_user
from tests.unit.ladder.helpers import play


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (json.dumps({"level": "info", "msg": "match played"}), None),
        (json.dumps({"level": "warning", "msg": "signals only"}), None),
        (json.dumps({"level": "error", "msg": "boom"}), "boom"),
        (
            json.dumps({"level": "critical", "msg": "x", "exc": "Traceback\n  ...\nKeyError: 'a'"}),
            "x (KeyError: 'a')",
        ),
        ("Traceback (most recent call last):", "Traceback (most recent call last):"),
        (
            "[2026-12-01 06:50:43: ERROR/MainProcess] lost",
            "[2026-12-01 06:50:43: ERROR/MainProcess] lost",
        ),
        ("worker: Warm shutdown (MainProcess)", None),
        ("", None),
    ],
)
def test_alarming_lines(line, shown):
    assert alarming(line) == shown


def test_log_tail_reads_only_new_complete_lines(tmp_path):
    old = tmp_path / "web.log"
    old.write_text(json.dumps({"level": "error", "msg": "before start"}) + "\n")
    tail = LogTail(tmp_path)
    tail.start()
    with old.open("a") as out:
        out.write(json.dumps({"level": "error", "msg": "after"}) + "\n")
        out.write('{"level": "error", "msg": "half')  # not yet a whole line
    (tmp_path / "worker.log").write_text("Traceback (most recent call last):\n")
    assert tail.alarms() == ["[web] after", "[worker] Traceback (most recent call last):"]
    with old.open("a") as out:
        out.write(' a line"}\n')
    assert tail.alarms() == ["[web] half a line"]
    assert tail.alarms() == []


def test_status_line_counts_played_queued_and_failed(session, config, alice, bob):
    carol = make_user(session, "carol")
    versions = [make_active_bot(session, config, u, name="x") for u in (alice, bob, carol)]
    play(session, config, versions, ["ok", "ok", "ok"])
    play(session, config, versions, ["ok", "ok", "ok"])
    queued = matches.create_match(session, config, "toyrace", [v.id for v in versions], ranked=True)
    failed = matches.create_match(session, config, "toyrace", [v.id for v in versions], ranked=True)
    matches.fail_match(session, failed.id, "test")
    line = status_line(session, 60)
    assert "2 matches played (+2 in the last 60 s)" in line
    assert "1 queued, 0 running · 1 failed (+1)" in line
    assert queued.id


def test_a_port_left_in_time_wait_is_free_again():
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    assert free_port(port) != port  # listening: busy
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = server.accept()
    accepted.close()  # the server side closes first: its end lingers in TIME_WAIT
    time.sleep(0.05)
    client.close()
    server.close()
    assert free_port(port) == port
