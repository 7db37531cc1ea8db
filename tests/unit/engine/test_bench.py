"""bench/engine.py's before/after mode keeps working: it measures two engines and compares.

Tiny figures (two games, no search costs): what is tested is the plumbing (the export of
a git ref's engine, the alternated subprocesses, the table), not the speed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench" / "engine.py"


def _bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=120
    )


def test_against_a_ref_prints_both_figures_and_the_speed_up_per_game():
    done = _bench("manila", "--against", "HEAD", "--runs", "1", "--games", "2", "--points", "0")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("this checkout against HEAD: medians of 1 alternated runs")
    rows = [line.split() for line in lines[2:]]
    assert {(r[0], r[1], r[2]) for r in rows} == {
        ("manila", players, figure)
        for players in ("3", "4", "5", "all")
        for figure in ("games/s", "decisions/s")
    }
    for row in rows:
        assert row[-1].endswith("x") and float(row[-1][:-1]) > 0
        if row[1] != "all":  # both engines measured: positive rates
            assert float(row[3]) > 0 and float(row[4]) > 0


def test_a_ref_git_does_not_know_is_refused_with_its_name():
    done = _bench("manila", "--against", "no-such-ref-35", "--runs", "1", "--games", "1")
    assert done.returncode != 0
    assert "cannot export the engine at 'no-such-ref-35'" in done.stderr


def test_an_unknown_game_is_refused_before_anything_runs():
    done = _bench("chess", "--against", "HEAD")
    assert done.returncode == 2 and "unknown game 'chess'" in done.stderr
