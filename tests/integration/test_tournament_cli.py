"""`ladder tournament run` end to end: the real command, the real sandbox, the fixed `--json`
line, one small tournament per format (Meuterer, house random bots, tables of three)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from ladder.cli import main
from tests.integration.conftest import needs_bwrap

pytestmark = [pytest.mark.integration, needs_bwrap]

LADDER = str(Path(sys.executable).parent / "ladder")
HOSTILE = Path(__file__).parent / "hostile"
GAME = "meuterer"  # the quickest game; 3 to 4 players
RANDOM = f"{GAME}/random"
GREEDY = f"{GAME}/greedy"


def ladder(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LADDER, *args], capture_output=True, text=True, timeout=300)


def run_json(*args: str, code: int = 0) -> dict:
    done = ladder("tournament", "run", GAME, *args, "--table-size", "3", "--json")
    assert done.returncode == code, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    payload = json.loads(last)
    assert list(payload) == ["format", "game", "standings", "matches"]
    for line in payload["standings"]:
        assert list(line) == ["bot", "rank", "points", "matches", "faults"]
    for match in payload["matches"]:
        assert list(match) == ["round", "table", "seed", "seats", "ranks", "statuses"]
        assert len(match["seats"]) == len(match["ranks"]) == len(match["statuses"]) == 3
        assert sorted(match["ranks"])[0] == 1
    return payload


def test_round_robin_every_bot_plays_alike_and_labels_tell_twins_apart():
    bots = [RANDOM, GREEDY, RANDOM, RANDOM]
    payload = run_json(*bots, "--format", "round-robin")
    assert payload["format"] == "round-robin" and payload["game"] == GAME
    # Four entrants at tables of three: three tables each, four matches, one a round.
    assert len(payload["matches"]) == 4
    assert sorted(line["bot"] for line in payload["standings"]) == sorted(
        [GREEDY, f"{RANDOM}#1", f"{RANDOM}#2", f"{RANDOM}#3"]
    )
    assert [line["rank"] for line in payload["standings"]] == [1, 2, 3, 4]
    assert {line["matches"] for line in payload["standings"]} == {3}
    seats = Counter(seat for match in payload["matches"] for seat in match["seats"])
    assert seats == {RANDOM: 9, GREEDY: 3}  # seats as given: the twins share a name
    assert all(match["statuses"] == ["ok"] * 3 for match in payload["matches"])


def test_swiss_is_the_same_on_one_process_or_two():
    bots = [RANDOM, GREEDY, RANDOM, GREEDY]
    one = run_json(*bots, "--format", "swiss", "--rounds", "2", "--seed", "4")
    two = run_json(*bots, "--format", "swiss", "--rounds", "2", "--seed", "4", "--jobs", "2")
    assert one == two
    assert [m["round"] for m in one["matches"]] == [1, 2]
    # One bye a round, worth the mean of 3/1/0: nobody has two.
    assert sorted(line["matches"] for line in one["standings"]) == [1, 1, 2, 2]


def test_duplicate_elimination_plays_every_rotation_of_one_seed():
    bots = [RANDOM, RANDOM, GREEDY, RANDOM, RANDOM]
    payload = run_json(*bots, "--format", "elimination", "--duplicate")
    # Five at threes, one advancing: one table (two byes) of three rotations, then the final.
    assert [(m["round"], m["table"]) for m in payload["matches"]] == [(1, 1)] * 3 + [(2, 1)] * 3
    for number in (1, 2):
        sets = [m for m in payload["matches"] if m["round"] == number]
        assert len({m["seed"] for m in sets}) == 1
        assert [m["seats"][1:] + m["seats"][:1] for m in sets[:2]] == [m["seats"] for m in sets[1:]]
    assert len(payload["standings"]) == 5


def test_a_faulting_bot_keeps_its_matches_and_its_faults_show():
    bad = str(HOSTILE / "illegal_action.py")
    payload = run_json(bad, RANDOM, RANDOM, RANDOM, "--format", "round-robin", "--fail-on-fault",
                       code=1)  # fmt: skip
    lines = {line["bot"]: line for line in payload["standings"]}
    assert lines[bad]["matches"] == lines[bad]["faults"] == 3
    assert lines[bad]["rank"] == 4
    for match in payload["matches"]:
        if bad in match["seats"]:
            assert match["statuses"][match["seats"].index(bad)] == "illegal"


def test_standings_table_without_json():
    done = ladder("tournament", "run", GAME, RANDOM, GREEDY, RANDOM, "--format", "swiss",
                  "--rounds", "1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    for column in ("rank", "bot", "points", "matches", "wins", "mean", "faults"):
        assert column in done.stdout
    assert GREEDY in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["chess", "a/random", "b/random", "--format", "swiss"], "unknown game 'chess'"),
        ([GAME, "no/such", RANDOM, RANDOM, "--format", "swiss"], "no bot 'no/such'"),
        ([GAME, RANDOM, RANDOM, "--format", "swiss"], "2 entrants cannot fill a table of 3"),
        ([GAME, RANDOM, RANDOM, RANDOM, "--format", "swiss", "--table-size", "5"], "seat 3 to 4"),
        ([GAME, RANDOM, RANDOM, RANDOM, RANDOM, "--format", "elimination", "--rounds", "2"],
         "give no rounds"),
        ([GAME, RANDOM, RANDOM, RANDOM], "--format"),
    ],
)  # fmt: skip
def test_bad_arguments_get_a_clear_error(args, message):
    # In this process (click's runner): the command refuses before any match or sandbox,
    # so a subprocess a case would only add its start-up.
    done = CliRunner().invoke(main, ["tournament", "run", *args])
    assert done.exit_code == 2, done.output
    assert message in done.stderr
