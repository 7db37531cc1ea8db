"""Every view, spectator view and legal action fits its game's declared JSON Schema.

Each game ships `schema.json` (see `engine/schema.py`): per phase the shape of a
view and of one legal action. Random seeded play of every game and table size
checks each seat's view at every step, the spectator's view and every legal
action against the schema of the phase the view shows; mutated views and
actions prove the schemas are tight enough to refuse what does not fit. The
engine has no validator of its own (it imports the standard library only):
the check is `jsonschema_rs`, which the dev extras install.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import random

import jsonschema_rs
import pytest

import engine
from engine import schema as schemas
from engine.caravelas import data as caravelas_data
from engine.manila import data as manila_data
from engine.meuterer import data as meuterer_data

MAX_STEPS = 20_000
# Random games per table size: a Caravelas game is some 2,500 moves, the others ~150.
GAMES = {"manila": 5, "meuterer": 6, "caravelas": 2}
# Options played besides the defaults, each on a few seeds of its own.
OPTIONS = {"manila": [{"pirate_variant": True}, {"deal_from_all_shares": True}]}


def _cases():
    for name in engine.game_names():
        game = engine.get_game(name)
        for n in range(game.min_players, game.max_players + 1):
            for seed in range(GAMES[name]):
                yield pytest.param(name, n, seed, None, id=f"{name}-{n}p-s{seed}")
            for k, options in enumerate(OPTIONS.get(name, [])):
                yield pytest.param(name, n, 100 + k, options, id=f"{name}-{n}p-options{k}")


@functools.cache
def _validator(name: str, *path: str) -> jsonschema_rs.Validator:
    """A validator for one part of a game's schema ("phases", phase, "view"|"action", or
    "spectate"); KeyError when the schema has no such part."""
    return jsonschema_rs.validator_for(schemas.standalone(engine.get_game(name).schema(), *path))


def _problems(name: str, value, *path: str) -> list[str]:
    return [
        f"{'/'.join(map(str, error.instance_path))}: {error.message}"
        for error in _validator(name, *path).iter_errors(value)
    ]


def _refs(node):
    """Every `$ref` in a schema document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


# -- the documents -------------------------------------------------------------------
@pytest.mark.parametrize("name", engine.game_names())
def test_every_game_declares_a_well_formed_schema(name):
    game = engine.get_game(name)
    assert game.schema is not None, f"{name} declares no schema"
    document = game.schema()
    assert document["$schema"] == schemas.DIALECT
    assert document["game"] == name
    phases = document["phases"]
    # The phase enum of the shared table names exactly the phases described.
    assert sorted(document["$defs"]["table"]["properties"]["phase"]["enum"]) == sorted(phases)
    for phase, entry in phases.items():
        assert set(entry) <= {"description", "view", "action"}, phase
        for part in ("view", "action"):
            if part in entry:
                jsonschema_rs.meta.validate(schemas.standalone(document, "phases", phase, part))
    assert ("spectate" in document) == game.capabilities.spectate
    if game.capabilities.spectate:
        jsonschema_rs.meta.validate(schemas.standalone(document, "spectate"))
    # Every reference points into $defs, so any part stands alone beside them.
    for ref in _refs(document):
        assert ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in document["$defs"]


@pytest.mark.parametrize("name", engine.game_names())
def test_the_schema_is_a_fresh_copy_every_call(name):
    game = engine.get_game(name)
    first = game.schema()
    first["phases"].clear()
    assert game.schema()["phases"]


# The schema's enums against the data tables the rules read (enums a random game may
# never reach in full).
ENUMS = [
    ("manila", "good", manila_data.GOODS),
    ("manila", "berth", (*manila_data.HARBOURS, *manila_data.SHIPYARDS)),
    ("manila", "space", manila_data.SPACES),
    ("manila", "price", manila_data.PRICE_TRACK),
    ("meuterer", "card", meuterer_data.CARDS),
    ("meuterer", "good", meuterer_data.GOODS),
    ("meuterer", "character", meuterer_data.CHARACTERS),
    ("caravelas", "colour", caravelas_data.COLOURS),
    ("caravelas", "circle", tuple(c[0] for c in caravelas_data.CIRCLES)),
    ("caravelas", "place", tuple(caravelas_data.DISCOVERIES)),
]


@pytest.mark.parametrize(
    ("name", "definition", "values"), ENUMS, ids=[f"{n}-{d}" for n, d, _ in ENUMS]
)
def test_schema_enums_list_the_games_own_tables(name, definition, values):
    assert engine.get_game(name).schema()["$defs"][definition]["enum"] == list(values)


def test_the_schema_prints_from_a_shell():
    def run(*args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = schemas.main(list(args))
        return code, out.getvalue()

    code, text = run("manila")
    assert code == 0 and json.loads(text) == engine.get_game("manila").schema()
    code, text = run("meuterer", "offer")
    shown = json.loads(text)
    assert code == 0 and shown["phase"] == "offer" and {"view", "action", "$defs"} <= set(shown)
    assert run("meuterer", "no_such_phase")[0] == 2
    assert run("chess")[0] == 2
    assert run()[0] == 2


# -- every view and action of random play ----------------------------------------------
@pytest.mark.parametrize(("name", "n", "seed", "options"), list(_cases()))
def test_random_play_fits_the_schema(name, n, seed, options):
    game = engine.get_game(name)
    phases = game.schema()["phases"]
    state = game.new_game(n, seed=seed, options=options)
    chooser = random.Random(seed)
    seen_actions: set[str] = set()  # an action met again need not be checked again
    steps = 0
    while True:
        for seat in range(n):
            view = state.view(seat)
            assert view["phase"] in phases, f"phase {view['phase']!r} is not in the schema"
            problems = _problems(name, view, "phases", view["phase"], "view")
            assert not problems, (seat, steps, problems)
        if game.capabilities.spectate:
            full = state.spectate()
            assert not _problems(name, full, "spectate"), (steps, _problems(name, full, "spectate"))
        if state.is_over():
            break
        legal = state.legal_actions()
        phase = state.view(state.current_player())["phase"]
        assert "action" in phases[phase], f"{phase!r} has legal actions but no action schema"
        for action in legal:
            key = json.dumps(action, sort_keys=True)
            if key not in seen_actions:
                assert not _problems(name, action, "phases", phase, "action"), action
                seen_actions.add(key)
        state.apply(chooser.choice(legal))
        steps += 1
        assert steps < MAX_STEPS, "game did not end"


# -- the schemas refuse what does not fit ------------------------------------------------
def _with_events(name: str):
    """A small random game at the first decision whose seat on move has events to see."""
    game = engine.get_game(name)
    state = game.new_game(game.max_players, seed=1)
    chooser = random.Random(1)
    while not state.view(state.current_player())["events"]:
        state.apply(chooser.choice(state.legal_actions()))
    return state


def _without(view: dict, key: str) -> dict:
    return {k: v for k, v in view.items() if k != key}


# Each breaks a view that fits: the schema must refuse every one.
BAD_VIEWS = [
    ("an unknown key", lambda v: {**v, "cheat": 1}),
    ("no game", lambda v: _without(v, "game")),
    ("another game's name", lambda v: {**v, "game": "chess"}),
    ("no seat", lambda v: _without(v, "seat")),
    ("a seat as text", lambda v: {**v, "seat": "0"}),
    ("a seat past the table", lambda v: {**v, "seat": 9}),
    ("another phase's name", lambda v: {**v, "phase": "no_such_phase"}),
    ("no events", lambda v: _without(v, "events")),
    ("an unknown event", lambda v: {**v, "events": [{"event": "no_such_event"}]}),
    ("an event with an extra field", lambda v: {**v, "events": [{**v["events"][0], "x": 1}]}),
    ("an event without its kind", lambda v: {**v, "events": [_without(v["events"][0], "event")]}),
]


@pytest.mark.parametrize("name", engine.game_names())
@pytest.mark.parametrize(("what", "breaks"), BAD_VIEWS, ids=[w for w, _ in BAD_VIEWS])
def test_a_view_that_breaks_the_schema_is_refused(name, what, breaks):
    state = _with_events(name)
    view = state.view(state.current_player())
    phase = view["phase"]
    assert not _problems(name, view, "phases", phase, "view")
    assert _problems(name, breaks(view), "phases", phase, "view"), what


@pytest.mark.parametrize("name", engine.game_names())
def test_a_view_is_refused_by_another_phases_schema_and_a_secret_on_the_spectators_table(name):
    phases = engine.get_game(name).schema()["phases"]
    state = _with_events(name)
    view = state.view(state.current_player())
    for other in phases:
        if other != view["phase"]:
            assert _problems(name, view, "phases", other, "view"), other
    full = state.spectate()
    secret = next(iter(full["private"][0]))
    assert _problems(name, {**full, secret: full["private"][0][secret]}, "spectate")
    assert _problems(name, {**full, "private": [{**full["private"][0], "x": 1}]}, "spectate")


@pytest.mark.parametrize("name", engine.game_names())
def test_an_action_that_breaks_the_schema_is_refused(name):
    state = _with_events(name)
    phase = state.view(state.current_player())["phase"]
    action = state.legal_actions()[-1]
    assert not _problems(name, action, "phases", phase, "action")
    for bad in (
        {**action, "extra": 1},
        {**action, "type": "no_such_action"},
        _without(action, "type"),
        {"type": action["type"], **{k: [v] for k, v in action.items() if k != "type"}},
        [action],
        "pass",
    ):
        if bad == action:  # an action of "type" alone has no field to wrap
            continue
        assert _problems(name, bad, "phases", phase, "action"), bad
