"""The worked round of engine/meuterer/RULES.md, played move by move: what the page
tells a reader must be what the engine does."""

from __future__ import annotations

from tests.unit.engine.meuterer.helpers import (
    PASS,
    character,
    mutiny,
    play,
    points_by_seat,
    position,
    promise,
    run,
)

HANDS = [
    "wine conflict grain grain cloth",
    "wine wine salt conflict ruby",
    "salt conflict conflict grain cloth",
]


def test_the_worked_round_of_the_rules_page():
    state = position(hands=HANDS, captain=0)
    run(
        state,
        [
            (0, promise(2)),
            (0, play("grain", 0)),
            (1, play("wine", 0)),
            (2, play("conflict")),
            (0, play("grain", 0)),
            (1, play("wine", 0)),
            (2, PASS),
            (2, character("mutineer")),
            (0, PASS),
            (1, PASS),
            (1, character("boatswain")),
            (0, mutiny(1)),
            (1, mutiny(1)),
            (2, mutiny(1)),
        ],
    )
    events = {e["event"]: e for e in state.log}
    assert events["destination"] == {"event": "destination", "seat": 0, "island": 3}
    assert events["mutineer_destination"]["island"] == 4
    fought = events["mutiny"]
    assert (fought["captain_strength"], fought["mutineer_strength"]) == (3, 2)
    assert fought["winner"] == "captain"
    roles = [0, 0, 0]
    for event in state.log:
        if event["event"] == "score" and event["reason"] == "role":
            roles[event["seat"]] += event["points"]
    assert roles == [2, 3, 0]  # 4 - 2 for the captain, 2 + 1 for the boatswain
    assert points_by_seat(state) == [5, 6, 0]  # and 3 each for the tie at Hochland
    view = state.view(0)
    assert view["ship"] == 3
    assert [i["island"] for i in view["islands"] if i["active"]] == [0, 3]
    assert state.phase == "promise" and view["round"] == 2
