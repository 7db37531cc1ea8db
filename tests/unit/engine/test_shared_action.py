"""SharedAction: a legal list's action handed out uncopied, read-only, a dict to everything else."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from engine.core import SharedAction, find_legal

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
