"""`ladder run` as an operator sees it: a quiet console, logs in files, a clean Ctrl-C or
hangup, and a restart on the same port at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ladder.cli.processes import free_port
from tests.integration.conftest import needs_bwrap

pytestmark = [pytest.mark.integration, needs_bwrap]

LADDER = str(Path(sys.executable).parent / "ladder")
# What Celery itself prints at a warm shutdown, outside any log format.
CELERY_SAYS = {"worker: Warm shutdown (MainProcess)"}
LAST_BANNER_LINE = "Ctrl-C stops everything"


class Console:
    """A running `ladder run` whose console lines are collected as they come; with
    `close_after`, the console goes away (its pipe is closed) once a line holds it."""

    def __init__(self, tmp_path: Path, port: int, close_after: str | None = None) -> None:
        home = tmp_path / "home"
        home.mkdir(exist_ok=True)
        env = {
            **os.environ,
            "LADDER_VAR": str(tmp_path / "var"),
            "HOME": str(home),
            "LADDER_REDIS_PORT": str(free_port(0)),
            "SCHEDULE_EVERY_S": "1",
        }
        env.pop("REDIS_URL", None)
        env.pop("DATABASE_URL", None)
        self.proc = subprocess.Popen(
            [LADDER, "run", "--port", str(port), "--status-every", "3", "--concurrency", "1"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        self.lines: list[str] = []
        self.close_after = close_after
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if self.close_after is not None and self.close_after in line:
                self.proc.stdout.close()  # every later line meets a broken pipe
                return

    def wait_for(self, text: str, timeout_s: float) -> int:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for i, line in enumerate(self.lines):
                if text in line:
                    return i
            assert self.proc.poll() is None, "\n".join(self.lines)
            time.sleep(0.2)
        raise AssertionError(f"no {text!r} in:\n" + "\n".join(self.lines))

    def interrupt(self, signo: int = signal.SIGINT) -> int:
        self.proc.send_signal(signo)
        code = self.proc.wait(60)
        self.reader.join(5)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(5)
        self.proc.stdout.close()


def test_a_quiet_console_logs_in_files_and_a_clean_stop_and_restart(tmp_path):
    port = free_port(0)
    first = Console(tmp_path, port)
    try:
        banner = first.wait_for("Tradewinds is running at", 180)
        first.wait_for("matches played", 60)
        logs = tmp_path / "var" / "log"
        assert b' ready."' in (logs / "worker.log").read_bytes()  # up before the banner
        assert first.interrupt() == 0
    finally:
        first.kill()
    text = "\n".join(first.lines)
    assert f"http://127.0.0.1:{port}/" in first.lines[banner]
    assert "demo account: demo   password: demo-" in text
    assert f"logs: {logs}/" in text
    assert "Traceback" not in text and "ERROR" not in text, text
    assert first.lines[-1] == "stopped"
    for name in ("web", "worker", "beat"):
        lines = (logs / f"{name}.log").read_text().splitlines()
        assert lines, name
        loose = [x for x in lines if x.strip() and x not in CELERY_SAYS and not _is_json(x)]
        assert loose == [], f"{name}.log has lines that are not JSON: {loose[:3]}"
        levels = {json.loads(x).get("level") for x in lines if _is_json(x)}
        assert not levels & {"error", "critical"}, name
    assert (logs / "redis.log").exists()
    assert not (tmp_path / "home" / ".gunicorn").exists()
    # At once, on the same port: connections just closed linger in TIME_WAIT. This time
    # the terminal closes once the banner is out: the service carries on, and the hangup
    # stops it all (Ctrl-C on a console gone is the test below).
    again = Console(tmp_path, port, close_after=LAST_BANNER_LINE)
    try:
        again.wait_for(LAST_BANNER_LINE, 180)
        _outlives_its_console(again, tmp_path)
        code = again.interrupt(signal.SIGHUP)
    finally:
        again.kill()
    assert "is in use" not in "\n".join(again.lines)
    assert code == 0
    assert _left_running(tmp_path / "var") == []


def _is_json(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _left_running(var: Path) -> list[str]:
    """Processes (pid and command) that `ladder run` started with this LADDER_VAR."""
    mark = f"LADDER_VAR={var}".encode()
    left = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            if mark in (proc / "environ").read_bytes().split(b"\0"):
                command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                left.append(f"{proc.name}: {command[:120]}")
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return left


def _outlives_its_console(run: Console, tmp_path: Path) -> None:
    run.reader.join(5)
    assert run.proc.stdout.closed
    assert _left_running(tmp_path / "var"), "the test cannot see the service's processes"
    time.sleep(4)  # a status line (every 3 s) is due meanwhile: the service carries on
    assert run.proc.poll() is None, "ladder run died when its console went"


def test_a_console_that_went_away_still_stops_everything_on_ctrl_c(tmp_path):
    """`make run | tee log`, then Ctrl-C, ends tee too: the console is gone when the
    stop prints, and nothing may be left (a closed terminal's hangup: the test above)."""
    port = free_port(0)
    run = Console(tmp_path, port, close_after=LAST_BANNER_LINE)
    try:
        run.wait_for(LAST_BANNER_LINE, 180)
        _outlives_its_console(run, tmp_path)
        code = run.interrupt(signal.SIGINT)
    finally:
        run.kill()
    assert code == 0
    assert _left_running(tmp_path / "var") == []
    assert free_port(port) == port
