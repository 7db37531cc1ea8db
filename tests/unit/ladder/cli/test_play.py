"""`ladder play`'s summary: tallies, the --json line, seat rotation, replay files."""

from __future__ import annotations

import json

from ladder.cli.play import Plan, json_line, save_replay, tally
from workers.limits import Limits
from workers.staging import BotSource


def outcome(seed: int, labels: list[str], ranks: list[int], statuses: list[str]) -> dict:
    scores = [10 * (len(ranks) - r) for r in ranks]
    return {
        "seed": seed,
        "ranks": ranks,
        "scores": scores,
        "statuses": statuses,
        "replay": {"seats": labels, "seed": seed},
        "stderr": ["secret"] * len(ranks),
    }


def test_tally_sums_per_bot_label():
    outcomes = [
        outcome(1, ["a", "b", "b"], [1, 2, 3], ["ok", "ok", "ok"]),
        outcome(2, ["b", "b", "a"], [1, 1, 3], ["ok", "ok", "timeout"]),
    ]
    totals = tally(outcomes)
    assert (totals["a"].games, totals["a"].wins, totals["a"].rank_sum) == (2, 1, 4)
    assert (totals["b"].games, totals["b"].wins, totals["b"].rank_sum) == (4, 2, 7)
    assert totals["a"].faults == {"timeout": 1} and totals["b"].faults == {}


def test_json_line_has_exactly_the_fixed_keys():
    line = json.loads(json_line(outcome(3, ["a", "b"], [1, 2], ["ok", "ok"])))
    assert set(line) == {"seed", "ranks", "scores", "statuses", "replay"}
    assert "secret" not in json.dumps(line)


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
