"""The local runner's pure parts: entrants from the command line and the --json object."""

import pytest

from ladder.tournaments import Tournament, play
from ladder.tournaments.local import entries, json_line, report
from tests.unit.ladder.tournaments.helpers import by_strength


def test_a_bot_given_twice_is_two_entrants_with_numbered_labels():
    found = entries(["meuterer/random", "meuterer/greedy", "meuterer/random"])
    assert [e.label for e in found] == ["meuterer/random#1", "meuterer/greedy", "meuterer/random#2"]
    assert [e.spec for e in found] == ["meuterer/random", "meuterer/greedy", "meuterer/random"]
    assert [e.source.label for e in found] == [e.label for e in found]
    assert found[0].source.path == found[2].source.path


def test_an_unknown_bot_is_refused():
    with pytest.raises(ValueError, match="no bot"):
        entries(["meuterer/nobody"])


def test_report_is_the_fixed_json_object_with_seats_as_given():
    found = entries(["manila/random", "manila/greedy", "manila/random", "manila/greedy"])
    t = Tournament("manila", [e.label for e in found], "swiss", table_size=3, rounds=2)
    strength = {e.label: i for i, e in enumerate(found)}
    results = play(t, by_strength(strength, noise=1.0))
    payload = report(t, found, results)
    assert list(payload) == ["format", "game", "standings", "matches"]
    assert payload["format"] == "swiss" and payload["game"] == "manila"
    assert [set(line) for line in payload["standings"]] == [
        {"bot", "rank", "points", "matches", "faults"}
    ] * 4
    assert [line["rank"] for line in payload["standings"]] == [1, 2, 3, 4]
    assert {line["bot"] for line in payload["standings"]} == {e.label for e in found}
    assert len(payload["matches"]) == 2
    for match in payload["matches"]:
        assert list(match) == ["round", "table", "seed", "seats", "ranks", "statuses"]
        assert set(match["seats"]) <= {"manila/random", "manila/greedy"}
    # A bye's 4/3 points is not a whole number: it stays a number, not a string.
    assert any(isinstance(line["points"], float) for line in payload["standings"])
    assert json_line(payload).count("\n") == 0
