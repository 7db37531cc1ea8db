"""`ladder test` end to end: the real command, the real sandbox, the fixed `--json` line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.conftest import needs_bwrap

pytestmark = [pytest.mark.integration, needs_bwrap]

LADDER = str(Path(sys.executable).parent / "ladder")
KEYS = ["game", "new", "old", "verdict", "llr", "bounds", "sets", "matches", "score",
        "interval", "faults"]  # fmt: skip


def run_json(*args: str) -> tuple[dict, str]:
    done = subprocess.run(
        [LADDER, "test", *args, "--jobs", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr  # whatever the verdict
    line = json.loads(done.stdout.strip().splitlines()[-1])
    assert list(line) == KEYS  # the fixed interface (ARCHITECTURE.md), exactly
    assert set(line["faults"]) == {"new", "old"}
    return line, done.stderr


def test_greedy_is_found_better_than_random_through_the_sandbox():
    line, live = run_json("meuterer", "meuterer/greedy", "meuterer/random",
                          "--opponents", "meuterer/random", "--max-sets", "20",
                          "--fail-on-fault")  # fmt: skip
    assert (line["game"], line["new"], line["old"]) == (
        "meuterer",
        "meuterer/greedy",
        "meuterer/random",
    )
    assert line["verdict"] == "better" and line["llr"] >= line["bounds"][1]
    assert line["matches"] == 4 * line["sets"]  # four seats by default: four rotations a set
    low, high = line["interval"]
    assert low <= line["score"] <= high and line["score"] > 0.5
    assert line["faults"] == {"new": 0, "old": 0}
    # The live line after each set, the last one with the verdict.
    sets = [row for row in live.splitlines() if row.startswith("set ")]
    assert len(sets) == line["sets"] and sets[-1].endswith("better")


def test_a_bot_against_itself_is_not_found_better():
    line, _ = run_json("meuterer", "meuterer/random", "meuterer/random",
                       "--opponents", "meuterer/random", "--table-size", "3",
                       "--max-sets", "40")  # fmt: skip
    assert line["verdict"] in ("not better", "inconclusive")
    assert line["matches"] == 3 * line["sets"]
