"""`ladder play` end to end: the real command, the real sandbox, the fixed `--json` line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

import engine
from ladder.cli import main
from tests.integration.conftest import live_processes_with, needs_bwrap
from tests.integration.helpers import LADDER, ladder

pytestmark = [pytest.mark.integration, needs_bwrap]

HOSTILE = Path(__file__).parent / "hostile"


def randoms(game: str) -> list[str]:
    return [f"{game}/random"] * engine.get_game(game).min_players


def test_json_lines_are_the_fixed_shape_deterministic_and_replayable(game):
    done = ladder("play", game, *randoms(game), "--seed", "5", "--games", "2", "--json")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    matches = [json.loads(line) for line in lines]
    for seed, match in zip((5, 6), matches, strict=True):
        fixed = {"seed", "bots", "ranks", "scores", "statuses", "replay", "errors", "stderr"}
        assert set(match) == fixed
        assert match["seed"] == seed and match["bots"] == randoms(game)
        assert match["statuses"] == ["ok"] * len(match["ranks"])
        assert engine.replay(match["replay"]).result()["scores"] == match["scores"]
    again = ladder(
        "play", game, *randoms(game), "--seed", "5", "--games", "2", "--json", "--jobs", "2"
    )
    assert [without_timings(line) for line in again.stdout.splitlines()] == [
        without_timings(line) for line in lines
    ]


def without_timings(line: str) -> dict:
    """A --json line minus its timings (wall clock and CPU), the only part that may differ
    run to run."""
    match = json.loads(line)
    del match["replay"]["decision_ms"]
    del match["replay"]["decision_cpu_ms"]
    return match


def test_replay_file_and_replay_directory(game, tmp_path):
    one = tmp_path / "one.json"
    assert ladder("play", game, *randoms(game), "--replay", str(one)).returncode == 0
    record = json.loads(one.read_text())
    assert record["game"] == game and record["seed"] == 1
    engine.replay(record)
    many = tmp_path / "many"
    done = ladder(
        "play", game, *randoms(game), "--games", "2", "--seed", "8", "--replay", str(many)
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in many.iterdir()) == ["seed-8.json", "seed-9.json"]


def test_results_table_counts_faults_per_bot(game):
    bad = str(HOSTILE / "illegal_action.py")
    seats = [bad, *randoms(game)[1:]]
    done = ladder("play", game, *seats, "--games", "2")
    assert done.returncode == 0, done.stderr
    assert "illegal 2" in done.stdout
    assert f"{game}/random" in done.stdout
    assert "mean rank" in done.stdout


CRASHER = """
import random

def act(view, legal):
    if random.random() < 2:
        raise RuntimeError("my bug in act " + str(len(legal)))
"""


def test_a_crash_shows_its_reason_and_traceback_and_logs_keep_every_seat(game, tmp_path):
    bot = tmp_path / "crasher.py"
    bot.write_text(CRASHER)
    seats = [str(bot), *randoms(game)[1:]]
    logs = tmp_path / "logs"
    done = ladder("play", game, *seats, "--games", "2", "--logs", str(logs))
    assert done.returncode == 0, done.stderr
    assert "2 seats faulted:" in done.stdout
    assert f"- seed 1, seat 0 ({bot}): crash: exited with code 1" in done.stdout
    assert f"- seed 2, seat {len(seats) - 1} ({bot}): crash" in done.stdout  # seats rotate
    assert "RuntimeError: my bug in act" in done.stdout
    assert f'File "{bot}", line 6, in act' in done.stdout  # the user's file, not /bot/bot.py
    assert '"/bot/' not in done.stdout
    assert "tradewinds_sdk" not in done.stdout  # the SDK's own frames are left out
    files = sorted(p.name for p in logs.iterdir())
    assert len(files) == 2 * len(seats)
    logged = (logs / "seed-1-seat-0.log").read_text()
    assert "RuntimeError: my bug in act" in logged and f'File "{bot}"' in logged
    as_json = ladder("play", game, *seats, "--json", "--fail-on-fault")
    assert as_json.returncode == 1  # a CI job can gate on a crash of its own bot
    line = json.loads(as_json.stdout)
    assert line["bots"] == seats
    assert line["statuses"][0] == "crash" and f'File "{bot}"' in line["stderr"][0]
    assert line["errors"][0] and line["errors"][1:] == [None] * (len(seats) - 1)
    assert "RuntimeError: my bug in act" in as_json.stderr  # the report goes to stderr


SEED_PRINTER = """
import random, sys

def setup(info):
    print("SEED", info["seed"], [s["name"] for s in info["seats"]], file=sys.stderr)

def act(view, legal):
    print("DRAW", random.random(), file=sys.stderr)
    return random.choice(legal)
"""


def test_each_bot_gets_its_seed_and_the_seats_and_random_replays(game, tmp_path):
    from workers.match import bot_seed

    bot = tmp_path / "seeded.py"
    bot.write_text(SEED_PRINTER)
    seats = [str(bot)] * engine.get_game(game).min_players
    runs = [json.loads(ladder("play", game, *seats, "--seed", "3", "--json").stdout)]
    runs.append(json.loads(ladder("play", game, *seats, "--seed", "3", "--json").stdout))
    first = runs[0]
    assert first["replay"]["bot_seeds"] == [bot_seed(3, i) for i in range(len(seats))]
    for i, text in enumerate(first["stderr"]):
        # A local file is seated by its name (workers.info), not its path.
        assert text.startswith(f"SEED {bot_seed(3, i)} {['seeded'] * len(seats)}\n")
    assert runs[0]["stderr"] == runs[1]["stderr"]  # the same draws, hence the same moves
    assert runs[0]["replay"]["actions"] == runs[1]["replay"]["actions"]
    assert len(set(first["stderr"])) == len(seats)  # each seat its own seed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["chess", "a/random", "b/random"], "unknown game 'chess'"),
        (["{game}", "{game}/random"], "takes"),
        (["{game}", "no/such", "no/such", "no/such"], "no bot 'no/such'"),
        (["{game}", "{game}/random"] * 1 + ["--games", "0"], "--games"),
    ],
)
def test_bad_arguments_get_a_clear_error(game, args, message):
    # In this process (click's runner): refused before any match or sandbox starts.
    done = CliRunner().invoke(main, ["play", *(arg.format(game=game) for arg in args)])
    assert done.exit_code == 2, done.output
    assert message in done.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_every_sandbox_ends_with_the_command(game, jobs):
    tmp = Path(tempfile.mkdtemp(prefix="tw-play-", dir="/tmp"))
    try:
        tmp.chmod(0o711)  # sandbox uids must pass through to their folders
        env = {**os.environ, "TMPDIR": str(tmp)}
        done = subprocess.run(
            [LADDER, "play", game, *randoms(game), "--games", "3", "--jobs", jobs],
            capture_output=True, text=True, timeout=120, env=env,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert sorted(p.name for p in tmp.iterdir()) == ["tradewinds-locks"]  # claims stay
        assert live_processes_with(str(tmp)) == []
    finally:
        shutil.rmtree(tmp)
