"""`ladder test`'s arguments, and the set-order runner under it (bots run as plain
processes here: the sandboxed runs are in tests/integration/test_test_cli.py)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ladder.cli import main
from ladder.tournaments import local_sprt
from ladder.tournaments.sprt import BETTER, Hypotheses
from workers import Limits


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["chess", "a/random", "b/random"], "unknown game 'chess'"),
        (["manila", "no/such", "manila/random"], "no bot 'no/such'"),
        (["manila", "manila/random", "manila/random", "--opponents", "x/y"], "no bot 'x/y'"),
        (["manila", "manila/random", "manila/random", "--table-size", "2"], "3 to 5 seats"),
        (["manila", "manila/random", "manila/random", "--s1", "0.4"], "must be above s0"),
        (["manila", "manila/random", "manila/random", "--alpha", "0.7"], "alpha must be"),
        (["manila", "manila/random", "manila/random", "--max-sets", "1"], "--max-sets"),
    ],
)
def test_bad_arguments_exit_2_with_the_reason(args, message):
    done = CliRunner().invoke(main, ["test", *args])
    assert done.exit_code == 2, done.output
    assert message in done.output


def test_the_default_table_and_opponents():
    assert [local_sprt.default_table(lo, hi) for lo, hi in ((3, 5), (3, 4), (2, 4), (2, 3))] == [
        4,
        4,
        4,
        3,
    ]
    assert local_sprt.default_opponents("manila") == ["manila/greedy", "manila/search"]


@pytest.mark.parametrize("jobs", [1, 3])
def test_sets_are_counted_in_order_and_the_test_stops_at_its_crossing(jobs):
    # Greedy against random with random opponents: NEW wins every set, so the test ends
    # `better` after exactly 6 sets (the crossing computed in test_sprt), whatever the
    # pool runs ahead.
    who = local_sprt.setup("manila/greedy", "manila/random", ["manila/random"])
    seen = []
    done = local_sprt.run_test(
        "manila", who, 3, Hypotheses(max_sets=20), 5, Limits(), jobs, True,
        lambda test: seen.append(len(test.scores)),
    )  # fmt: skip
    report = done.report()
    assert done.scores == [1.0] * 6 and seen == [1, 2, 3, 4, 5, 6]
    assert (report["verdict"], report["sets"], report["matches"]) == (BETTER, 6, 18)
    assert report["mean_rank"]["new"] == 1.0 and report["faults"] == {"new": 0, "old": 0}
