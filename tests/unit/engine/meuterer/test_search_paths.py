"""The shortcuts Meuterer takes for search keep the contract.

Its legal lists hold action dicts made once for every game, handed out as they
are (read-only, a discard's card list too); so a caller that edits what it was
given (a legal list, a legal action, a record's action) must never reach them;
and a world built from a view parsed from JSON plays on the engine's own strings.
"""

from __future__ import annotations

import json
import random
from itertools import combinations

import pytest

from engine import IllegalAction, get_game
from engine.core import SharedAction, SharedList
from engine.meuterer.data import CARDS, ISLANDS, buys, sort_cards
from engine.meuterer.state import _PLAYS, OFFER, SEQUENCE_KINDS, MeutererState

GAME = get_game("meuterer")


def _play(state: MeutererState, chooser: random.Random, steps: int) -> None:
    for _ in range(steps):
        if state.is_over():
            return
        state.apply(chooser.choice(state.legal_actions()))


def _scribble(action: dict) -> None:
    """Change an action dict every way a careless caller might.

    A shared action refuses every edit (and stays as it was); others take them.
    """
    if type(action) is SharedAction:
        before = dict(action)
        for key in list(action):
            with pytest.raises(TypeError, match="read-only"):
                action[key] = "scribbled"
        with pytest.raises(TypeError, match="read-only"):
            action["extra"] = 1
        assert action == before
        action = dict(action)
    for key in list(action):
        action[key] = "scribbled"
    action["extra"] = 1


def _scribble_list(legal: list) -> None:
    """Edit a legal list itself: drop, reorder, add."""
    legal.reverse()
    legal.pop()
    legal.append({"type": "scribbled"})


def test_editing_legal_and_recorded_actions_changes_no_game():
    fresh = [GAME.new_game(n, seed=5) for n in (3, 4)]
    legal_before = [state.legal_actions() for state in fresh]
    state, chooser = GAME.new_game(4, seed=11), random.Random(11)
    for _ in range(1_000):  # a game is some 120 decisions; bounded should the rules break
        if state.is_over():
            break
        legal = state.legal_actions()
        state.apply(chooser.choice(legal))
        for action in legal:
            _scribble(action)
        _scribble_list(legal)
        if not state.is_over():
            _scribble_list(state.legal_actions())
    assert state.is_over()
    for _seat, action in state.record()["actions"]:
        _scribble(action)
    # Other games, new and old, still offer and accept the actions they did.
    assert [s.legal_actions() for s in fresh] == legal_before
    for s in fresh:
        s.apply(s.legal_actions()[-1])
    again, chooser = GAME.new_game(4, seed=11), random.Random(11)
    _play(again, chooser, 1_000)
    assert again.result() == state.result()


def test_an_edited_legal_action_is_refused_and_the_list_stays():
    state = GAME.new_game(3, seed=2)
    _play(state, random.Random(2), 3)
    legal = state.legal_actions()
    edited = dict(legal[0], card="gold")
    with pytest.raises(IllegalAction):
        state.apply(edited)
    with pytest.raises(TypeError, match="read-only"):
        legal[0]["type"] = "scribbled"
    legal[0] = dict(legal[0], type="scribbled")
    assert state.legal_actions()[0]["type"] != "scribbled"


def test_every_action_is_handed_out_shared_and_kept_in_the_history_as_such():
    state, chooser = GAME.new_game(4, seed=8), random.Random(8)
    discards = 0
    while not state.is_over():
        legal = state.legal_actions()
        assert legal is not state.legal_actions()  # a fresh list every time
        assert all(type(a) is SharedAction for a in legal)
        chosen = chooser.choice(legal)
        if state.phase == "discard":
            discards += 1
            assert all(type(a["cards"]) is SharedList for a in legal)
        # A caller's equal plain dict (as JSON brings it) is accepted; the engine keeps its own.
        state.apply(json.loads(json.dumps(chosen)))
        _seat, kept = state.history[-1]
        assert kept is chosen
    assert discards
    for _seat, action in state.record()["actions"]:
        assert type(action) is dict and type(action.get("cards", [])) is list


@pytest.mark.parametrize("players", [3, 4])
def test_a_world_from_a_parsed_view_holds_the_engines_own_strings(players):
    state, chooser = GAME.new_game(players, seed=players), random.Random(players)
    for _ in range(200):  # to the first offer with a card on the table
        if state.phase == OFFER and state.table:
            break
        _play(state, chooser, 1)
    seat = state.current_player()
    view = json.loads(json.dumps(state.view(seat)))
    world = GAME.determinize(view, 7)
    assert world.phase is OFFER
    assert view["hand"][0] is not CARDS[CARDS.index(view["hand"][0])]  # parsed: another str
    own = {card: card for card in CARDS}
    assert all(card is own[card] for card in world.hands[seat])
    assert all(card is own[card] for _seat, card, _island, _stage in world.table)
    assert world.view(seat) | {"events": []} == view | {"events": []}


def _to_discard(seed: int) -> MeutererState:
    """A 4-player game played at random to the stevedore's first discard."""
    state, chooser = GAME.new_game(4, seed=seed), random.Random(seed)
    while state.phase != "discard":
        assert not state.is_over(), "no discard in this game: pick another seed"
        _play(state, chooser, 1)
    return state


def test_editing_a_discards_card_list_reaches_neither_the_game_nor_its_record():
    seed = next(s for s in range(50) if _has_discard(s))
    state = _to_discard(seed)
    legal = state.legal_actions()
    before = [dict(a, cards=list(a["cards"])) for a in legal]
    for action in legal:
        with pytest.raises(TypeError, match="read-only"):
            action["cards"].append("scribbled")
        list(action["cards"]).append("scribbled")  # a copy is the caller's
    assert state.legal_actions() == before
    chosen = state.legal_actions()[0]
    state.apply(chosen)
    recorded = state.record()["actions"][-1][1]
    recorded["cards"].append("scribbled")
    assert state.history[-1][1] == before[0] == state.record()["actions"][-1][1]
    # The memo other games share holds the same lists still.
    assert _to_discard(seed).legal_actions() == before


def _has_discard(seed: int) -> bool:
    state, chooser = GAME.new_game(4, seed=seed), random.Random(seed)
    while not state.is_over():
        if state.phase == "discard":
            return True
        _play(state, chooser, 1)
    return False


def test_the_offer_table_holds_every_play_the_rules_allow_in_card_order():
    held_options = (None, *CARDS[:-1])
    for key, plays in _PLAYS.items():
        islands, held = key[::2], key[1::2]
        assert list(islands) == sorted(set(islands))
        expected = [
            (card, {"type": "play", "card": card, "island": island})
            for card in CARDS[:-1]
            for island, good in zip(islands, held, strict=True)
            if ISLANDS[island].buys in ("any", card) and good in (None, card)
        ]
        assert [(card, dict(action)) for card, action in plays] == expected
    every = len(ISLANDS) * len(held_options) * (1 + (len(ISLANDS) - 1) * len(held_options) / 2)
    assert len(_PLAYS) == every


@pytest.mark.parametrize("players, seed", [(p, s) for p in (3, 4) for s in range(p, p + 20, 4)])
def test_the_shared_legal_lists_equal_the_rules_list_built_afresh(players, seed):
    """Offers, characters, mutiny and discards from tables equal a plain build of the rules."""
    state, chooser = GAME.new_game(players, seed=seed), random.Random(seed)
    while not state.is_over():
        seat, phase, hand = state.turn, state.phase, state.hands[state.turn]
        if phase == "offer":
            expected = []
            for card in CARDS[:-1]:
                for island in state.active:
                    held = state.sales[island][2 * seat]
                    if card in hand and buys(island, card) and held in (None, card):
                        expected.append({"type": "play", "card": card, "island": island})
            if "conflict" in hand:
                expected.append({"type": "play", "card": "conflict"})
            expected.append({"type": "pass"})
        elif phase == "character":
            expected = [{"type": "character", "name": n} for n in state.available]
        elif phase == "mutiny":
            k = hand.count("conflict")
            expected = [{"type": "mutiny", "conflicts": c} for c in range(k + 1)]
        elif phase == "discard":
            extra = len(hand) - 5
            combos = sorted({tuple(sort_cards(list(c))) for c in combinations(hand, extra)})
            combos.sort(key=lambda c: [CARDS.index(card) for card in c])
            expected = [{"type": "discard", "cards": list(c)} for c in combos]
        else:
            expected = [{"type": "promise", "points": p} for p in range(4)]
        assert state.legal_actions() == expected, (phase, hand)
        _play(state, chooser, 1)


def test_the_log_made_when_read_equals_the_events_as_they_happened_and_view_edits_stay_out():
    """The compact log: read after every move or only at the end, the same dicts; a
    caller's edit of its view's events (their lists too) reaches neither log nor views.
    """
    state, chooser = GAME.new_game(4, seed=3), random.Random(3)
    read_midway = []
    while not state.is_over():
        for event in state.view(state.current_player())["events"]:
            for value in event.values():
                if isinstance(value, list):
                    value.append("scribbled")
        read_midway.extend(json.loads(json.dumps(state.log[len(read_midway) :])))
        state.apply(chooser.choice(state.legal_actions()))
    again, chooser = GAME.new_game(4, seed=3), random.Random(3)
    _play(again, chooser, 1_000)
    assert again.log[: len(read_midway)] == read_midway
    assert state.log == again.log == again.clone().log
    assert "scribbled" not in json.dumps(state.log)
    assert any(e["event"] == "reveal" for e in read_midway)


class _Cards(list):
    """A list of another type, equal to a plain one."""


class _Name(str):
    """A string of another type, equal to a plain one."""


def test_a_discard_is_found_among_the_choices_as_list_index_would_find_it():
    # `apply` looks a plain action's cards up among the stevedore's choices (kept as
    # tuples); whatever is equal to a legal action is taken, the rest refused with
    # the game unchanged, as comparing with each legal action would decide.
    seeds = [s for s in range(60) if _has_discard(s)][:4]
    assert seeds
    for seed in seeds:
        state = _to_discard(seed)
        legal = state.legal_actions()
        assert state._legal_actions() == legal
        cards = legal[-1]["cards"]
        refused = [
            "discard",
            {"type": "discard", "cards": tuple(cards)},
            {"type": "discard", "cards": cards[::-1]} if len(set(cards)) > 1 else {},
            {"type": "discard", "cards": [*cards, cards[0]]},
            {"type": "discard", "cards": cards, "extra": 1},
            {"type": "discard"},
            {"type": "play", "cards": cards},
        ]
        for action in refused:
            before = state.clone()
            with pytest.raises(IllegalAction):
                state.apply(action)
            assert state.history == before.history and state.hands == before.hands
        for equal in (
            json.loads(json.dumps(legal[-1])),
            {"cards": list(cards), "type": "discard"},
            {"type": _Name("discard"), "cards": _Cards(_Name(c) for c in cards)},
        ):
            twin = state.clone()
            twin.apply(equal)
            _seat, recorded = twin.history[-1]
            assert recorded == {"type": "discard", "cards": cards}
            assert all(type(card) is str for card in recorded["cards"])
            reference = state.clone()
            reference.apply(legal[-1])
            assert twin.log == reference.log and twin.hands == reference.hands


@pytest.mark.parametrize("players", [3, 4])
def test_a_world_holds_every_field_of_a_new_game_and_plays_on(players):
    # `determinize` sets each field from the view, none from defaults: a world at
    # any phase has exactly a new game's fields, and plays to the end.
    fields = set(vars(GAME.new_game(players, seed=1)))
    state, chooser = GAME.new_game(players, seed=players), random.Random(players)
    phases = set()
    step = 0
    while not state.is_over():
        view = json.loads(json.dumps(state.view(state.current_player())))
        world = GAME.determinize(view, step)
        assert set(vars(world)) == fields
        phases.add(world.phase)
        _play(world, random.Random(step), 10_000)
        assert world.is_over()
        _play(state, chooser, 1)
        step += 1
    assert phases == {"promise", "offer", "character", "mutiny", "discard"}


@pytest.mark.parametrize("players", [3, 4])
def test_only_the_sequence_kinds_log_a_sequence(players):
    """A view's events skip the copy of lists for the other kinds: they must hold none."""
    state, chooser = GAME.new_game(players, seed=21), random.Random(21)
    _play(state, chooser, 1_000)
    kinds = set()
    for entry in state._events:
        if any(isinstance(value, list | tuple) for value in entry[2:]):
            kinds.add(entry[1])
    assert kinds == SEQUENCE_KINDS
