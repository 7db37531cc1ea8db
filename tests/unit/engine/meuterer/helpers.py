"""Build Meuterer positions by hand and play scripted actions through them."""

from __future__ import annotations

from collections import Counter

from engine.meuterer.data import DECK
from engine.meuterer.state import MeutererState

# Hands for a 4-player round with seat 0 as captain (see the scenario tests).
HANDS = [
    "wine wine conflict conflict grain",
    "wine wine salt conflict ruby",
    "salt salt conflict grain cloth",
    "ruby cloth conflict conflict grain",
]


def position(
    hands=HANDS,
    captain=0,
    ship=0,
    active=(0,),
    deck=None,
    round=1,
    scores=None,
    seed=0,
    version=None,
):
    """A state at the start of a round (captain to promise) with the given cards.

    `hands` are space-separated card names per seat; `deck` lists the next
    cards to be drawn, first drawn first. Cards in neither go to the discards
    (or, when `deck` is None, to the bottom of the deck), so all 36 exist.
    Built with `State.setup_position`, the engine's one set-up hook; `version`
    is the rules version played (None: the current one).
    """
    state = MeutererState(len(hands), seed, version=version)
    hands = [hand.split() for hand in hands]
    rest = Counter(DECK) - Counter(card for hand in hands for card in hand)
    if deck is None:
        pile, discards = sorted(rest.elements()), []
    else:
        pile = list(reversed(deck))
        discards = sorted((rest - Counter(deck)).elements())
    assert Counter(pile + discards + [c for h in hands for c in h]) == DECK
    fields = {"scores": list(scores)} if scores is not None else {}
    # Set before the promise, the round restarts from these fields (captain on move).
    state.setup_position(
        hands=hands,
        deck=pile,
        discards=discards,
        captain=captain,
        ship=ship,
        active=sorted(active),
        round=round,
        **fields,
    )
    return state


def promise(points):
    return {"type": "promise", "points": points}


def play(card, island=None):
    if island is None:
        return {"type": "play", "card": card}
    return {"type": "play", "card": card, "island": island}


PASS = {"type": "pass"}


def character(name):
    return {"type": "character", "name": name}


def mutiny(conflicts):
    return {"type": "mutiny", "conflicts": conflicts}


def discard(*cards):
    return {"type": "discard", "cards": list(cards)}


def run(state, script):
    """Apply (seat, action) pairs, checking each seat is really on move."""
    for seat, action in script:
        assert state.current_player() == seat, (seat, action, state.phase)
        state.apply(action)
    return state


def points_by_seat(state, since=0):
    """Score change per seat from `score` events logged after index `since`."""
    gained = [0] * state.num_players
    for event in state.log[since:]:
        if event["event"] == "score":
            gained[event["seat"]] += event["points"]
    return gained
