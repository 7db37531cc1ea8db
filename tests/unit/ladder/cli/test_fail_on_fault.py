"""`--fail-on-fault` on the three local runners: exit 1 when a bot given as a path faulted.

The matches are faked below the commands (no sandbox): a seat whose bot file is named
`crashes.py` crashes, every other seat plays ok.
"""

from __future__ import annotations

import importlib
import json

import pytest
from click.testing import CliRunner

from ladder.cli import main
from ladder.cli.options import FAULT_EXIT
from ladder.tournaments.model import Result
from workers import Outcome

CRASHES = "crashes.py"


def statuses(seats) -> list[str]:
    return ["crash" if source.path.name == CRASHES else "ok" for source in seats]


def ranks(status: list[str]) -> list[int]:
    """Ok seats share rank 1, faulted seats rank below them."""
    return [1 if s == "ok" else 1 + status.count("ok") for s in status]


def fake_match(game, seating, seed, limits=None, unsafe=False) -> Outcome:
    status = statuses(seating)
    return Outcome(
        game=game,
        seed=seed,
        players=len(seating),
        options={},
        statuses=status,
        scores=[0.0] * len(seating),
        ranks=ranks(status),
        errors=[None if s == "ok" else "exited with code 1" for s in status],
        stderr=["" for _ in seating],
        replay={"seats": [source.label for source in seating], "seed": seed},
    )


def fake_play_one(job) -> Result:
    _, seats, _, _ = job
    status = statuses(seats)
    return Result(ranks(status), [0.0] * len(seats), status)


@pytest.fixture
def bots(tmp_path, monkeypatch):
    """A crashing and a sound bot file in the working directory, and matches faked."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / CRASHES).write_text("def act(view, legal):\n    raise RuntimeError\n")
    (tmp_path / "sound.py").write_text("def act(view, legal):\n    return legal[0]\n")
    # The module, not the `play` command that shadows it as an attribute of ladder.cli.
    monkeypatch.setattr(importlib.import_module("ladder.cli.play"), "run_match", fake_match)
    monkeypatch.setattr("ladder.tournaments.local.play_one", fake_play_one)
    monkeypatch.setattr("ladder.tournaments.local_sprt.play_one", fake_play_one)


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.usefixtures("bots")
def test_play_exits_1_only_with_the_flag_and_a_faulted_path_bot():
    seats = ["meuterer", CRASHES, "sound.py", "meuterer/random"]
    assert run("play", *seats, "--json").exit_code == 0  # a fault is a result by default
    done = run("play", *seats, "--json", "--fail-on-fault")
    assert done.exit_code == FAULT_EXIT == 1
    assert f"a seat faulted for {CRASHES}" in done.output
    line = json.loads(done.output.splitlines()[0])  # the --json line still comes first
    assert line["bots"] == seats[1:] and line["statuses"][0] == "crash"
    sound = ["meuterer", "sound.py", "meuterer/random", "meuterer/random"]
    assert run("play", *sound, "--fail-on-fault", "--games", "3").exit_code == 0


@pytest.mark.usefixtures("bots")
def test_tournament_run_exits_1_with_the_flag_when_a_path_bot_faulted():
    args = ["tournament", "run", "meuterer", CRASHES, "sound.py", "meuterer/random"]
    args += ["--format", "round-robin", "--table-size", "3", "--json"]
    assert run(*args).exit_code == 0
    done = run(*args, "--fail-on-fault")
    assert done.exit_code == 1 and CRASHES in done.output.splitlines()[-1]
    sound = ["tournament", "run", "meuterer", "sound.py", "meuterer/random", "meuterer/greedy"]
    assert run(*sound, "--format", "swiss", "--table-size", "3", "--fail-on-fault").exit_code == 0


@pytest.mark.usefixtures("bots")
def test_ladder_test_exits_1_with_the_flag_when_new_or_old_faulted():
    args = ["test", "meuterer", CRASHES, "sound.py", "--opponents", "meuterer/random"]
    args += ["--table-size", "3", "--max-sets", "4", "--json"]
    assert run(*args).exit_code == 0  # whatever the verdict
    assert run(*args, "--fail-on-fault").exit_code == 1
    fine = ["test", "meuterer", "sound.py", "meuterer/random", "--table-size", "3"]
    assert run(*fine, "--max-sets", "4", "--fail-on-fault").exit_code == 0


@pytest.mark.parametrize("command", [["play"], ["tournament", "run"], ["test"]])
def test_the_flag_and_its_exit_code_are_in_the_help(command):
    shown = run(*command, "--help").output
    assert "--fail-on-fault" in shown and "exit 1 when a seat" in shown
