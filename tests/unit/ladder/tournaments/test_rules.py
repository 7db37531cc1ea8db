"""The tournament rules as people read them (`ladder.tournaments.rules`): every number
they state is the number the scheduling and scoring code uses, and `ladder tournament
run --help` shows them.

The expected values are written out here on purpose: a change to the code's defaults
fails this test, so whoever makes it rereads the words around the numbers too.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from click.testing import CliRunner

from ladder.cli import main
from ladder.tournaments import Result, Tournament, elimination, roundrobin, rules, swiss
from ladder.tournaments.scoring import default_scoring, mean_points, points_for_ranks
from ladder.tournaments.tournament import DEFAULT_TABLE_SIZE

POINTS = {2: (2, 0), 3: (3, 1, 0), 4: (4, 2, 1, 0), 5: (5, 3, 2, 1, 0)}
ROUND_ROBIN_AT_FOUR = {4: 1, 5: 4, 6: 2, 8: 3, 12: 4, 16: 5}  # bots: tables each
SWISS_AT_FOUR = {4: 3, 8: 4, 16: 4, 32: 5, 64: 5}  # bots: rounds
BYES = {2: Fraction(1), 3: Fraction(4, 3), 4: Fraction(7, 4), 5: Fraction(11, 5)}
TIE_BREAKS = ("points", "mean game score", "head to head", "a coin")


def text_of(parts) -> str:
    """Every word of the parts, as one string."""
    out = []
    for part in parts:
        out += [part.title, *part.lines, *part.steps, *part.notes]
        out += [" ".join(row) for row in part.table]
    return "\n".join(out)


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def test_the_points_table_is_the_code_s_scoring():
    assert {size: tuple(default_scoring(size)) for size in POINTS} == POINTS
    rows = rules.points_table()
    assert rows[0] == ("Seats", "1st", "2nd", "3rd", "4th", "5th")
    for row in rows[1:]:
        size = int(row[0])
        assert tuple(int(cell) for cell in row[1:] if cell) == POINTS[size]


def test_defaults_stated_are_the_code_s_defaults():
    assert DEFAULT_TABLE_SIZE == 4
    assert Tournament("manila", range(8), "swiss").table_size == 4
    assert Tournament("manila", range(3), "round-robin").table_size == 3
    assert {n: roundrobin.default_length(n, 4) for n in ROUND_ROBIN_AT_FOUR} == ROUND_ROBIN_AT_FOUR
    assert {n: swiss.default_rounds(n, 4) for n in SWISS_AT_FOUR} == SWISS_AT_FOUR
    assert [elimination.default_advance(size) for size in (2, 3, 4, 5)] == [1, 1, 2, 2]
    assert {size: rules.bye_points(size) for size in BYES} == BYES
    assert {size: mean_points(default_scoring(size)) for size in BYES} == BYES
    # What a Swiss bye scores in a tournament: alone, and with duplicate sets (a whole set).
    odd = Tournament("manila", range(9), "swiss", table_size=4)
    assert odd.bye_value == BYES[4]
    assert Tournament("manila", range(9), "swiss", table_size=4, duplicate=True).bye_value == 7
    assert points_for_ranks((1, 1, 3), default_scoring(3)) == (2, 2, 0)


def test_the_text_states_those_numbers():
    said = squash(text_of(rules.parts()))
    assert "tables of 4, or the nearest size" in said
    assert "three entrants play at a table of 3" in said
    shown = "; ".join(
        f"{n} bots, {k} table{'s' * (k != 1)} each" for n, k in ROUND_ROBIN_AT_FOUR.items()
    )
    assert f"At tables of 4: {shown}." in said
    shown = "; ".join(f"{n} bots, {k} rounds" for n, k in SWISS_AT_FOUR.items())
    assert f"At tables of 4: {shown}." in said
    assert "tables of 2 and 3: 1; of 4 and 5: 2" in said
    assert "(4 + 2 + 1 + 0) / 4 = 1.75 at tables of 4, 7 with duplicate sets" in said
    assert "1 at 2, 1.33 at 3, 2.2 at 5" in said
    assert "(3 + 1) / 2 = 2 each" in said
    assert "a table of 4 is worth 16 points" in said
    assert "caravelas 2 to 4, manila 3 to 5, meuterer 3 to 4" in said
    for size, points in POINTS.items():
        assert re.search(rf"\b{size} {' '.join(map(str, points))}\b", said), size


def test_tie_breaks_are_listed_in_the_order_standings_apply_them():
    steps = next(part for part in rules.parts() if part.steps).steps
    assert all(step.startswith(name) for step, name in zip(steps, TIE_BREAKS, strict=True))
    # The order itself: equal points, then the better mean score wins; equal on both,
    # then head to head; equal on all three, then the coin (tests/.../test_standings.py
    # has the cases one by one).
    score = {"a": 9.0, "b": 5.0, "c": 1.0, "d": 1.0}
    t = Tournament("caravelas", ["a", "b", "c", "d"], "round-robin", table_size=2, seed=5)
    results = {}
    for match in t.pending({}):
        a, b = match.seats
        # Every table a tie on places; "a" and then "b" score more in the game.
        results[match.key] = Result((1, 1), (score[a], score[b]))
    order = [line.entrant for line in t.standings(results)]
    assert order[:2] == ["a", "b"]


def test_the_site_s_rule_for_a_failed_match_only_on_the_site():
    assert "could not be played" not in text_of(rules.parts())
    site = squash(text_of(rules.parts(failed_match_score=0.0)))
    assert "shares the table's points (1.75 at a table of 4)" in site
    assert "scores 0 in the game" in site


def test_tournament_run_help_shows_the_rules():
    result = CliRunner().invoke(main, ["tournament", "run", "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    said = squash(result.output)
    for part in rules.parts():
        assert part.title.upper() in said
    # The points table is kept as a table: one line per table size.
    lines = result.output.splitlines()
    for size, points in POINTS.items():
        row = [size, *points]
        assert any(line.split() == [str(n) for n in row] for line in lines), size
    assert "(4 + 2 + 1 + 0) / 4 = 1.75" in said
    assert "1. points;" in said and "4. a coin" in said
    assert "default 4, or the nearest size the game and the bots allow" in said


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Fraction(7, 4), "1.75"),
        (Fraction(4, 3), "1.33"),
        (Fraction(11, 5), "2.2"),
        (Fraction(7), "7"),
        (0.0, "0"),
    ],
)
def test_numbers_read_as_people_write_them(value, shown):
    assert rules.number(value) == shown
