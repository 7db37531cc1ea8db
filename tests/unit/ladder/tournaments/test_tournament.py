"""The Tournament: settings checked, seeds and schedules deterministic, duplicate sets,
results handed back, a faulting entrant keeping its matches."""

from collections import Counter
from fractions import Fraction as F

import pytest

from ladder.tournaments import Entrant, Result, Tournament, derive_seed, play
from tests.unit.ladder.tournaments.helpers import by_strength

EIGHT = tuple(f"bot{i}" for i in range(8))
STRENGTH = {name: i for i, name in enumerate(EIGHT)}  # bot7 strongest


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"format": "ladder"}, "format is one of"),
        ({"game": "chess"}, "unknown game"),
        ({"table_size": 6}, "manila tables seat 3 to 5"),
        ({"table_size": 2}, "manila tables seat 3 to 5"),
        ({"game": "meuterer", "table_size": 5}, "meuterer tables seat 3 to 4"),
        ({"entrants": ("a",)}, "at least two entrants"),
        ({"entrants": ("a", "a", "b")}, "must be distinct"),
        ({"entrants": ("a", "b", "c"), "table_size": 4}, "3 entrants cannot fill a table of 4"),
        ({"rounds": 2, "table_size": 3, "entrants": tuple("abcd")}, "multiple of 3"),
        ({"format": "swiss", "rounds": 0}, "at least one round"),
        ({"format": "elimination", "rounds": 2}, "give no rounds"),
        ({"format": "elimination", "advance": 4}, "1 ≤ k < 4"),
        ({"advance": 1}, "only an elimination"),
        ({"duplicate": True, "matches_per_table": 2}, "as many as seats"),
        ({"matches_per_table": 0}, "must be positive"),
        ({"scoring": (3, 1, 0)}, "has 4 entries"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    settings = {"game": "manila", "entrants": EIGHT, "format": "round-robin", "table_size": 4}
    settings.update(kwargs)
    with pytest.raises(ValueError, match=message):
        Tournament(**settings)


def test_entrant_needs_both_mu_and_sigma():
    with pytest.raises(ValueError, match="both μ and σ"):
        Entrant("a", mu=25.0)
    assert Entrant("a", 25.0, 2.0).skill == 19.0
    assert Entrant("a").skill is None


@pytest.mark.parametrize(
    ("game", "entrants", "size"), [("manila", 8, 4), ("manila", 3, 3), ("caravelas", 2, 2)]
)
def test_default_table_size_is_four_or_the_nearest_that_fits(game, entrants, size):
    t = Tournament(game, tuple(range(entrants)), "swiss")
    assert t.table_size == size


@pytest.mark.parametrize("fmt", ["round-robin", "swiss", "elimination"])
@pytest.mark.parametrize("duplicate", [False, True])
def test_same_settings_same_tournament_and_the_seed_changes_it(fmt, duplicate):
    def run(seed):
        t = Tournament("manila", EIGHT, fmt, table_size=3, seed=seed, duplicate=duplicate)
        results = play(t, by_strength(STRENGTH, noise=3.0))
        return t.schedule(results), t.standings(results)

    first, again, other = run(5), run(5), run(6)
    assert first == again
    seeds = {m.seed for r in first[0] for m in r.matches}
    assert seeds.isdisjoint({m.seed for r in other[0] for m in r.matches})


def test_match_seeds_are_derived_from_the_base_seed_round_table_and_rotation():
    t = Tournament("manila", EIGHT, "round-robin", table_size=4, seed=9, matches_per_table=2)
    table = t.schedule()[0].tables[0]
    assert [m.seed for m in table.matches] == [
        derive_seed(9, "match", 1, 1, 0),
        derive_seed(9, "match", 1, 1, 1),
    ]


@pytest.mark.parametrize("fmt", ["round-robin", "swiss", "elimination"])
@pytest.mark.parametrize("size", [3, 4, 5])
def test_duplicate_sets_play_every_rotation_with_one_seed(fmt, size):
    t = Tournament("manila", (*EIGHT, "bot8", "bot9"), fmt, table_size=size, duplicate=True)
    results = play(t, by_strength(STRENGTH | {"bot8": 8, "bot9": 9}, noise=2.0))
    for r in t.schedule(results):
        for table in r.tables:
            n = len(table.entrants)
            assert len(table.matches) == n
            assert len({m.seed for m in table.matches}) == 1
            for e in table.entrants:
                assert sorted(m.seats.index(e) for m in table.matches) == list(range(n))
            assert [m.rotation for m in table.matches] == list(range(n))


def test_a_set_without_duplicate_has_its_own_seed_per_match():
    t = Tournament("manila", EIGHT, "swiss", table_size=4, matches_per_table=3)
    table = t.schedule()[0].tables[0]
    assert len({m.seed for m in table.matches}) == 3
    assert [m.seats for m in table.matches][1] == table.entrants[1:] + table.entrants[:1]


@pytest.mark.parametrize("fmt", ["round-robin", "swiss", "elimination"])
@pytest.mark.parametrize("duplicate", [False, True])
def test_total_matches_is_known_from_the_start(fmt, duplicate):
    t = Tournament("manila", (*EIGHT, "bot8"), fmt, table_size=4, duplicate=duplicate)
    results = play(t, by_strength(STRENGTH | {"bot8": 8}, noise=1.0))
    assert len(results) == t.total_matches()
    assert t.finished(results) and t.pending(results) == []
    assert len(t.schedule(results)) == t.round_count


def test_swiss_and_elimination_schedule_a_round_once_the_last_is_played():
    t = Tournament("manila", EIGHT, "swiss", table_size=4, rounds=3)
    assert len(t.schedule({})) == 1
    first = t.pending({})
    partial = dict(list(by_strength(STRENGTH)(first))[:1])
    results = {m.key: r for m, r in partial.items()}
    assert len(t.schedule(results)) == 1 and len(t.pending(results)) == 1
    results = {m.key: r for m, r in by_strength(STRENGTH)(first)}
    assert len(t.schedule(results)) == 2 and not t.finished(results)


def test_results_must_fit_the_schedule():
    t = Tournament("manila", EIGHT, "swiss", table_size=4)
    match = t.pending({})[0]
    with pytest.raises(ValueError, match="not in the schedule"):
        t.schedule({(7, 1, 0): Result((1, 2, 3, 4), (0, 0, 0, 0))})
    with pytest.raises(ValueError, match="needs a Result with 4 seats"):
        t.schedule({match.key: Result((1, 2, 3), (0, 0, 0))})


def test_play_refuses_a_player_that_skips_matches():
    t = Tournament("manila", EIGHT, "round-robin", table_size=4)
    with pytest.raises(RuntimeError, match="without a result"):
        play(t, lambda batch: [])


@pytest.mark.parametrize("fmt", ["round-robin", "swiss", "elimination"])
def test_a_faulting_entrant_keeps_its_matches_and_its_faults_are_counted(fmt):
    t = Tournament("manila", EIGHT, fmt, table_size=4, seed=3)
    results = play(t, by_strength(STRENGTH, faulty={"bot7"}))
    lines = {line.entrant: line for line in t.standings(results)}
    bot7 = lines["bot7"]
    assert bot7.faults == bot7.matches > 0 and bot7.fault_kinds == (("crash", bot7.matches),)
    assert all(line.faults == 0 for name, line in lines.items() if name != "bot7")
    if fmt != "elimination":
        assert bot7.matches == max(line.matches for line in lines.values())
        assert bot7.rank == 8  # it ranks last at every table: no points


def test_swiss_bye_scores_the_mean_of_a_set_and_round_robin_byes_score_nothing():
    nine = (*EIGHT, "bot8")
    strength = STRENGTH | {"bot8": 8}
    swiss = Tournament("manila", nine, "swiss", table_size=4, rounds=1, duplicate=True)
    results = play(swiss, by_strength(strength))
    (bye,) = swiss.schedule(results)[0].byes
    line = next(x for x in swiss.standings(results) if x.entrant == bye)
    assert line.points == F(7, 4) * 4 and line.byes == 1 and line.matches == 0
    rr = Tournament("manila", nine, "round-robin", table_size=4)
    results = play(rr, by_strength(strength))
    assert all(line.byes == 0 for line in rr.standings(results))
    assert Counter(x.matches for x in rr.standings(results)) == {rr.length: 9}


def test_custom_scoring_and_bye_points():
    t = Tournament(
        "manila", (*EIGHT, "bot8"), "swiss", table_size=4, rounds=1, scoring=(10, 5, 1, 0),
        bye_points=F(2),
    )  # fmt: skip
    results = play(t, by_strength(STRENGTH | {"bot8": 8}))
    points = sorted((line.points for line in t.standings(results)), reverse=True)
    assert points == [10, 10, 5, 5, 2, 1, 1, 0, 0]


def test_standings_before_any_result_list_every_entrant():
    t = Tournament("manila", EIGHT, "elimination", table_size=4)
    lines = t.standings()
    assert sorted(line.entrant for line in lines) == sorted(EIGHT)
    assert [line.rank for line in lines] == list(range(1, 9))
