"""SharedAction and SharedList: a legal list's action handed out uncopied, read-only all
the way down, a plain dict (and list) to everything else."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from engine.core import SharedAction, SharedList, find_legal, shared

EDITS = [
    ("set", lambda a: a.__setitem__("card", "jade")),
    ("delete", lambda a: a.__delitem__("card")),
    ("clear", lambda a: a.clear()),
    ("pop", lambda a: a.pop("card")),
    ("popitem", lambda a: a.popitem()),
    ("setdefault", lambda a: a.setdefault("island", 2)),
    ("update", lambda a: a.update(card="jade")),
    ("merge in place", lambda a: a.__ior__({"card": "jade"})),
]


@pytest.mark.parametrize("name, edit", EDITS, ids=[name for name, _ in EDITS])
def test_every_edit_is_refused_and_leaves_the_action_as_it_was(name, edit):
    action = SharedAction(type="play", card="silk", island=1)
    with pytest.raises(TypeError, match=r"read-only: edit a copy \(dict\(action\)\)"):
        edit(action)
    assert action == {"type": "play", "card": "silk", "island": 1}


def test_it_is_the_dict_it_holds_to_json_equality_and_isinstance():
    action = SharedAction(type="play", card="silk", island=None)
    plain = {"type": "play", "card": "silk", "island": None}
    assert action == plain and plain == action
    assert isinstance(action, dict)
    assert json.dumps(action) == json.dumps(plain)
    assert json.loads(json.dumps([action])) == [plain]


@pytest.mark.parametrize(
    "make_copy",
    [dict, SharedAction.copy, copy.copy, copy.deepcopy, lambda a: pickle.loads(pickle.dumps(a))],
    ids=["dict", "method", "copy", "deepcopy", "pickle"],
)
def test_every_copy_is_a_plain_editable_dict(make_copy):
    action = SharedAction(type="pass")
    copied = make_copy(action)
    assert type(copied) is dict and copied == action
    copied["type"] = "play"
    assert action == {"type": "pass"}


@pytest.mark.parametrize("value", [[1, 2], {"a": 1}, (1, 2), {1}])
def test_only_json_scalars_may_be_held(value):
    with pytest.raises(TypeError, match="holds JSON scalars"):
        SharedAction(type="load", goods=value)


def test_find_legal_matches_a_plain_reply_to_a_shared_action_by_value_and_type():
    legal = [SharedAction(type="promise", points=p) for p in range(4)]
    assert find_legal(legal, {"type": "promise", "points": 2}) == 2
    # JSON would write these differently: a bot's reply must match type for type.
    assert find_legal(legal, {"type": "promise", "points": 2.0}) is None
    assert find_legal(legal, {"type": "promise", "points": True}) is None
    assert find_legal(legal, {"type": "promise", "points": 9}) is None


LIST_EDITS = [
    ("set", lambda items: items.__setitem__(0, "jade")),
    ("set a slice", lambda items: items.__setitem__(slice(0, 1), ["jade"])),
    ("delete", lambda items: items.__delitem__(0)),
    ("append", lambda items: items.append("jade")),
    ("extend", lambda items: items.extend(["jade"])),
    ("insert", lambda items: items.insert(0, "jade")),
    ("remove", lambda items: items.remove("silk")),
    ("pop", lambda items: items.pop()),
    ("clear", lambda items: items.clear()),
    ("sort", lambda items: items.sort()),
    ("reverse", lambda items: items.reverse()),
    ("add in place", lambda items: items.__iadd__(["jade"])),
    ("repeat in place", lambda items: items.__imul__(2)),
]


@pytest.mark.parametrize("name, edit", LIST_EDITS, ids=[name for name, _ in LIST_EDITS])
def test_every_edit_of_a_shared_list_is_refused_and_leaves_it_as_it_was(name, edit):
    action = shared({"type": "load", "goods": ["silk", "ginseng", "nutmeg"]})
    with pytest.raises(TypeError, match=r"read-only: edit a copy \(list\(items\)"):
        edit(action["goods"])
    assert action == {"type": "load", "goods": ["silk", "ginseng", "nutmeg"]}


def test_a_nested_action_is_read_only_all_the_way_down_and_plain_to_json_and_equality():
    plain = {
        "type": "pilot",
        "moves": [{"good": "silk", "steps": 1}, {"good": "jade", "steps": -1}],
    }
    action = shared(plain)
    assert type(action["moves"]) is SharedList and type(action["moves"][0]) is SharedAction
    with pytest.raises(TypeError, match="read-only"):
        action["moves"][0]["steps"] = 2
    assert action == plain and plain == action and action["moves"] == plain["moves"]
    assert isinstance(action["moves"], list)
    assert json.dumps(action) == json.dumps(plain)
    assert json.loads(json.dumps(action)) == plain


@pytest.mark.parametrize(
    "make_copy",
    [copy.deepcopy, lambda a: pickle.loads(pickle.dumps(a))],
    ids=["deepcopy", "pickle"],
)
def test_a_deep_copy_of_a_nested_action_is_plain_and_editable_all_the_way_down(make_copy):
    action = shared({"type": "start", "positions": {"silk": 4, "jade": 5}, "seen": [[1], [2]]})
    copied = make_copy(action)
    assert copied == action
    assert type(copied) is dict and type(copied["positions"]) is dict
    assert type(copied["seen"]) is list and type(copied["seen"][0]) is list
    copied["positions"]["silk"] = 0
    copied["seen"][0].append(9)
    assert action == {"type": "start", "positions": {"silk": 4, "jade": 5}, "seen": [[1], [2]]}


@pytest.mark.parametrize(
    "make_copy",
    [list, SharedList.copy, copy.copy, lambda items: items[:]],
    ids=["list", "method", "copy", "slice"],
)
def test_a_copy_of_a_shared_list_is_a_plain_editable_list(make_copy):
    items = SharedList(["silk", "jade"])
    copied = make_copy(items)
    assert type(copied) is list and copied == items
    copied.append("nutmeg")
    assert items == ["silk", "jade"]


@pytest.mark.parametrize("value", [[1, 2], {"a": 1}, (1, 2)])
def test_a_shared_list_holds_no_plain_list_or_dict(value):
    with pytest.raises(TypeError, match="holds JSON scalars or shared values"):
        SharedList([value])


def test_find_legal_matches_a_plain_nested_reply_by_value_and_type():
    legal = [shared({"type": "discard", "cards": [c]}) for c in (1, 2, 3)]
    assert find_legal(legal, {"type": "discard", "cards": [2]}) == 1
    assert find_legal(legal, {"type": "discard", "cards": [2.0]}) is None
    assert find_legal(legal, {"type": "discard", "cards": [4]}) is None
