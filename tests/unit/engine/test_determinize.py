"""Determinization: a full state rebuilt from one seat's view, hidden things sampled.

The contract runs for every game and player count at random decision points
of random games: the seat is on move with the same legal list and the same
view, the state plays to the end, the same seed gives the same state and
other seeds other hidden things. A twin test puts the true hidden things
back into a determinized state and plays it on beside the match: every view
must stay equal, so everything public was rebuilt right. The statistical
tests compare sampled frequencies with the exact uniform distribution
(chi-square, fixed seeds, so they are deterministic).
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter
from fractions import Fraction

import pytest

import engine
from engine.caravelas import data as caravelas_data
from engine.caravelas.sailing import DESTINATIONS
from engine.meuterer.data import CHARACTERS

# The fields of each game's state that hold what some seat cannot see.
HIDDEN = {
    "manila": ("held", "mortgaged", "dealt"),
    "meuterer": (
        "hands",
        "deck",
        "discards",
        "characters",
        "available",
        "seen_available",
        "choice_order",
    ),
    "caravelas": ("hand", "deck", "used", "secret", "pile", "drawn", "returned"),
}
# Of those, the ones a determinization samples (the rest are rebuilt from the view).
SAMPLED = {
    "manila": ("held", "mortgaged", "dealt"),
    "meuterer": ("hands", "deck", "characters"),
    "caravelas": ("hand", "deck", "secret", "pile", "drawn"),
}
POINTS = 4  # decision points per game and player count
VARIANTS = [("manila", {"pirate_variant": True, "deal_from_all_shares": True})]


def _cases():
    for name in engine.game_names():
        game = engine.get_game(name)
        for n in range(game.min_players, game.max_players + 1):
            yield pytest.param(name, n, {}, id=f"{name}-{n}p")
    for name, options in VARIANTS:
        n = engine.get_game(name).max_players
        yield pytest.param(name, n, options, id=f"{name}-{n}p-options")


def _wire(value):
    """What a bot receives: the value after a trip through JSON."""
    return json.loads(json.dumps(value))


def _hidden(state, fields):
    return json.dumps({f: getattr(state, f) for f in fields}, sort_keys=True)


def _without_events(view):
    return {k: v for k, v in view.items() if k != "events"}


def _decision_points(name, n, options, seed, count):
    """`count` (state, legal) pairs at random decision points of one random game."""
    game = engine.get_game(name)
    length = _play(game.new_game(n, seed=seed, options=options), random.Random(seed))
    picks = sorted(random.Random(seed + 1).sample(range(length), min(count, length)))
    state, chooser = game.new_game(n, seed=seed, options=options), random.Random(seed)
    for step in range(length):
        legal = state.legal_actions()
        if step in picks:
            yield state.clone(), legal
        state.apply(chooser.choice(legal))


def _play(state, chooser, twin=None, every=10):
    """Random legal moves to the end; a twin takes the same moves and must look the same."""
    steps = 0
    while not state.is_over():
        legal = state.legal_actions()
        if twin is not None:
            assert twin.current_player() == state.current_player()
            assert twin.legal_actions() == legal
            if steps % every == 0:
                _same_views(state, twin)
        action = chooser.choice(legal)
        state.apply(action)
        if twin is not None:
            twin.apply(action)
        steps += 1
    if twin is not None:
        assert twin.is_over() and twin.result() == state.result()
        _same_views(state, twin)
    return steps


def _same_views(state, twin):
    for seat in range(state.num_players):
        assert _without_events(twin.view(seat)) == _without_events(state.view(seat)), seat


def _ambiguous(name, state):
    """A Caravelas seat that drew this turn and sailed back into a harbour (RULES.md).

    Its view does not say that it drew: only the legal list (no `draw`) does.
    """
    return name == "caravelas" and state.phase == "sail" and state.drew and state.arrived


@pytest.mark.parametrize(("name", "n", "options"), list(_cases()))
def test_a_determinization_keeps_the_contract_at_random_decision_points(name, n, options):
    game = engine.get_game(name)
    for k, (state, legal) in enumerate(_decision_points(name, n, options, 10 * n + 1, POINTS)):
        seat = state.current_player()
        view = _wire(state.view(seat))
        hint = legal if _ambiguous(name, state) else None
        world = game.determinize(view, k, options=options, legal=hint)
        assert world.current_player() == seat
        assert world.legal_actions() == legal
        assert world.view(seat) == view  # the events too: its log holds the view's
        assert world.history == [] and world.version == game.version
        for other in range(n):
            assert _wire(world.view(other)) == world.view(other)
        assert _wire(world.spectate())

        again = game.determinize(view, k, options=options, legal=hint)
        assert _hidden(again, HIDDEN[name]) == _hidden(world, HIDDEN[name])
        assert again.rng.copy()._next() == world.rng.copy()._next()
        others = {
            _hidden(game.determinize(view, s, options=options), SAMPLED[name]) for s in range(6)
        }
        assert len(others) > 1, "other seeds must give other hidden things"

        _play(world, random.Random(k))
        assert world.is_over() and len(world.result()["ranks"]) == n


@pytest.mark.parametrize(("name", "n", "options"), list(_cases()))
def test_with_the_true_hidden_things_put_back_it_plays_on_as_the_match(name, n, options):
    """Everything the view rebuilt (schedule, queues, turn flags) is the match's own."""
    game = engine.get_game(name)
    for k, (state, legal) in enumerate(_decision_points(name, n, options, 10 * n + 2, POINTS)):
        seat = state.current_player()
        twin = game.determinize(_wire(state.view(seat)), k, options=options, legal=legal)
        for field in HIDDEN[name]:
            setattr(twin, field, json.loads(json.dumps(getattr(state, field))))
        if name == "meuterer":
            twin.seen_available = [tuple(s) if s else s for s in state.seen_available]
        twin.rng = state.rng.copy()
        _play(state, random.Random(k), twin=twin)


# Fields that play no part where a determinization leaves them unlike the match's.
IDLE = {
    "manila": lambda st: (
        () if st.phase == "auction" else ("auction_active", "high_bid", "high_bidder")
    ),
    "meuterer": lambda st: ("sales",) if st.phase == "discard" else (),
    "caravelas": lambda st: ("arrived", "drew"),  # they only make `draw` legal: see below
}
# Manila keeps its log compact (`_events`) and makes the dicts when read (`_log_dicts`).
BOOKKEEPING = ("seed", "rng", "history", "log", "_events", "_log_dicts", "_seen", "_legal_cache")


def _rebuilt_as_the_match(name, state, world):
    """Every field not hidden from the seat holds what the match's state holds."""
    skip = {*HIDDEN[name], *BOOKKEEPING, *IDLE[name](state)}
    for field, value in vars(state).items():
        if field not in skip:
            assert getattr(world, field) == value, field
    if name == "caravelas" and state.phase == "sail":  # elsewhere a draw is never offered
        assert world.can_draw() == state.can_draw()
    if name == "meuterer" and state.phase != "discard":
        assert world.choice_order == state.choice_order  # public: the order of the passes


def _every_decision(name, n, seed):
    state, chooser = engine.get_game(name).new_game(n, seed=seed), random.Random(seed)
    while not state.is_over():
        legal = state.legal_actions()
        yield state, legal
        state.apply(chooser.choice(legal))


@pytest.mark.parametrize(("name", "n", "options"), [c for c in _cases() if not c.values[2]])
def test_every_decision_of_a_match_is_rebuilt_from_the_view(name, n, options):
    game = engine.get_game(name)
    for step, (state, legal) in enumerate(_every_decision(name, n, n)):
        if name == "caravelas" and step % 5:
            continue  # long games: every fifth decision is plenty
        view = _wire(state.view(state.current_player()))
        _rebuilt_as_the_match(name, state, game.determinize(view, step, legal=legal))


@pytest.mark.parametrize(
    ("n", "seed", "phase", "situation"),
    [
        (3, 0, "pilot", lambda st: st.spaces["small_pilot"] == st.spaces["large_pilot"]),
        (3, 22, "board", lambda st: len(st.pirates) == 2 and st.pirates[0] == st.pirates[1]),
    ],
    ids=["both-pilots", "both-pirates"],
)
def test_manila_knows_which_turn_of_a_seat_holding_two_places_it_is(n, seed, phase, situation):
    """Small pilot or large, captain or stern: the seat's events tell (its own last act)."""
    game = engine.get_game("manila")
    roles = set()
    for state, legal in _every_decision("manila", n, seed):
        if state.phase == phase and situation(state):
            roles.add(state.queue[0][2])
            view = _wire(state.view(state.current_player()))
            _rebuilt_as_the_match("manila", state, game.determinize(view, 1))
            _rebuilt_as_the_match("manila", state, game.determinize(view, 1, legal=legal))
    assert len(roles) == 2, roles  # both turns of the seat were met


def test_a_caravelas_draw_earlier_in_the_turn_is_settled_by_the_legal_list():
    """Drew at Lisboa, sailed out and back: only the legal list tells that no draw is left."""
    game = engine.get_game("caravelas")
    state = game.new_game(2, seed=3)
    # A circle one step from Lisboa and back (not the one-way arrow).
    away = next(c for c in DESTINATIONS["lisboa"][1] if "lisboa" in DESTINATIONS[c][1])
    secret = state.secret[0]
    state.setup_position(
        hand=[[1, 1, 1, 1], state.hand[1]],
        secret=[secret[:2], state.secret[1]],
        pile=state.pile + secret[2:],
    )
    state.apply({"type": "move", "card": 1, "to": away})
    state.apply({"type": "move", "card": 1, "to": "lisboa"})
    state.apply({"type": "draw"})
    state.apply(state.legal_actions()[0])  # keep one card
    state.apply({"type": "move", "card": 1, "to": away})
    state.apply({"type": "move", "card": 1, "to": "lisboa"})
    legal = state.legal_actions()
    assert {"type": "draw"} not in legal and _ambiguous("caravelas", state)
    view = _wire(state.view(0))
    assert game.determinize(view, 1, legal=legal).legal_actions() == legal
    # Without the list the view reads as a first arrival: a draw is offered.
    assert {"type": "draw"} in game.determinize(view, 1).legal_actions()


def test_a_caravelas_fleet_wrecked_home_is_not_taken_for_an_arrival():
    """Sent to Lisboa by its last caravel sinking: the `wrecked` event says no draw."""
    game = engine.get_game("caravelas")
    for seed in range(50):  # a seed whose die at the Cape shows 1
        state = game.new_game(2, seed=seed)
        secret = state.secret[0]
        state.setup_position(
            pos=["sao_tome", "lisboa"],
            sunk=[[True, True, True, False], [False] * 4],
            hand=[[4, 4, 4, 4], state.hand[1]],
            secret=[secret[:2], state.secret[1]],
            pile=state.pile + secret[2:],
        )
        state.apply({"type": "move", "card": 4, "to": caravelas_data.CAPE_ID})
        if state.phase == "sink":
            break
    state.apply({"type": "sink", "caravel": 4})
    assert state.pos[0] == "lisboa" and not state.can_draw()
    legal = state.legal_actions()
    world = game.determinize(_wire(state.view(0)), 1)
    assert world.legal_actions() == legal == [{"type": "end_turn"}]


def test_determinize_refuses_what_it_cannot_use():
    for name in engine.game_names():
        game = engine.get_game(name)
        state = game.new_game(game.min_players, seed=1)
        view = state.view(state.current_player())
        with pytest.raises(ValueError, match="seed"):
            game.determinize(view, "7")
        with pytest.raises(ValueError, match="unknown"):
            game.determinize(view, 7, options={"no_such_option": 1})
        _play(state, random.Random(1))
        with pytest.raises(ValueError, match="over"):
            game.determinize(state.view(0), 7)
    manila = engine.get_game("manila").new_game(3, seed=1)
    with pytest.raises(ValueError, match="not a meuterer view"):
        engine.get_game("meuterer").determinize(manila.view(0), 1)


# -- statistics: sampled frequencies against the exact uniform distribution --------
SAMPLES = 2000


def _chi_square(observed: Counter, expected: dict) -> tuple[float, float]:
    """The chi-square statistic and its 0.1 % critical value (Wilson-Hilferty).

    Cells expected fewer than 5 times are pooled into one, as the test requires.
    """
    assert set(observed) <= set(expected), set(observed) - set(expected)
    total = sum(observed.values())
    cells = sorted(((total * p, observed.get(key, 0)) for key, p in expected.items()), reverse=True)
    while len(cells) > 1 and cells[-1][0] < 5:
        (e1, o1), (e2, o2) = cells.pop(), cells.pop()
        cells.append((e1 + e2, o1 + o2))
        cells.sort(reverse=True)
    stat = sum((o - e) ** 2 / e for e, o in cells)
    df = len(cells) - 1
    assert df >= 1, "a single cell tests nothing"
    z = 3.0902  # the standard normal's 99.9 % point
    critical = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    return stat, critical


def _assert_uniform(observed, expected):
    stat, critical = _chi_square(observed, expected)
    assert stat < critical, (stat, critical, observed)


def _hypergeometric(population: int, marked: int, drawn: int) -> dict[int, float]:
    total = math.comb(population, drawn)
    return {
        k: math.comb(marked, k) * math.comb(population - marked, drawn - k) / total
        for k in range(min(marked, drawn) + 1)
    }


def _find(name, n, predicate, seeds=range(100)):
    """The first decision point of seeded random games where `predicate(state)` holds."""
    for seed in seeds:
        state, chooser = engine.get_game(name).new_game(n, seed=seed), random.Random(seed)
        while not state.is_over():
            if predicate(state):
                return state
            state.apply(chooser.choice(state.legal_actions()))
    raise AssertionError("no such position in these games")


def test_manila_deals_and_face_down_shares_are_uniform():
    """Seat 1's dealt goods and which of its shares are mortgaged, against enumeration."""
    game = engine.get_game("manila")

    def wanted(st):
        # Seat 1 owns a bought share beside its dealt ones, some of them face down.
        owned = {g for g in st.held[1] if st.held[1][g] or st.mortgaged[1][g]}
        return (
            st.current_player() == 0
            and st.bought[1]
            and sum(st.mortgaged[1].values()) > 0
            and len(owned) > 1
        )

    state = _find("manila", 4, wanted)
    view = _wire(state.view(0))
    others = [1, 2, 3]
    pool = [g for s in others for g in state.dealt[s]]  # the others' deal as a whole
    count = sum(state.mortgaged[1].values())
    expected: dict = Counter()
    perms = list(itertools.permutations(range(len(pool))))
    for perm in perms:
        dealt = [pool[i] for i in perm[:2]]
        owned = dealt + state.bought[1]
        subsets = list(itertools.combinations(range(len(owned)), count))
        for chosen in subsets:
            key = (tuple(sorted(dealt)), tuple(sorted(owned[i] for i in chosen)))
            expected[key] += Fraction(1, len(perms) * len(subsets))
    observed = Counter()
    for seed in range(SAMPLES):
        world = game.determinize(view, seed)
        mortgaged = [g for g, c in world.mortgaged[1].items() for _ in range(c)]
        observed[(tuple(sorted(world.dealt[1])), tuple(sorted(mortgaged)))] += 1
    _assert_uniform(observed, {k: float(p) for k, p in expected.items()})


def test_meuterer_hands_are_uniform():
    """The number of conflict cards in another hand follows the hypergeometric law."""
    game = engine.get_game("meuterer")
    state = game.new_game(4, seed=5)
    seat = state.current_player()
    other = (seat + 1) % 4
    view = _wire(state.view(seat))
    unseen = [c for k in range(4) if k != seat for c in state.hands[k]] + state.deck
    expected = _hypergeometric(len(unseen), unseen.count("conflict"), len(state.hands[other]))
    observed = Counter(
        game.determinize(view, s).hands[other].count("conflict") for s in range(SAMPLES)
    )
    _assert_uniform(observed, expected)


@pytest.mark.parametrize(("viewer", "worlds"), [("captain", 60), (1, 3), (2, 2)])
def test_meuterer_characters_are_uniform_among_those_the_view_allows(viewer, worlds):
    """Every assignment of characters that leaves the seat's view unchanged, equally often.

    Three seats have chosen; the captain saw none of it. A later chooser knows
    that those before it took what it was not offered (in some order), and
    the middle one that the last took one of the others.
    """
    game = engine.get_game("meuterer")
    state = _find("meuterer", 4, lambda st: st.phase == "offer" and len(st.choice_order) == 3)
    seat = state.captain if viewer == "captain" else state.choice_order[viewer]
    view = _wire(state.view(seat))
    choosers = [k for k in state.choice_order if k != seat]
    possible = [
        names
        for names in itertools.permutations(CHARACTERS, len(choosers))
        if _shows_the_same_view(state, dict(zip(choosers, names, strict=True)), seat, view)
    ]
    assert len(possible) == worlds
    observed = Counter(
        tuple(game.determinize(view, s).characters[k] for k in choosers) for s in range(SAMPLES)
    )
    _assert_uniform(observed, {names: 1 / len(possible) for names in possible})


def _shows_the_same_view(state, characters, seat, view):
    """Whether a world where these seats took these characters shows `seat` this view."""
    variant = state.clone()
    for k, name in characters.items():
        variant.characters[k] = name
    available = list(CHARACTERS)
    for k in variant.choice_order:
        if variant.characters[k] not in available:
            return False  # taken twice
        variant.seen_available[k] = tuple(available)
        available.remove(variant.characters[k])
    variant.available = available
    return _wire(variant.view(seat)) == view


def test_caravelas_hidden_cards_are_uniform():
    """Another seat's green places, the pile's top card and its movement hand."""
    game = engine.get_game("caravelas")
    state = game.new_game(3, seed=4)
    view = _wire(state.view(0))
    greens = [p for p, (c, _) in caravelas_data.DISCOVERIES.items() if c == caravelas_data.GREEN]
    unknown = [p for p in caravelas_data.DISCOVERIES if p not in state.secret[0]]
    unknown_greens = [p for p in greens if p not in state.secret[0]]
    unseen = [v for k in (1, 2) for v in state.hand[k]] + state.deck
    pairs, tops, fives = Counter(), Counter(), Counter()
    for s in range(SAMPLES):
        world = game.determinize(view, s)
        pairs[tuple(sorted(p for p in world.secret[1] if p in greens))] += 1
        tops[world.pile[0]] += 1
        fives[world.hand[1].count(5)] += 1
    _assert_uniform(
        pairs,
        {
            pair: 1 / math.comb(len(unknown_greens), 2)
            for pair in itertools.combinations(sorted(unknown_greens), 2)
        },
    )
    # By symmetry every unknown place is on top of the pile equally often.
    _assert_uniform(tops, {p: 1 / len(unknown) for p in unknown})
    _assert_uniform(fives, _hypergeometric(len(unseen), unseen.count(5), 4))


def test_caravelas_never_gives_a_seat_the_place_its_fleet_stands_on():
    """A card held there would have been revealed on arrival; the rest stay uniform."""
    game = engine.get_game("caravelas")
    state = game.new_game(2, seed=6)
    greens = [p for p, (c, _) in caravelas_data.DISCOVERIES.items() if c == caravelas_data.GREEN]
    unknown_greens = [p for p in greens if p not in state.secret[0]]
    here = next(p for p in unknown_greens if p not in state.secret[1])
    state.setup_position(pos=["lisboa", here])
    view = _wire(state.view(0))
    allowed = sorted(p for p in unknown_greens if p != here)
    pairs = Counter()
    for s in range(SAMPLES):
        world = game.determinize(view, s)
        assert here not in world.secret[1]
        pairs[tuple(sorted(p for p in world.secret[1] if p in greens))] += 1
    _assert_uniform(
        pairs, {pair: 1 / math.comb(len(allowed), 2) for pair in itertools.combinations(allowed, 2)}
    )
