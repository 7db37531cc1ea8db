"""`ladder play`'s summary: tallies, the --json line, seat rotation, replay files."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from ladder.cli.play import Plan, fault_report, faults, json_line, save_logs, save_replay, tally
from workers import Outcome
from workers.limits import Limits
from workers.staging import BotSource


def outcome(seed: int, labels: list[str], ranks: list[int], statuses: list[str]) -> Outcome:
    scores = [10 * (len(ranks) - r) for r in ranks]
    return Outcome(
        game="manila",
        seed=seed,
        players=len(ranks),
        options={},
        ranks=ranks,
        scores=scores,
        statuses=statuses,
        replay={"seats": labels, "seed": seed},
        errors=[None if s == "ok" else f"{s} reason" for s in statuses],
        stderr=["secret"] * len(ranks),
    )


def test_tally_sums_per_bot_label():
    outcomes = [
        outcome(1, ["a", "b", "b"], [1, 2, 3], ["ok", "ok", "ok"]),
        outcome(2, ["b", "b", "a"], [1, 1, 3], ["ok", "ok", "timeout"]),
    ]
    totals = tally(outcomes)
    assert (totals["a"].games, totals["a"].wins, totals["a"].rank_sum) == (2, 1, 4)
    assert (totals["b"].games, totals["b"].wins, totals["b"].rank_sum) == (4, 2, 7)
    assert totals["a"].faults == {"timeout": 1} and totals["b"].faults == {}


def test_json_line_has_the_fixed_keys_then_errors_and_stderr_per_seat():
    line = json.loads(json_line(outcome(3, ["a", "b"], [1, 2], ["ok", "crash"])))
    keys = ["seed", "bots", "ranks", "scores", "statuses", "replay", "errors", "stderr"]
    assert list(line) == keys
    assert line["bots"] == ["a", "b"]  # who sat where, in seat order
    assert line["errors"] == [None, "crash reason"]
    assert line["stderr"] == ["secret", "secret"]


def crashed(seed: int, stderr: str) -> Outcome:
    match = outcome(seed, ["mine.py", "manila/random"], [2, 1], ["crash", "ok"])
    return dataclasses.replace(match, stderr=[stderr, ""])


def test_fault_report_names_seed_seat_bot_status_reason_and_the_traceback_tail():
    trace = "\n".join(f"line {i}" for i in range(40)) + "\nValueError: boom\n"
    report = fault_report(faults([crashed(4, trace), outcome(5, ["a"], [1], ["ok"])]))
    assert report.splitlines()[0] == "1 seat faulted:"
    assert "- seed 4, seat 0 (mine.py): crash: crash reason" in report
    assert "    ValueError: boom" in report
    assert "line 39" in report and "line 5\n" not in report  # only the tail
    assert fault_report(faults([outcome(1, ["a", "b"], [1, 2], ["ok", "ok"])])) == ""


def test_fault_report_shows_the_first_faults_and_counts_the_rest():
    found = faults([crashed(seed, "Traceback") for seed in range(8)])
    report = fault_report(found, shown=3)
    assert report.count("- seed") == 3
    assert "... and 5 more." in report
    assert "--logs DIR" in report
    assert "in /x/." in fault_report(found, shown=3, logs=Path("/x"))


def test_save_logs_writes_every_seat_with_a_heading(tmp_path):
    save_logs(tmp_path, crashed(9, "Traceback: boom\n"))
    first = (tmp_path / "seed-9-seat-0.log").read_text()
    assert first.startswith("# seed 9, seat 0: mine.py — crash (crash reason)\n")
    assert first.endswith("Traceback: boom\n")
    assert (tmp_path / "seed-9-seat-1.log").read_text() == "# seed 9, seat 1: manila/random — ok\n"


def test_seats_rotate_from_game_to_game():
    bots = tuple(BotSource(x, None) for x in "abc")
    plan = Plan("g", bots, seed=1, games=3, limits=Limits())
    assert [[b.label for b in plan.seating(k)] for k in range(4)] == [
        ["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"],
    ]  # fmt: skip


def test_save_replay_one_file_or_a_directory(tmp_path):
    save_replay(tmp_path / "r.json", outcome(4, ["a"], [1], ["ok"]), several=False)
    assert json.loads((tmp_path / "r.json").read_text())["seed"] == 4
    save_replay(tmp_path / "many", outcome(5, ["a"], [1], ["ok"]), several=True)
    assert json.loads((tmp_path / "many" / "seed-5.json").read_text())["seed"] == 5
