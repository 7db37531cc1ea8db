"""The generic engine contract, run against every registered game.

Random legal play to the end for every supported player count, with checks at
each decision: consistency, rejection of illegal actions without side effects,
determinism, JSON views, replays, and that a seat's view hides what it may not
know (resampling everything hidden from it leaves its view unchanged). Also:
every view's common keys, and that what a game declares (`capabilities`) holds.
The shapes of views and actions are checked against each game's schema in
`test_schemas.py`.
"""

from __future__ import annotations

import itertools
import json
import random

import pytest

import engine
from engine import IllegalAction

MAX_STEPS = 20_000


def _cases(seeds):
    for name in engine.game_names():
        game = engine.get_game(name)
        for n in range(game.min_players, game.max_players + 1):
            for seed in seeds:
                yield pytest.param(name, n, seed, id=f"{name}-{n}p-s{seed}")


def _snapshot(state):
    """Everything observable about a state, as JSON text."""
    return json.dumps(
        {
            "views": [state.view(s) for s in range(state.num_players)],
            "current": state.current_player(),
            "legal": state.legal_actions(),
            "over": state.is_over(),
            "history": len(state.history),
        },
        sort_keys=True,
    )


def _old_versions():
    """Every (game, older version it replays), with the smallest and largest table."""
    for name in engine.game_names():
        game = engine.get_game(name)
        for version in game.replays:
            for n in sorted({game.min_players, game.max_players}):
                yield pytest.param(name, version, n, id=f"{name}-{version}-{n}p")


def _play(name, n, seed, choice_seed, *, every_step=None, version=None):
    """Play random legal moves to the end; call every_step(state, legal) before each move."""
    state = engine.get_game(name).new_game(n, seed=seed, version=version)
    chooser = random.Random(choice_seed)
    steps = 0
    while not state.is_over():
        legal = state.legal_actions()
        if every_step:
            every_step(state, legal)
        state.apply(chooser.choice(legal))
        steps += 1
        assert steps < MAX_STEPS, "game did not end"
    return state


@pytest.mark.parametrize(("name", "n", "seed"), list(_cases(range(12))))
def test_random_play_reaches_a_valid_end(name, n, seed):
    def check(state, legal):
        seat = state.current_player()
        assert isinstance(seat, int) and 0 <= seat < n
        assert legal, "a player on move must have at least one legal action"
        assert json.loads(json.dumps(legal)) == legal
        assert all(isinstance(a, dict) and "type" in a for a in legal)

    state = _play(name, n, seed, seed, every_step=check)
    assert state.current_player() is None
    assert state.legal_actions() == []
    result = state.result()
    assert len(result["scores"]) == n and len(result["ranks"]) == n
    assert json.loads(json.dumps(result)) == result
    order = sorted(range(n), key=lambda s: result["ranks"][s])
    assert result["ranks"][order[0]] == 1
    for a, b in itertools.pairwise(order):
        assert result["ranks"][a] <= result["ranks"][b]
    with pytest.raises(IllegalAction):
        state.apply(random.Random(seed).choice([{"type": "pass"}, {}]))


@pytest.mark.parametrize(("name", "n", "seed"), list(_cases(range(3))))
def test_illegal_actions_are_rejected_and_change_nothing(name, n, seed):
    chooser = random.Random(seed)

    def check(state, legal):
        if chooser.random() > 0.2:
            return
        before = _snapshot(state)
        bad = [
            {"type": "no_such_action"},
            {},
            "pass",
            None,
            [legal[0]],
            {**legal[0], "extra": 1},
        ]
        for action in bad:
            with pytest.raises(IllegalAction):
                state.apply(action)
        assert _snapshot(state) == before

    _play(name, n, seed, seed, every_step=check)


@pytest.mark.parametrize(("name", "n", "seed"), list(_cases(range(3))))
def test_same_seed_and_actions_give_identical_states(name, n, seed):
    def trace(choice_seed):
        snaps = []
        final = _play(
            name, n, seed, choice_seed, every_step=lambda s, _l: snaps.append(_snapshot(s))
        )
        snaps.append(_snapshot(final))
        return snaps, final

    first, final = trace(99)
    second, _ = trace(99)
    assert first == second
    # A different seed must be able to give a different game.
    other = _play(name, n, seed + 1000, 99)
    assert _snapshot(other) != _snapshot(final) or other.history != final.history


@pytest.mark.parametrize(("name", "n", "seed"), list(_cases(range(3))))
def test_replay_rebuilds_every_view(name, n, seed):
    views = []
    final = _play(
        name,
        n,
        seed,
        seed + 7,
        every_step=lambda s, _l: views.append([s.view(k) for k in range(n)]),
    )
    views.append([final.view(k) for k in range(n)])
    for step in views:
        for v in step:
            assert json.loads(json.dumps(v)) == v

    record = json.loads(json.dumps(final.record()))
    assert record["game"] == name and record["players"] == n and record["seed"] == seed
    assert record["result"] == final.result()
    rebuilt = engine.replay(record)
    assert rebuilt.is_over() and rebuilt.result() == final.result()

    # Step by step, the views match those seen while playing.
    game = engine.get_game(name)
    state = game.new_game(n, seed=seed, options=record["options"])
    for i, (seat, action) in enumerate(record["actions"]):
        assert [state.view(k) for k in range(n)] == views[i]
        assert state.current_player() == seat
        state.apply(action)
    assert [state.view(k) for k in range(n)] == views[-1]


@pytest.mark.parametrize(("name", "n", "seed"), list(_cases(range(3))))
def test_a_view_does_not_depend_on_what_the_seat_cannot_see(name, n, seed):
    chooser = random.Random(seed)
    changed_any = []

    def check(state, legal):
        if chooser.random() > 0.15:
            return
        for seat in range(n):
            variant = state.hidden_variant(seat, chooser.randrange(1 << 30))
            assert variant.view(seat) == state.view(seat)
            if state.current_player() == seat:
                assert variant.legal_actions() == legal
            others = [k for k in range(n) if k != seat]
            if any(variant.view(k) != state.view(k) for k in others):
                changed_any.append(seat)

    _play(name, n, seed, seed, every_step=check)
    # The resampling must really change hidden things, or this test proves nothing.
    assert changed_any


@pytest.mark.parametrize("name", engine.game_names())
def test_spectate_is_json_and_holds_every_seats_view(name):
    """Each view value is either on the spectator's table or in that seat's private part."""
    n = engine.get_game(name).max_players

    def check(state, legal):
        full = state.spectate()
        assert json.loads(json.dumps(full)) == full
        assert full["seat"] is None and len(full["private"]) == n
        for seat in range(n):
            own = full["private"][seat]
            for key, value in state.view(seat).items():
                if key in ("seat", "events"):
                    continue
                assert (own[key] if key in own else full[key]) == value, (seat, key)

    state = _play(name, n, 1, 1, every_step=check)
    check(state, [])


def test_replay_rejects_a_tampered_record():
    for name in engine.game_names():
        game = engine.get_game(name)
        state = _play(name, game.min_players, 5, 5)
        record = state.record()
        bad = json.loads(json.dumps(record))
        bad["actions"][0][0] = (bad["actions"][0][0] + 1) % game.min_players
        with pytest.raises(ValueError):
            engine.replay(bad)
        wrong_version = {**record, "engine_version": "not-a-version"}
        with pytest.raises(ValueError):
            engine.replay(wrong_version)


def test_registry_names_and_errors():
    names = engine.game_names()
    assert names == sorted(names)
    for name in names:
        game = engine.get_game(name)
        assert game.name == name
        assert 2 <= game.min_players <= game.max_players
        with pytest.raises(ValueError):
            game.new_game(game.max_players + 1, seed=1)
        with pytest.raises(ValueError):
            game.new_game(game.min_players, seed=1, options={"no_such_option": True})
    with pytest.raises(ValueError, match="unknown game"):
        engine.get_game("chess")


@pytest.mark.parametrize("name", engine.game_names())
def test_an_equal_action_of_other_types_is_applied_as_the_engines_own(name):
    """41.0 for 41 passes `==`: the engine then applies and records its own dict."""
    game = engine.get_game(name)
    state = game.new_game(game.min_players, seed=5)
    while not state.is_over():
        legal = state.legal_actions()
        ints = [a for a in legal if any(type(v) is int for v in a.values())]
        if ints:
            mine = {k: float(v) if type(v) is int else v for k, v in ints[0].items()}
            state.apply(mine)
            recorded = state.history[-1][1]
            assert recorded == ints[0]
            assert [type(v) for v in recorded.values()] == [type(v) for v in ints[0].values()]
            return
        state.apply(legal[0])
    pytest.skip(f"{name} never offered an action with an integer")


@pytest.mark.parametrize("name", engine.game_names())
def test_setup_position_takes_public_fields_only_and_drops_the_cached_legal_list(name):
    game = engine.get_game(name)
    state = game.new_game(game.min_players, seed=2)
    before = state.legal_actions()
    with pytest.raises(AttributeError, match="no public field '_legal_cache'"):
        state.setup_position(_legal_cache=None)
    with pytest.raises(AttributeError, match="no public field 'no_such_field'"):
        state.setup_position(no_such_field=1)
    assert state.legal_actions() == before  # a refused set-up changes nothing
    state.setup_position(seed=state.seed)  # a public field: taken, and nothing else moves
    assert state.legal_actions() == before


# -- rules versions: old records replay under their own rules ----------------------
@pytest.mark.parametrize(("name", "version", "n"), list(_old_versions()))
def test_an_older_version_plays_hides_and_replays_as_itself(name, version, n):
    """A state of an older version keeps the contract and its records rebuild it."""
    chooser = random.Random(n)
    views = []

    def check(state, legal):
        views.append([state.view(k) for k in range(n)])
        if chooser.random() < 0.1:
            for seat in range(n):
                variant = state.hidden_variant(seat, chooser.randrange(1 << 30))
                assert variant.view(seat) == state.view(seat)
                assert variant.version == version

    final = _play(name, n, 4, 4, every_step=check, version=version)
    assert final.version == version
    record = json.loads(json.dumps(final.record()))
    assert record["engine_version"] == version
    assert engine.replay(record).result() == final.result()
    state = engine.replay_start(record)
    assert state.version == version and state.history == []
    for i, (_seat, action) in enumerate(record["actions"]):
        assert [state.view(k) for k in range(n)] == views[i]
        state.apply(action)
    full = final.spectate()  # a view without a later version's private key
    assert json.loads(json.dumps(full)) == full


@pytest.mark.parametrize("name", engine.game_names())
def test_a_version_this_engine_cannot_replay_is_refused_with_a_clear_message(name):
    game = engine.get_game(name)
    record = _play(name, game.min_players, 3, 3).record()
    unknown = f"{name}-0"
    for version in (unknown, "not-a-version", 7):
        with pytest.raises(ValueError) as refused:
            engine.replay({**record, "engine_version": version})
        message = str(refused.value)
        assert repr(version) in message and game.version in message
        assert all(old in message for old in game.replays)
        with pytest.raises(ValueError, match="cannot replay"):
            engine.replay_start({**record, "engine_version": version})
    with pytest.raises(ValueError, match=unknown):
        game.new_game(game.min_players, seed=1, version=unknown)


@pytest.mark.parametrize("name", engine.game_names())
def test_the_current_version_is_the_default_and_a_record_without_one_plays_it(name):
    game = engine.get_game(name)
    assert game.version not in game.replays
    state = game.new_game(game.min_players, seed=2)
    assert state.version == game.version == state.record()["engine_version"]
    same = game.new_game(game.min_players, seed=2, version=game.version)
    assert same.version == game.version and same.view(0) == state.view(0)
    record = _play(name, game.min_players, 2, 2).record()
    del record["engine_version"]
    assert engine.replay(record).version == game.version
    with pytest.raises(AttributeError):
        state.setup_position(_version=game.replays[0] if game.replays else "x")


# -- what a game declares ------------------------------------------------------------
@pytest.mark.parametrize("name", engine.game_names())
def test_declared_capabilities_are_what_the_states_do(name):
    """The service reads `capabilities` instead of probing: each must hold."""
    game = engine.get_game(name)
    declared = game.capabilities
    state = _play(name, game.min_players, 6, 6)
    if declared.spectate:
        assert state.spectate()["spectator"] is True
    else:
        with pytest.raises(NotImplementedError):
            state.spectate()
    if declared.pause_after is not None:
        assert declared.pause_after in {event["event"] for event in state.log}
    with pytest.raises(AttributeError):
        declared.spectate = not declared.spectate
    with pytest.raises(AttributeError):
        game.capabilities = declared


def _every_version():
    for name in engine.game_names():
        game = engine.get_game(name)
        for version in (game.version, *game.replays):
            yield pytest.param(name, version, id=f"{name}-{version}")


@pytest.mark.parametrize(("name", "version"), list(_every_version()))
def test_every_view_carries_the_common_keys(name, version):
    """`game`, `seat` and `phase` in every view of every rules version, whatever the game."""
    n = engine.get_game(name).max_players

    def check(state, legal):
        for seat in range(n):
            view = state.view(seat)
            assert view["game"] == name and view["seat"] == seat
            assert isinstance(view["phase"], str) and view["phase"]

    state = _play(name, n, 8, 8, every_step=check, version=version)
    check(state, [])
