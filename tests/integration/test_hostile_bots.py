"""Hostile bots: every attack fails, and the match still finishes with the right statuses."""

from __future__ import annotations

import json
import os
import socket
import threading
import uuid
from pathlib import Path

import pytest

import engine
from tests.integration.conftest import live_processes_with, needs_bwrap, sandbox_processes
from workers.limits import Limits
from workers.match import run_match
from workers.sandbox import BLAS_THREADS

pytestmark = [pytest.mark.integration, needs_bwrap]

ROOT = Path(__file__).resolve().parents[2]
FAST = Limits(move_ms=300, bank_ms=700)  # quick timeouts, yet slack for a busy machine


def play(game: str, bot: str, others: list[str] | None = None, limits: Limits = FAST) -> dict:
    """Seat the hostile bot first among house random bots; check what must hold whatever it did."""
    players = engine.get_game(game).min_players
    others = others or [f"{game}/random"] * (players - 1)
    out = run_match(game, [bot, *others], seed=11, limits=limits).to_dict()
    assert out["replay"]["result"] is not None, "the match must be played to its end"
    assert out["statuses"][1:] == ["ok"] * (players - 1), out["errors"]
    rebuilt = engine.replay(out["replay"])
    assert rebuilt.result()["scores"] == out["scores"]
    if out["statuses"][0] != "ok":
        assert out["ranks"][0] > max(out["ranks"][1:])
        assert out["errors"][0]
    assert sandbox_processes() == [], "every process of the match is gone at its end"
    return out


@pytest.mark.parametrize(
    ("name", "status", "reason"),
    [
        ("infinite_loop", "timeout", "no move within"),
        ("sleep_forever", "timeout", "no move within"),
        ("memory_bomb", "killed", "memory limit"),
        ("flood_stdout", "invalid", "longer than"),
        ("flood_stderr", "killed", "stderr"),
        ("garbage", "invalid", "unparsable"),
        ("not_an_action", "invalid", "JSON object"),
        ("illegal_action", "illegal", "not a legal action"),
        ("exit_midgame", "crash", "exited with code 0"),
    ],
)
def test_attack_ends_in_its_status(game, hostile, name, status, reason):
    out = play(game, hostile(name))
    assert out["statuses"][0] == status
    assert reason in out["errors"][0]


def test_huge_file_is_capped_and_nothing_outside_tmp_is_writable(game, hostile, tmp_path):
    host_dir = tmp_path / "host"
    host_dir.mkdir()
    out = play(game, hostile("huge_file", HOST_DIR=str(host_dir)))
    assert out["statuses"][0] == "killed"
    assert "file size limit" in out["errors"][0]
    assert "WROTE" not in out["stderr"][0]
    assert out["stderr"][0].count("DENIED") == 7
    assert list(host_dir.iterdir()) == []


def test_fork_bomb_is_capped_and_its_children_die(game, hostile):
    out = play(game, hostile("fork_bomb"))
    assert out["statuses"][0] == "ok"
    forks = [int(line.split()[1]) for line in out["stderr"][0].splitlines() if "FORKED" in line]
    assert forks, out["stderr"][0]
    assert max(forks) < Limits().processes


def test_killing_the_parent_or_the_runner_fails(game, hostile):
    out = play(game, hostile("kill_parent", RUNNER_PID=str(os.getpid())))
    assert out["statuses"][0] == "ok"
    assert f"REFUSED {os.getpid()}" in out["stderr"][0]


def test_host_files_and_other_bots_code_are_unreadable(game, hostile, tmp_path):
    database = tmp_path / "ladder.db"
    database.write_text("SECRET ROWS")
    other = tmp_path / "other_bot.py"
    other.write_text((ROOT / "bots" / "house" / "random.py").read_text())
    targets = [
        "/etc/shadow",
        "/etc/passwd",
        str(database),
        str(ROOT / "engine" / "core.py"),
        str(ROOT / "pyproject.toml"),
        str(other),
    ]
    bot = hostile("read_files", TARGETS=json.dumps(targets).replace('"', '\\"'))
    players = engine.get_game(game).min_players
    out = play(game, bot, others=[str(other)] * (players - 1))
    assert out["statuses"][0] == "ok"
    for target in targets:
        assert f"DENIED {target}" in out["stderr"][0]
    assert "READ " not in out["stderr"][0]


def test_no_network_not_even_the_hosts_loopback(game, hostile):
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    accepted = []
    done = threading.Event()

    def serve():
        while not done.is_set():
            try:
                accepted.append(server.accept())
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        port = server.getsockname()[1]
        out = play(game, hostile("network", PORT=str(port)))
    finally:
        done.set()
        thread.join()
        server.close()
    assert accepted == []
    assert out["statuses"][0] == "ok"
    assert out["stderr"][0].count("BLOCKED") == 3
    assert "CONNECTED" not in out["stderr"][0]


def test_environment_is_empty_of_secrets(game, hostile, monkeypatch):
    monkeypatch.setenv("TRADEWINDS_SECRET_KEY", "s3cr3t-value")
    out = play(game, hostile("env_secrets"))
    assert out["statuses"][0] == "ok"
    env = json.loads(out["stderr"][0].split("ENV ", 1)[1].splitlines()[0])
    assert "s3cr3t-value" not in out["stderr"][0]
    assert set(env) <= {"HOME", "PATH", "LANG", "PWD", *BLAS_THREADS}


def test_background_processes_do_not_outlive_the_match(game, hostile):
    marker = f"tw-outlive-{uuid.uuid4().hex}"
    out = play(game, hostile("outlive", MARKER=marker))
    assert out["statuses"][0] == "ok"
    assert live_processes_with(marker) == []


def test_late_misbehaviour_is_caught_and_the_seat_played_out(game, hostile):
    out = play(game, hostile("late_misbehave"))
    assert out["statuses"][0] == "illegal"
    mine = [
        ms
        for (seat, _), ms in zip(
            out["replay"]["actions"], out["replay"]["decision_ms"], strict=True
        )
        if seat == 0
    ]
    assert all(ms is not None for ms in mine[:5])
    assert all(ms is None for ms in mine[5:])
    assert len(mine) > 5
