"""Manila's shortcuts for search hold to the plain rules.

The state keeps caches derived from its fields (what each seat's shares raise and
may mortgage or redeem, which spaces are free) and shares its own action dicts
with its history. Each test plays random games and checks that a cache always
says what its fields say, that a state rebuilt without the caches offers the same
legal list, and that nothing a caller is handed can change the state.
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from engine import IllegalAction
from engine.core import SharedAction, SharedList
from engine.manila import actions as A
from engine.manila import events as E
from engine.manila.state import free_spaces
from tests.unit.engine.manila.helpers import new

CASES = [(n, seed, options) for n in (3, 4, 5) for seed in (1, 2) for options in ({},)]
CASES += [(4, 3, {"pirate_variant": True}), (5, 4, {"deal_from_all_shares": True})]


def _decisions(n, seed, options):
    state, chooser = new(n, seed, **options), random.Random(seed)
    while not state.is_over():
        legal = state.legal_actions()
        yield state, legal
        state.apply(chooser.choice(legal))


def _without_caches(state):
    """A clone whose caches are rebuilt from its fields alone."""
    plain = state.clone()
    plain._purse = [None] * plain.num_players
    plain._free = free_spaces(plain.spaces)
    plain._legal_cache = None
    return plain


@pytest.mark.parametrize(("n", "seed", "options"), CASES)
def test_the_caches_say_what_the_fields_say(n, seed, options):
    for state, legal in _decisions(n, seed, options):
        assert state._free == free_spaces(state.spaces)
        for seat in range(n):
            cached = state._purse[seat]
            if cached is not None:
                assert cached == _without_caches(state)._shares_of(seat)
        assert _without_caches(state).legal_actions() == legal


@pytest.mark.parametrize(("n", "seed", "options"), CASES[:3])
def test_a_clone_shares_no_cache(n, seed, options):
    for k, (state, _legal) in enumerate(_decisions(n, seed, options)):
        if k % 17 == 0:
            twin = state.clone()
            assert twin._purse == state._purse and twin._purse is not state._purse


def _edit(action: dict) -> None:
    """Edit a handed-out action every way it allows: a shared one refuses, its lists and
    dicts too, so its deep copy."""
    if isinstance(action, SharedAction):
        before = copy.deepcopy(action)
        with pytest.raises(TypeError, match="read-only"):
            action["type"] = "edited"
        for value in action.values():
            if isinstance(value, list | dict):
                with pytest.raises(TypeError, match="read-only"):
                    value.clear()
        assert action == before and type(before) is dict
        action = copy.deepcopy(action)
    action["type"] = "edited"
    for value in action.values():
        if isinstance(value, dict):
            value.clear()
        elif isinstance(value, list):
            value.append("edited")


def test_handed_out_dicts_can_be_edited_without_touching_the_state():
    """Legal actions, views and a record's actions are the caller's to keep and edit."""
    state, twin = new(4, 5), new(4, 5)
    chooser = random.Random(5)
    while not state.is_over():
        legal, same = state.legal_actions(), twin.legal_actions()
        assert legal == same
        view = state.view(state.current_player())
        index = chooser.randrange(len(legal))
        state.apply(legal[index])
        twin.apply(same[index])
        for action in legal:  # edited after it was applied: the history must not see it
            _edit(action)
        view["cash"].append(1)
        view["my_shares"].clear()
        record = state.record()
        for _seat, action in record["actions"]:
            action.clear()
    assert json.dumps(state.record()) == json.dumps(twin.record())
    assert state.result() == twin.result()


def test_the_history_keeps_the_engines_own_dict_and_the_record_hands_out_copies():
    state = new(4, 6)
    while state.phase != "start":
        state.apply(state.legal_actions()[0])
    offered = state.legal_actions()
    state.apply(json.loads(json.dumps(offered[3])))  # a bot's equal reply, over the wire
    _seat, kept = state.history[-1]
    assert kept is offered[3] and isinstance(kept["positions"], SharedAction)
    recorded = state.record()["actions"][-1][1]
    assert recorded == kept and type(recorded) is dict and type(recorded["positions"]) is dict
    recorded["positions"].clear()
    assert kept["positions"] and state.record()["actions"][-1][1] == kept


def test_an_identical_an_equal_and_an_illegal_action():
    """The dict handed out, an equal one built by the caller, and one not offered."""
    one, two = new(3, 8), new(3, 8)
    chooser = random.Random(8)
    while not one.is_over():
        legal = one.legal_actions()
        action = legal[chooser.randrange(len(legal))]
        with pytest.raises(IllegalAction):
            one.apply({**action, "extra": 1})
        one.apply(action)
        two.apply(json.loads(json.dumps(action)))
    assert json.dumps(one.record()) == json.dumps(two.record())
    with pytest.raises(IllegalAction, match="over"):
        one.apply({"type": "pass"})


def test_the_pilot_table_gives_what_the_moves_are():
    """A boat beyond space 2 is offered what a boat on 2 is; loaded out of order: built."""
    for (large, boats), moves in A.PILOTS.items():
        assert moves == A.pilot_moves(large, boats)
        far = tuple((g, pos + 7 if pos == 2 else pos) for g, pos in boats)
        assert A.pilot_moves(large, far) == moves
    backwards = (("nutmeg", 1), ("jade", 0))
    state = new(4, 1)
    state.setup_position(
        loaded=["nutmeg", "jade"],
        position={"nutmeg": 1, "jade": 0},
        berth={"nutmeg": None, "jade": None},
    )
    assert state._pilot_actions("large_pilot") == A.pilot_moves(True, backwards)


def test_editing_a_views_events_leaves_the_log_alone():
    """Rolls, loads, starts, pilots and prices hold lists and dicts: a view hands out copies."""
    state, chooser = new(4, 9), random.Random(9)
    while not state.is_over():
        seat = state.current_player()
        logged = json.dumps(state.log)
        for event in state.view(seat)["events"]:
            for value in event.values():
                if isinstance(value, dict):
                    value.clear()
                elif isinstance(value, list):
                    value.append("edited")
        assert json.dumps(state.log) == logged
        legal = state.legal_actions()
        state.apply(legal[chooser.randrange(len(legal))])


@pytest.mark.parametrize(("n", "seed", "options"), CASES)
def test_every_event_holding_a_list_or_dict_is_copied_for_views(n, seed, options):
    state, chooser = new(n, seed, **options), random.Random(seed)
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
    for entry in state._events:  # a whole game's log
        if any(isinstance(value, list | dict) for value in entry[2:]):
            assert entry[1] in E.NESTED_KINDS, entry


def test_every_action_goes_out_shared_and_read_only_all_the_way_down():
    """Every action, a load, start or pilot move too, is one read-only dict for every
    caller (its list or dict read-only as well); a record's actions are plain."""
    state, chooser = new(4, 11, pirate_variant=True), random.Random(11)
    nested = set()
    while not state.is_over():
        legal, again = state.legal_actions(), state.legal_actions()
        assert legal is not again and legal == again
        for mine, other in zip(legal, again, strict=True):
            assert isinstance(mine, SharedAction) and mine is other
            for value in mine.values():
                if isinstance(value, list | dict):
                    nested.add(state.phase)
                    assert isinstance(value, SharedList | SharedAction)
        state.apply(legal[chooser.randrange(len(legal))])
    assert nested == {"load", "start", "pilot"}
    for _seat, action in state.record()["actions"]:
        assert type(action) is dict
        assert all(type(v) in (list, dict) for v in action.values() if isinstance(v, list | dict))


def test_editing_a_legal_list_never_reaches_the_state():
    """The list is the caller's: emptying it or adding to it changes nothing offered."""
    state, chooser = new(3, 12), random.Random(12)
    while not state.is_over():
        legal = state.legal_actions()
        kept = list(legal)
        legal.clear()
        legal.append({"type": "bid", "amount": 10**6})
        assert state.legal_actions() == kept
        with pytest.raises(IllegalAction):
            state.apply(legal[0])
        state.apply(kept[chooser.randrange(len(kept))])


def test_every_table_action_is_shared_and_equal_to_its_plain_form():
    tables = [A.PASS, A.STAY, *A.BIDS, *A.BUY.values(), *A.MORTGAGES, *A.REDEEMS]
    tables += [*A.PLACE_BOAT.values(), *A.PLACE_SPACE, *A.BOARD.values()]
    tables += [a for pair in A.PLUNDER.values() for a in pair]
    for action in tables:
        assert isinstance(action, SharedAction)
        assert json.loads(json.dumps(action)) == action
    assert A.bids(A.BID_TABLE - 1, A.BID_TABLE + 1)[1:] == [
        {"type": "bid", "amount": a} for a in range(A.BID_TABLE - 1, A.BID_TABLE + 2)
    ]


@pytest.mark.parametrize(("n", "seed", "options"), CASES[:4])
def test_an_auction_offers_pass_then_every_bid_it_can_raise(n, seed, options):
    """The bid list sliced from the table, held to the plain rule."""
    for state, legal in _decisions(n, seed, options):
        if state.phase != "auction":
            continue
        seat = state.current_player()
        cap = state.capacity(seat)
        bids = [a for a in legal if a["type"] in ("pass", "bid")]
        assert bids == [{"type": "pass"}] + [
            {"type": "bid", "amount": a} for a in range(state.high_bid + 1, cap + 1)
        ]
    state = new(3, 1)  # nothing to raise: the pass alone
    state.setup_position(cash=[0, 0, 0], held=[dict.fromkeys(A.GOOD_BIT, 0)] * 3)
    assert state.legal_actions() == [{"type": "pass"}]
