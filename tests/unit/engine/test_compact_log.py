"""CompactLog: events kept as tuples, made dicts once when read, fresh ones for a view."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from engine.core import CompactLog, EventShape, State


class Toy(CompactLog, State):
    """Just enough of a game to log events."""

    game_name = "toy"
    engine_version = "toy-1"

    def __init__(self) -> None:
        super().__init__(2, seed=1, options=None)

    def current_player(self) -> int | None:
        return 0


def test_events_are_dicts_only_once_read_and_the_log_is_one_growing_list():
    state = Toy()
    state.emit("roll", dice=[3, 4])
    assert state._events == [(("event", "dice"), "roll", [3, 4])] and state._log_dicts == []
    log = state.log
    assert log == [{"event": "roll", "dice": [3, 4]}]
    state.emit("pass", seat=1)
    assert state.log is log and log[-1] == {"event": "pass", "seat": 1}


def test_a_seats_events_since_its_decision_are_fresh_all_the_way_down():
    state = Toy()
    state.emit("roll", dice=[3, 4])
    mine = state.events_since_last_decision(0)
    mine[0]["dice"].append(6)
    mine[0]["event"] = "edited"
    assert state.log == [{"event": "roll", "dice": [3, 4]}]
    state._seen[0] = 1
    assert state.events_since_last_decision(0) == []


def test_a_log_set_from_dicts_reads_back_the_same():
    state = Toy()
    events = [{"event": "start", "seat": 0}, {"event": "roll", "dice": [1, 2]}]
    state.log = events
    assert state.log == events
    state.emit("pass", seat=1)
    assert state.log[-1] == {"event": "pass", "seat": 1} and len(state.log) == 3


PAY = EventShape(("event", "payer", "payee", "amount"))


def test_a_shaped_entry_makes_the_same_dict_as_a_plain_one():
    state = Toy()
    state._events.append((PAY, "pay", 0, "bank", 5))
    state._events.append((("event", "payer", "payee", "amount"), "pay", 1, "bank", 7))
    assert state.log == [
        {"event": "pay", "payer": 0, "payee": "bank", "amount": 5},
        {"event": "pay", "payer": 1, "payee": "bank", "amount": 7},
    ]
    assert list(state.log[0]) == list(PAY)  # the keys in the shape's order
    fresh = state.events_since_last_decision(0)
    assert fresh == state.log and fresh[0] is not state.log[0]


def test_a_shape_is_the_tuple_it_holds_and_every_copy_is_itself():
    assert PAY == ("event", "payer", "payee", "amount") and isinstance(PAY, tuple)
    assert json.dumps(PAY) == json.dumps(list(PAY))
    assert copy.copy(PAY) is PAY and copy.deepcopy(PAY) is PAY
    again = pickle.loads(pickle.dumps(PAY))
    assert type(again) is EventShape and again == PAY
    assert again.make((again, "pay", 2, "bank", 1)) == {
        "event": "pay",
        "payer": 2,
        "payee": "bank",
        "amount": 1,
    }


@pytest.mark.parametrize(
    "keys", [(), ("seat",), ("event", "not a name"), ("event", "x'] or 1 or ['")]
)
def test_a_shape_is_event_then_field_names(keys):
    with pytest.raises(ValueError, match="an event shape is 'event' and field names"):
        EventShape(keys)
