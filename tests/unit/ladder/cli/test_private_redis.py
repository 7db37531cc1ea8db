"""`ladder run`'s private Redis keeps nothing on disk, so it never forks to save: the
memory overcommit warning redis-server prints at start is about saves it never makes."""

from __future__ import annotations

import subprocess

import click
import pytest

from ladder.cli import processes


def test_the_private_redis_never_saves(tmp_path, monkeypatch):
    started = []

    class Exited:
        returncode = 1

        def __init__(self, command, **_kwargs) -> None:
            started.append(command)

        def poll(self) -> int:
            return 1

    monkeypatch.setattr(subprocess, "Popen", Exited)
    monkeypatch.setattr(processes, "redis_server", lambda: "redis-server")
    with pytest.raises(click.ClickException):
        processes.start_redis(tmp_path, processes.free_port(0))
    command = started[0]
    assert command[command.index("--save") + 1] == ""
    assert command[command.index("--appendonly") + 1] == "no"
