"""The wire protocol, runner side: messages out, replies judged."""

from __future__ import annotations

import json

import pytest

from workers import protocol
from workers.bot_process import BotFault


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"not json", "unparsable"),
        (b"\xff\xfe", "unparsable"),
        (b'["action"]', "expected a 'action' message"),
        (b'{"type": "ready"}', "expected a 'action' message"),
        (b'{"type": "action"}', "must be a JSON object"),
        (b'{"type": "action", "action": [1]}', "must be a JSON object"),
        (b'{"type": "action", "action": "a"}', "must be a JSON object"),
    ],
)
def test_replies_that_are_not_actions_are_invalid(raw, reason):
    with pytest.raises(BotFault) as fault:
        protocol.action(raw, [{"x": 1}])
    assert fault.value.status == "invalid"
    assert reason in fault.value.reason


def test_protocol_lines_round_trip():
    legal = [{"x": 1}]
    assert protocol.action(b'{"type":"action","action":{"x":1}}', legal) is legal[0]
    protocol.ready(b'{"type":"ready"}')
    with pytest.raises(BotFault):
        protocol.ready(b'{"type":"action"}')
    message = protocol.act({"v": 1}, [{"a": 1}], 1500)
    assert message.endswith(b"\n") and message.count(b"\n") == 1
    assert json.loads(message) == {
        "type": "act", "view": {"v": 1}, "legal": [{"a": 1}], "time_left_ms": 1500
    }  # fmt: skip
    start = json.loads(protocol.start("manila", 2, 4, {}, {"move_ms": 1}))
    assert start == {"type": "start", "protocol": 1, "game": "manila", "seat": 2, "players": 4,
                     "options": {}, "limits": {"move_ms": 1}}  # fmt: skip


@pytest.mark.parametrize(
    ("raw", "status", "reason"),
    [
        (b'{"type":"action","action":{"n":41.0}}', "illegal", "types"),
        (b'{"type":"action","action":{"n":true}}', "illegal", "not a legal action"),
        (b'{"type":"action","action":{"n":"41"}}', "illegal", "not a legal action"),
        (b'{"type":"action","action":{"n":41,"x":1}}', "illegal", "not a legal action"),
        (b'{"type":"action","action":{"a":' + b"[" * 5000 + b"]" * 5000 + b"}}", "invalid",
         "nested deeper"),
        (b'{"type":"action","action":{"a":' + b"[" * 40 + b"]" * 40 + b"}}", "invalid", "nested"),
        (b"[" * 100_000, "invalid", "nested deeper"),
    ],
)  # fmt: skip
def test_a_reply_is_legal_only_as_json_writes_a_legal_action(raw, status, reason):
    with pytest.raises(BotFault) as fault:
        protocol.action(raw, [{"n": 1}, {"n": 41}])
    assert (fault.value.status, reason in fault.value.reason) == (status, True)


def test_the_legal_dict_itself_is_returned_and_brackets_inside_strings_do_not_count():
    legal = [{"say": "[[[[" * 50}]
    raw = json.dumps({"type": "action", "action": {"say": "[[[[" * 50}}).encode()
    assert protocol.action(raw, legal) is legal[0]
    assert protocol.depth(b'{"a":[[1]],"b":"]]]]"}') == 0
    assert protocol.depth(b'{"a":' + b"[" * 40 + b"]" * 40 + b',"b":"[[[["}') == 41


def test_any_failure_to_decode_a_reply_is_the_bots_fault(monkeypatch):
    def explode(raw):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(protocol.json, "loads", explode)
    with pytest.raises(BotFault) as fault:
        protocol.ready(b'{"type":"ready"}')
    assert fault.value.status == "invalid"
