"""The table mix: the target per game, the choices that steer toward it, and a property
test over a simulated ladder that every owner's bot ends near the target."""

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from ladder.ranking import table_mix
from ladder.ranking.matchmaking import Candidate, make_table

# --- the target ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", engine.game_names())
def test_every_game_has_a_target_over_exactly_its_player_range(game):
    spec = engine.get_game(game)
    assert set(table_mix.TARGET_SIZES[game]) == set(range(spec.min_players, spec.max_players + 1))
    target = table_mix.target_sizes(game, spec.min_players, spec.max_players)
    assert sum(target.values()) == pytest.approx(1.0)
    assert all(share > 0 for share in target.values())


def test_a_game_the_table_lacks_aims_at_every_size_in_proportion_to_its_seats():
    assert table_mix.target_sizes("toyrace", 2, 4) == pytest.approx({2: 2 / 9, 3: 3 / 9, 4: 4 / 9})


def test_the_real_games_aim_at_the_mix_of_tables_of_every_size_equally_often():
    for game in engine.game_names():
        spec = engine.get_game(game)
        low, high = spec.min_players, spec.max_players
        assert table_mix.target_sizes(game, low, high) == table_mix.even_tables(low, high)


def test_weights_are_shares_of_their_sum(monkeypatch):
    monkeypatch.setitem(table_mix.TARGET_SIZES, "manila", {3: 1.0, 4: 2.0, 5: 1.0})
    assert table_mix.target_sizes("manila", 3, 5) == {3: 0.25, 4: 0.5, 5: 0.25}


def test_a_target_outside_the_games_range_is_refused(monkeypatch):
    monkeypatch.setitem(table_mix.TARGET_SIZES, "manila", {2: 1.0, 3: 1.0})
    with pytest.raises(ValueError, match=r"sizes \[2, 3\], outside its 3-5 players"):
        table_mix.target_sizes("manila", 3, 5)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ({}, "table sizes of 2 or more"),
        ({1: 1.0}, "table sizes of 2 or more"),
        ({True: 1.0}, "table sizes of 2 or more"),
        ({3: -1.0}, "weights ≥ 0"),
        ({3: float("nan")}, "weights ≥ 0"),
        ({3: 0.0, 4: 0.0}, "a positive weight"),
    ],
)
def test_bad_weights_are_refused(weights, message):
    with pytest.raises(ValueError, match=message):
        table_mix.normalise(weights)


# --- the choices -----------------------------------------------------------------------------

THIRDS = {3: 1 / 3, 4: 1 / 3, 5: 1 / 3}


@pytest.mark.parametrize(
    ("played", "size", "deficit"),
    [
        ({}, 3, 1 / 3),  # nothing played: it lacks the whole target share
        ({(3, 0): 2, (4, 1): 1}, 3, 1 / 3 - 2 / 4),  # 2 of its matches, were they 4
        ({(3, 0): 2, (4, 1): 1}, 5, 1 / 3),
        ({(3, 0): 2, (4, 1): 1}, 6, -0.0),  # a size without a target share
    ],
)
def test_size_deficit(played, size, deficit):
    assert table_mix.size_deficit(played, THIRDS, size) == pytest.approx(deficit)


def test_seats_go_where_each_bot_has_sat_least():
    played = {
        1: {(3, 0): 5, (3, 1): 5},  # only seat 2 is new to it
        2: {(3, 0): 2},
        3: {(3, 1): 1, (3, 2): 1},
    }
    for seed in range(20):
        assert table_mix.deal_seats([1, 2, 3], played, random.Random(seed)) == [3, 2, 1]


def test_bots_new_to_a_size_are_seated_in_every_order():
    orders = {tuple(table_mix.deal_seats([7, 8, 9], {}, random.Random(s))) for s in range(200)}
    assert len(orders) == 6


def test_counts_at_another_size_do_not_move_the_seats():
    played = {1: {(4, 0): 9}, 2: {(4, 1): 9}}
    seats = Counter(table_mix.deal_seats([1, 2], played, random.Random(s))[0] for s in range(200))
    assert set(seats) == {1, 2}


def test_mix_of_gives_shares_by_size_and_by_seat_within_a_size():
    by_size, by_seat = table_mix.mix_of({(3, 0): 1, (3, 2): 3, (4, 1): 4})
    assert by_size == {3: 0.5, 4: 0.5}
    assert by_seat == {(3, 0): 0.25, (3, 2): 0.75, (4, 1): 1.0}
    assert table_mix.mix_of({}) == ({}, {})


# --- make_table with the mix -----------------------------------------------------------------


def bot(version_id, games=0, mu=25.0, owner_id=None, house=False):
    owner = version_id if owner_id is None else owner_id
    return Candidate(version_id, owner, mu, 1.0, games, house)


def test_the_table_takes_the_size_its_bots_lack():
    # Every bot has played only 3- and 4-seat tables: a 5-seat one is what they need.
    ladder = [bot(i) for i in range(1, 9)]
    played = {i: {(3, i % 3): 5, (4, i % 4): 5} for i in range(1, 9)}
    for seed in range(20):
        table = make_table(ladder, 3, 5, random.Random(seed), played=played)
        assert table is not None and len(table) == 5


def test_a_smaller_table_seats_the_neediest_of_the_largest_tables_bots():
    # Five owners, one μ: the largest table holds them all. Every bot lacks 3-seat
    # tables most, so 3 is played, and bots 1 and 2 lack them more than the rest:
    # whoever the seed, both sit.
    ladder = [bot(i, games=10) for i in range(1, 6)]
    played = {i: {(4, 0): 5, (5, 0): 5} for i in (1, 2)}
    played.update({i: {(3, 0): 2, (4, 0): 4, (5, 0): 4} for i in (3, 4, 5)})
    for seed in range(30):
        table = make_table(ladder, 3, 5, random.Random(seed), played=played)
        assert table is not None and len(table) == 3 and {1, 2} <= set(table)


def test_who_sits_at_the_largest_table_is_the_windows_draw_not_the_neediest():
    # Twelve owners, one μ, one size: bots 1-4 lack it and the rest do not, yet they
    # are seated no more often than their share of the ladder (the mix-blind draw):
    # the mix chooses among the bots of the largest table, never who they are.
    ladder = [bot(i, games=10) for i in range(1, 13)]
    played = {i: {(3, 0): 10} for i in range(1, 5)}
    played.update({i: {(4, 0): 10} for i in range(5, 13)})
    drawn = [make_table(ladder, 4, 4, random.Random(seed), played=played) for seed in range(300)]
    needy = sum(len(set(t or ()) & {1, 2, 3, 4}) for t in drawn) / len(drawn)
    assert needy == pytest.approx(4 * 4 / 12, abs=0.15)


def test_the_mix_never_breaks_the_owner_rule_or_the_room():
    ladder = [bot(1, owner_id=1), bot(2, owner_id=1), bot(3), bot(4), bot(5, house=True)]
    played = {1: {(3, 0): 50}}
    for seed in range(50):
        table = make_table(ladder, 3, 5, random.Random(seed), busy={3}, played=played)
        assert table is not None and len(table) == 3  # owner 1, bot 4 and the house bot
        assert 3 not in table and len({1, 2} & set(table)) == 1


# --- a simulated ladder ----------------------------------------------------------------------

# After this many rated matches each, every owner's bot is within these of its target
# shares: of each table size, and of each seat at a size. (Bench/matchmaking.py shows
# the mix-blind matchmaking 0.2 or more off on the same ladders.)
MATCHES = 100
SIZE_TOLERANCE = 0.1
SEAT_TOLERANCE = 0.08


@st.composite
def simulated_ladders(draw):
    """A ladder a game can balance: owners enough for a full table and one over, none
    with more than two bots (an owner's bots never share a table, so one who holds
    most of the ladder would leave the others only some sizes), up to four house bots.
    μ anywhere, in clusters or all alike."""
    low, high = draw(st.sampled_from([(2, 4), (3, 4), (3, 5)]))
    owners = draw(st.integers(high + 1, 12))
    second = draw(st.sets(st.integers(1, owners), max_size=owners))
    houses = draw(st.integers(0, 4))
    style = draw(st.sampled_from(["spread", "alike", "clusters"]))
    mus = st.floats(-10, 60) if style == "spread" else st.sampled_from([0.0, 60.0])
    owned = list(range(1, owners + 1)) + sorted(second)
    pool = [
        Candidate(
            i + 1, owner, 25.0 if style == "alike" else draw(mus), draw(st.floats(0.8, 8.0)), 0
        )
        for i, owner in enumerate(owned)
    ]
    pool += [
        Candidate(100 + h, 0, draw(mus) if style != "alike" else 25.0, 3.0, 0, True)
        for h in range(houses)
    ]
    return low, high, pool


@settings(max_examples=20, deadline=None)
@given(ladder=simulated_ladders(), seed=st.integers(0, 2**32))
def test_every_owners_bot_nears_the_target_mix_on_a_simulated_ladder(ladder, seed):
    low, high, pool = ladder
    rng = random.Random(seed)
    played: dict[int, Counter] = {c.version_id: Counter() for c in pool}
    while min(sum(p.values()) for p in played.values()) < MATCHES:
        candidates = [
            Candidate(
                c.version_id, c.owner_id, c.mu, c.sigma, sum(played[c.version_id].values()), c.house
            )
            for c in pool
        ]
        table = make_table(candidates, low, high, rng, played=played)
        assert table is not None
        for seat, vid in enumerate(table):
            played[vid][(len(table), seat)] += 1
    target = table_mix.even_tables(low, high)
    for c in pool:
        if c.house:  # seated only where owners are lacking: not held to the mix
            continue
        by_size, by_seat = table_mix.mix_of(played[c.version_id])
        for size, share in target.items():
            assert abs(by_size.get(size, 0.0) - share) <= SIZE_TOLERANCE, (c, by_size)
        for (size, _), share in by_seat.items():
            assert abs(share - 1 / size) <= SEAT_TOLERANCE, (c, by_seat)
