"""Clean-up: refilling from the new captain, the stevedore's extra cards, reshuffles."""

from __future__ import annotations

from collections import Counter

from engine.meuterer.data import DECK
from tests.unit.engine.meuterer.helpers import (
    PASS,
    character,
    discard,
    play,
    position,
    promise,
    run,
)
from tests.unit.engine.meuterer.scenarios import SCENARIOS

# Seat 1 ends the round as stevedore with salt, conflict, ruby reserved.
ROUND = [
    (0, promise(2)),
    (0, play("wine", 0)),
    (1, play("wine", 0)),
    (2, play("salt", 0)),
    (3, PASS),
    (3, character("boatswain")),
    (0, PASS),
    (1, play("wine", 0)),
    (2, PASS),
    (2, character("merchant")),
    (1, PASS),
    (1, character("stevedore")),
]
# Drawn in order: 1 card for seat 0, then 5 for the stevedore, then seat 2's 1.
DECK_TOP = ["grain", "ruby", "ruby", "salt", "salt", "cloth", "wine"]


def _cards_everywhere(state):
    table = [card for _seat, card, _island, _stage in state.table]
    return Counter(state.deck + state.discards + table + [c for h in state.hands for c in h])


def test_the_stevedore_draws_three_extra_and_chooses_what_to_discard():
    state = run(position(deck=DECK_TOP), ROUND)
    # Refill runs 0, 1 (stevedore, pauses), then 2 and 3 after his discard.
    assert state.phase == "discard" and state.current_player() == 1
    assert state.view(0)["hand_sizes"] == [5, 8, 4, 5]
    # Reserved cards are back in hand: no seat counts as passed any more.
    assert state.view(0)["reserved"] == [None] * 4 and state.view(0)["passed"] == [False] * 4
    assert state.view(1)["hand"] == [
        "ruby",
        "ruby",
        "ruby",
        "salt",
        "salt",
        "salt",
        "cloth",
        "conflict",
    ]
    options = [a["cards"] for a in state.legal_actions()]
    # Every distinct choice of 3 from {ruby x3, salt x3, cloth, conflict}, once each.
    assert len(options) == 12 == len({tuple(o) for o in options})
    assert options[0] == ["ruby", "ruby", "ruby"] and options[-1] == ["salt", "cloth", "conflict"]
    state.apply(discard("ruby", "ruby", "salt"))
    view = state.view(1)
    assert view["hand"] == ["ruby", "salt", "salt", "cloth", "conflict"]
    assert view["hand_sizes"] == [5, 5, 5, 5]
    assert (view["phase"], view["round"], view["current_player"]) == ("promise", 2, 0)
    # The discard is public (ruling); seat 2 draws only after it.
    assert state.log[-3:] == [
        {"event": "discard", "seat": 1, "cards": ["ruby", "ruby", "salt"]},
        {"event": "draw", "seat": 2, "cards": 1},
        {"event": "round", "round": 2, "captain": 0},
    ]
    assert state.view(2)["hand"] == ["salt", "wine", "cloth", "grain", "conflict"]
    assert state.discards.count("ruby") == 2 and _cards_everywhere(state) == DECK


def _draws_after_sailing(state):
    sail = max(i for i, e in enumerate(state.log) if e["event"] == "sail")
    return [e["seat"] for e in state.log[sail:] if e["event"] == "draw"]


def test_refill_starts_with_the_captain_and_skips_full_hands():
    state = run(position(), ROUND)
    assert _draws_after_sailing(state) == [0, 1]
    state.apply(state.legal_actions()[0])
    assert _draws_after_sailing(state) == [0, 1, 2]  # seat 3 kept 5 cards


def test_refill_starts_with_the_new_captain_after_a_mutiny():
    script = {case: script for case, script, *_ in SCENARIOS}["successful mutiny"]
    state = run(position(), script)
    assert state.captain == 3
    assert _draws_after_sailing(state) == [3, 0, 1, 2]


def test_an_empty_deck_is_rebuilt_from_the_shuffled_discards():
    # One card left: seat 0 draws it, the stevedore's draw needs a reshuffle.
    state = run(position(deck=["grain"]), ROUND)
    events = [e["event"] for e in state.log]
    assert "reshuffle" in events
    assert state.view(0)["hand_sizes"] == [5, 8, 4, 5]
    assert _cards_everywhere(state) == DECK
    reshuffle = next(e for e in state.log if e["event"] == "reshuffle")
    # All 36 less the 20 in hands after seat 0's draw: 4 + 3 + 4 + 5 + the grain.
    assert reshuffle["cards"] == 36 - (5 + 3 + 4 + 5)
