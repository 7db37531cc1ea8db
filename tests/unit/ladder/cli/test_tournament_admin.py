"""`ladder tournament create|open|add|start|status|cancel` against a real SQLite database."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ladder.cli import main
from ladder.services import accounts
from tests.unit.ladder.conftest import make_active_bot, make_user


@pytest.fixture
def env(monkeypatch, config, session):
    for key in ("DATABASE_URL", "REPLAY_DIR", "UPLOAD_DIR", "SECRET_KEY"):
        monkeypatch.setenv(key, str(config[key]))
    monkeypatch.setenv("LADDER_VAR", str(config["REPLAY_DIR"]).rsplit("/", 1)[0])
    monkeypatch.delenv("REDIS_URL", raising=False)
    make_user(session, "sam")
    accounts.set_staff(session, "sam", True)
    session.commit()
    demo = make_user(session, "demo")
    return [make_active_bot(session, config, demo, name=f"h{i}").id for i in range(3)]


def run(*args) -> str:
    result = CliRunner().invoke(main, ["tournament", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_operator_commands(env):
    assert "created" in run("create", "Night cup", "toyrace", "--table-size", "3", "--by", "sam")
    run("open", "1", "--by", "sam")
    run("add", "1", *map(str, env), "--by", "sam")
    run("start", "1", "--by", "sam")
    status = json.loads(run("status", "1", "--json"))
    assert status["state"] == "running" and status["entrants"] == 3
    assert status["match_counts"]["queued"] == status["match_counts"]["total"] > 0
    assert [s["rank"] for s in status["standings"]] == [1, 2, 3]
    assert "running" in run("status", "1")
    run("cancel", "1", "--by", "sam")
    assert json.loads(run("status", "1", "--json"))["state"] == "cancelled"


def test_refusals_are_clean_errors(env):
    result = CliRunner().invoke(main, ["tournament", "create", "X", "toyrace", "--by", "nobody"])
    assert result.exit_code == 1 and "not a staff account" in result.output
    result = CliRunner().invoke(main, ["tournament", "start", "9", "--by", "sam"])
    assert result.exit_code == 1 and "no tournament 9" in result.output
