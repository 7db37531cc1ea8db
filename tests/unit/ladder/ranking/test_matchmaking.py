"""Matchmaking: who sits at a table, bad input, and a simulated ladder that must converge."""

import random
import statistics
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.matchsim import kendall_tau, make_bots, mixed, simulate, uniform_table
from ladder.ranking.matchmaking import Candidate, make_table, open_seats


def bot(version_id, owner_id=None, mu=25.0, sigma=1.0, games=10, house=False):
    """A candidate with its own owner unless told otherwise."""
    owner = version_id if owner_id is None else owner_id
    return Candidate(version_id, owner, mu, sigma, games, house)


def tables(candidates, low, high, draws=300, seed=1, busy=()):
    rng = random.Random(seed)
    return [make_table(candidates, low, high, rng, busy) for _ in range(draws)]


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"sigma": 0.0}, "σ finite and positive"),
        ({"sigma": -1.0}, "σ finite and positive"),
        ({"sigma": float("inf")}, "σ finite and positive"),
        ({"mu": float("nan")}, "μ must be finite"),
        ({"games": -1}, "games must be a count"),
        ({"games": 1.5}, "games must be a count"),
        ({"games": True}, "games must be a count"),
    ],
)
def test_bad_candidate_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        bot(1, **fields)


@pytest.mark.parametrize(
    ("low", "high", "error", "message"),
    [
        (1, 4, ValueError, "at least two seats"),
        (4, 3, ValueError, "below min_players"),
        (2.0, 4, ValueError, "must be integers"),
        (2, True, ValueError, "must be integers"),
    ],
)
def test_bad_player_range_is_refused(low, high, error, message):
    with pytest.raises(error, match=message):
        make_table([bot(i) for i in range(1, 6)], low, high, random.Random(1))


def test_rng_must_be_a_random_instance():
    with pytest.raises(TypeError, match=r"random\.Random"):
        make_table([bot(1), bot(2)], 2, 2, 7)


def test_duplicate_version_ids_are_refused():
    with pytest.raises(ValueError, match="version 2 is listed twice"):
        make_table([bot(1), bot(2), bot(2, owner_id=9)], 2, 2, random.Random(1))


# --- too few bots ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("candidates", "low", "busy"),
    [
        ([], 2, ()),
        ([bot(1)], 2, ()),
        ([bot(1), bot(2)], 3, ()),
        ([bot(1), bot(2), bot(3)], 3, {2}),
        ([bot(1, house=True), bot(2, house=True), bot(3)], 3, {3}),
    ],
)
def test_too_few_eligible_bots_make_no_table(candidates, low, busy):
    assert make_table(candidates, low, 5, random.Random(1), busy) is None


def test_busy_house_bots_still_play_but_busy_others_sit_out():
    ladder = [bot(1, house=True), bot(2, house=True), bot(3), bot(4), bot(5)]
    drawn = tables(ladder, 3, 3, busy={1, 2, 4})
    assert all(set(t) <= {1, 2, 3, 5} for t in drawn)
    assert any(1 in t for t in drawn) and any(2 in t for t in drawn)
    assert all(sorted(t) == [1, 2, 5] for t in tables(ladder, 3, 3, busy={1, 2, 3, 4}))


# --- what a table looks like -----------------------------------------------------------------


def test_table_size_varies_over_the_whole_range():
    ladder = [bot(i) for i in range(1, 21)]
    sizes = Counter(len(t) for t in tables(ladder, 3, 5))
    assert set(sizes) == {3, 4, 5}
    assert min(sizes.values()) > 60  # roughly even across 300 draws


def test_table_size_is_capped_by_the_bots_available():
    ladder = [bot(i) for i in range(1, 5)]
    assert {len(t) for t in tables(ladder, 3, 6)} == {3, 4}


def test_tables_seat_distinct_known_bots():
    ladder = [bot(i, mu=10 + i) for i in range(1, 31)]
    for table in tables(ladder, 2, 5):
        assert len(set(table)) == len(table)
        assert set(table) <= set(range(1, 31))


def test_fresh_bot_is_seeded_far_more_often_than_its_share():
    # 20 bots at the same μ, one fresh: as seed it has weight 1 against 19 × 1/101,
    # so it sits at about 86% of tables; a uniform draw of 3 would seat it at 15%.
    ladder = [bot(1, games=0)] + [bot(i, games=100) for i in range(2, 21)]
    share = sum(1 in t for t in tables(ladder, 3, 3, draws=1000)) / 1000
    assert 0.78 < share < 0.94


def test_seed_is_not_always_first_at_the_table():
    ladder = [bot(1, games=0)] + [bot(i, games=100) for i in range(2, 11)]
    seats = Counter(t.index(1) for t in tables(ladder, 3, 3) if 1 in t)
    assert set(seats) == {0, 1, 2}


def test_tables_keep_to_bots_of_near_mu():
    # Two groups 30 apart: a window is at most 2 × hypot(β, σ) ≈ 8.6 wide each side.
    weak = [bot(i, mu=10.0) for i in range(1, 11)]
    strong = [bot(i, mu=40.0) for i in range(11, 21)]
    drawn = tables(weak + strong, 3, 5)
    assert all(set(t) <= set(range(1, 11)) or set(t) <= set(range(11, 21)) for t in drawn)
    assert any(set(t) <= set(range(11, 21)) for t in drawn)
    assert any(set(t) <= set(range(1, 11)) for t in drawn)


def test_window_widens_when_too_few_bots_are_near():
    ladder = [bot(1, mu=0.0), bot(2, mu=50.0), bot(3, mu=100.0)]
    assert all(sorted(t) == [1, 2, 3] for t in tables(ladder, 3, 3))


def test_distinct_owners_fill_the_table_when_the_ladder_has_them():
    one_owner = [bot(i, owner_id=1) for i in range(1, 7)]
    others = [bot(i, owner_id=i) for i in range(7, 10)]
    owners = {c.version_id: c.owner_id for c in one_owner + others}
    for table in tables(one_owner + others, 4, 4):
        assert len({owners[v] for v in table}) == 4


def test_distinct_owner_is_worth_a_wider_window():
    # Ruling: a far bot of another owner beats a near bot of the same owner.
    same_owner = [bot(i, owner_id=1, mu=25.0) for i in range(1, 7)]
    lone = bot(7, owner_id=2, mu=60.0)
    assert all(7 in t for t in tables([*same_owner, lone], 2, 2))


def test_an_owner_never_takes_two_seats_even_when_short_of_owners():
    # Five bots of owner 1 and one of owner 2: only two seats can be filled.
    ladder = [bot(i, owner_id=1) for i in range(1, 6)] + [bot(6, owner_id=2)]
    assert all(t is None for t in tables(ladder, 3, 4))
    for table in tables(ladder, 2, 4):
        assert len(table) == 2 and 6 in table


def test_table_size_is_capped_by_the_owners_available():
    # Twelve bots, but three owners and one house bot: at most four seats.
    ladder = [bot(i, owner_id=1 + i % 3) for i in range(1, 13)] + [bot(13, house=True)]
    sizes = Counter(len(t) for t in tables(ladder, 2, 5))
    assert set(sizes) == {2, 3, 4}
    assert open_seats(ladder) == 4


def test_busy_bots_leave_their_owner_free_to_play_another():
    ladder = [bot(1, owner_id=1), bot(2, owner_id=1), bot(3, owner_id=2)]
    assert all(sorted(t) == [2, 3] for t in tables(ladder, 2, 3, busy={1}))
    assert open_seats(ladder, busy={1}) == 2 and open_seats(ladder, busy={1, 2}) == 1


def test_house_bots_share_a_table_only_where_owners_are_lacking():
    # Owners still come first: with five owners near, a table of three holds one house bot.
    ladder = [bot(i, owner_id=1, house=True) for i in range(1, 4)]
    ladder += [bot(i) for i in range(4, 9)]
    assert all(len(set(t) & {1, 2, 3}) <= 1 for t in tables(ladder, 3, 3))


def test_house_bots_may_share_a_table_and_fill_what_owners_cannot():
    ladder = [bot(i, owner_id=1, house=True) for i in range(1, 4)] + [bot(4), bot(5, owner_id=4)]
    drawn = tables(ladder, 3, 4)
    assert all(t is not None and len(t) in (3, 4) for t in drawn)
    assert all(not {4, 5} <= set(t) for t in drawn)  # owner 4 still sits once
    assert sum(len(set(t) & {1, 2, 3}) >= 2 for t in drawn) == len(drawn)


def test_a_single_owner_ladder_still_plays():
    ladder = [bot(i, owner_id=1, house=True) for i in range(1, 5)]
    assert all(len(t) == 3 for t in tables(ladder, 3, 3))


def test_same_rng_seed_gives_the_same_tables():
    ladder = [bot(i, mu=float(i), games=i % 4) for i in range(1, 41)]
    assert tables(ladder, 3, 5, seed=42) == tables(ladder, 3, 5, seed=42)
    assert tables(ladder, 3, 5, seed=42) != tables(ladder, 3, 5, seed=43)


# --- the owner rule over random ladders -----------------------------------------------------


@st.composite
def ladders(draw):
    """A random pool: a few owners, each with one or more bots of random μ, σ and games,
    some of them busy. House bots are none, owner 0's (as on the site), or any bot at all
    (a house flag the rule must honour whatever owner id comes with it)."""
    house = draw(st.sampled_from(["none", "owner 0", "any"]))
    count = draw(st.integers(0, 14))
    owners = draw(st.lists(st.integers(0, 6), min_size=count, max_size=count))
    pool = [
        Candidate(
            version_id=i + 1,
            owner_id=owner,
            mu=draw(st.floats(-20.0, 70.0)),
            sigma=draw(st.floats(0.5, 9.0)),
            games=draw(st.integers(0, 60)),
            house=(house == "owner 0" and owner == 0) or (house == "any" and draw(st.booleans())),
        )
        for i, owner in enumerate(owners)
    ]
    busy = draw(st.sets(st.integers(1, max(1, count)), max_size=count))
    return pool, busy


def seats_the_rule_allows(pool, busy):
    """The oracle, spelled out apart from the code: every free house bot, plus one seat
    per owner with a bot not busy."""
    free = [c for c in pool if c.house or c.version_id not in busy]
    return sum(c.house for c in free) + len({c.owner_id for c in free if not c.house})


@settings(max_examples=200, deadline=None)
@given(
    ladder=ladders(),
    low=st.integers(2, 5),
    extra=st.integers(0, 3),
    seed=st.integers(0, 2**32),
)
def test_a_table_never_seats_one_owner_twice_and_is_none_only_when_the_rule_forbids(
    ladder, low, extra, seed
):
    pool, busy = ladder
    high = low + extra
    table = make_table(pool, low, high, random.Random(seed), busy)
    allowed = seats_the_rule_allows(pool, busy)
    assert open_seats(pool, busy) == allowed
    if allowed < low:
        assert table is None
        return
    assert table is not None
    by_id = {c.version_id: c for c in pool}
    seated = [by_id[v] for v in table]
    assert len(set(table)) == len(table)
    assert low <= len(table) <= min(high, allowed)
    assert not any(c.version_id in busy for c in seated if not c.house)
    owners = [c.owner_id for c in seated if not c.house]
    assert len(owners) == len(set(owners)), f"one owner seated twice: {table}"


@settings(max_examples=100, deadline=None)
@given(
    houses=st.integers(2, 5),
    owners=st.integers(0, 3),
    seed=st.integers(0, 2**32),
)
def test_house_bots_repeat_their_owner_where_others_may_not(houses, owners, seed):
    # Every house bot shares one owner; a ladder of only house bots still plays.
    pool = [bot(i, owner_id=0, house=True) for i in range(1, houses + 1)]
    pool += [bot(100 + i, owner_id=i + 1) for i in range(owners)]
    pool += [bot(200 + i, owner_id=i + 1) for i in range(owners)]  # a second bot each
    low = 2
    high = houses + owners
    rng = random.Random(seed)
    for _ in range(20):
        table = make_table(pool, low, high, rng)
        assert table is not None
        assert len({v % 100 for v in table if v > 100}) == len([v for v in table if v > 100])
    full = make_table(pool, high, high, rng)
    assert full is not None and set(range(1, houses + 1)) <= set(full)


# --- the simulation and its helpers ----------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "tau"),
    [
        ([1, 2, 3, 4], [10, 20, 30, 40], 1.0),
        ([1, 2, 3, 4], [4, 3, 2, 1], -1.0),
        ([1, 2, 3], [1, 3, 2], 1 / 3),
        ([1, 2, 3], [5, 5, 6], 2 / 3),  # τ-a: the tied pair counts zero
    ],
)
def test_kendall_tau(a, b, tau):
    assert kendall_tau(a, b) == pytest.approx(tau)


@pytest.mark.parametrize(("a", "b"), [([1, 2], [1]), ([1], [1])])
def test_kendall_tau_refuses_bad_input(a, b):
    with pytest.raises(ValueError, match="equally long"):
        kendall_tau(a, b)


@pytest.mark.parametrize(
    ("count", "spread", "house"), [(1, 30.0, 0), (10, 0.0, 0), (10, 30.0, 11), (10, 30.0, -1)]
)
def test_make_bots_refuses_bad_input(count, spread, house):
    with pytest.raises(ValueError, match="need two or more bots"):
        make_bots(count, random.Random(1), spread=spread, house=house)


def test_make_bots_spaces_strengths_and_mixes_owners():
    bots = make_bots(40, random.Random(3))
    strengths = sorted(b.strength for b in bots)
    assert strengths[0] == pytest.approx(10.0) and strengths[-1] == pytest.approx(40.0)
    assert sum(b.house for b in bots) == 4
    assert 10 < len({b.owner_id for b in bots}) < 40


def test_uniform_baseline_needs_enough_bots():
    assert uniform_table([bot(1), bot(2)], 3, 5, random.Random(1)) is None
    sizes = {
        len(uniform_table([bot(i) for i in range(9)], 3, 5, random.Random(s))) for s in range(50)
    }
    assert sizes == {3, 4, 5}


def test_simulation_refuses_a_ladder_too_small_for_the_game():
    bots = make_bots(4, random.Random(1), house=0)
    with pytest.raises(ValueError, match="found no table"):
        simulate(bots, uniform_table, 5, 5, random.Random(1), max_matches=10)


def test_matchmaking_ranks_the_ladder_sooner_than_uniform_tables():
    # 40 bots of known strength, Manila's 3..5 seats; each seed runs both strategies on the
    # same bots and the same rng seed. A run that never reaches τ ≥ 0.9 returns None.
    # Matchmaking as the scheduler runs it: balancing the bots' table mixes.
    made, uniform = [], []
    for seed in (1, 2, 3):
        bots = make_bots(40, random.Random(seed))
        made.append(simulate(bots, mixed, 3, 5, random.Random(seed), max_matches=1500))
        uniform.append(simulate(bots, uniform_table, 3, 5, random.Random(seed), max_matches=1500))
    assert None not in made and None not in uniform
    assert statistics.median(made) < statistics.median(uniform)
