"""A full Meuterer state from one seat's view, for bots that search.

Hidden from a seat: the other hands, the deck order and, before the reveal,
the characters the others took. Cards: every card not in the seat's hand, on
the table or in the open discard pile is shuffled and dealt to the other
hands by their public sizes, the rest forming the deck. Characters: who chose
in which order follows from the public table (turns go clockwise, a seat that
passed never plays again); those who chose before the seat hold exactly the
characters it was not offered, those after it any of the others, each
assignment equally likely.
"""

from __future__ import annotations

from typing import Any

from engine.core import Action, State
from engine.meuterer.data import CARDS, CHARACTERS, DECK
from engine.meuterer.state import (
    CHARACTER,
    DISCARD,
    MUTINY,
    OFFER,
    OVER,
    PROMISE,
    MeutererState,
)

INVOLVED = frozenset({"mutineer", "cabin_boy", "boatswain"})
# The engine's own string for every name a view holds. A view parsed from JSON
# brings equal strings that are other objects, and every comparison the rules
# make on them would then compare characters instead of identities: a playout
# from the world runs markedly faster on the engine's own.
_NAMES = (*CARDS, *CHARACTERS, PROMISE, OFFER, CHARACTER, MUTINY, DISCARD, OVER)
_OWN = {name: name for name in _NAMES}


def _own(value: Any) -> Any:
    """The engine's own copy of a name (anything else as it is)."""
    return _OWN.get(value, value) if type(value) is str else value


def _own_all(values: list) -> list:
    """`_own` of each of a list of names (or None): a new list."""
    try:  # the lookup of each value, or the value itself, without a Python call per item
        return list(map(_OWN.get, values, values))
    except TypeError:  # a value that is no name and cannot be looked up: as `_own` keeps it
        return [_own(value) for value in values]


def determinize(view: dict, seed: int, options: dict, legal: list[Action] | None) -> MeutererState:
    """A state of the current rules consistent with `view`, hidden things drawn from `seed`."""
    if view.get("game") != "meuterer":
        raise ValueError("not a meuterer view")
    if view.get("current_player") is None:
        raise ValueError("the game is over: nothing to determinize")
    # Every field of the rules is set below, from the view (a test holds them to a
    # new game's): the state skips the deal a new game would shuffle, and any
    # defaults that would only be replaced.
    state = MeutererState.__new__(MeutererState)
    State.__init__(state, view["players"], seed, options)
    state._as_determinized(seed, view.get("events", []))
    _table(state, view)
    _characters(state, view)
    _cards(state, view)
    return state


def _table(state: MeutererState, view: dict) -> None:
    """Copy what lies open: the round, the ship, promises, passes, table and scores."""
    n = state.num_players
    state.round, state.rounds = view["round"], view["rounds"]
    state.scores = list(view["scores"])
    state.ship, state.captain = view["ship"], view["captain"]
    state.active = sorted([i["island"] for i in view["islands"] if i["active"]])
    state.phase, state.turn = _own(view["phase"]), view["current_player"]
    state.pay = view["promise"]
    state.passed = list(view["passed"])
    state.reserved = list(view["reserved"])
    # Table cards go to the discards at the round's end, and from there into hands.
    state.table = [
        (card["seat"], _own(card["card"]), card["island"], _own(card["stage"]))
        for card in view["table"]
    ]
    state.conflicts = list(view["conflicts"])
    state.destination = view["destination"]
    state.mutineer_destination = view["mutineer_destination"]
    state.mutiny_result = dict(view["mutiny"]) if view["mutiny"] else None
    state.revealed = view["characters"] is not None
    # Sales count the goods offered this round at the islands active during the offer.
    state.sales = {island: [None, 0] * n for island in state.active}
    if state.phase in (OFFER, CHARACTER, MUTINY):
        for seat, card, island, stage in state.table:
            if stage == OFFER and island is not None:
                slots, at = state.sales[island], 2 * seat
                slots[at] = card
                slots[at + 1] += 1
    clockwise = state._clockwise_from(state.captain)
    state.mutiny_queue, state.refill_queue = [], []
    if state.phase == MUTINY:
        chars = view["characters"]
        fighters = [s for s in clockwise if s == state.captain or chars[s] in INVOLVED]
        state.mutiny_queue = fighters[fighters.index(state.turn) + 1 :]
    elif state.phase == DISCARD:
        state.refill_queue = clockwise[clockwise.index(state.turn) + 1 :]


def pass_order(view: dict) -> list[int]:
    """The seats that have passed this round, in the order they passed.

    The offer goes clockwise from the captain among seats that have not passed;
    a seat whose turn comes before the next card on the table passed then, and
    after the last card the passes run on until the seat on move (or, once the
    offer is over, all round).
    """
    turn, phase = view["current_player"], view["phase"]
    passed = [False] * view["players"]
    order: list[int] = []
    pos: int | None = view["captain"]
    for card in view["table"]:
        if card["stage"] != "offer":
            continue
        pos = _pass_until(passed, order, pos, card["seat"])
        if pos is None:
            raise ValueError("the table does not follow the turn order")
        pos = _next_seat(passed, pos)
    if phase == OFFER:
        _pass_until(passed, order, pos, turn)
    elif phase == CHARACTER:
        _pass_until(passed, order, pos, turn)
        passed[turn] = True
        order.append(turn)
    else:
        _pass_until(passed, order, pos, None)
    if passed != list(view["passed"]):
        raise ValueError("the passes do not follow the turn order")
    return order


def _next_seat(passed: list[bool], seat: int) -> int | None:
    """The next seat clockwise after `seat` that has not passed (maybe itself), if any."""
    n = len(passed)
    for k in range(1, n + 1):
        if not passed[(seat + k) % n]:
            return (seat + k) % n
    return None


def _pass_until(
    passed: list[bool], order: list[int], seat: int | None, stop: int | None
) -> int | None:
    """Seats from `seat` on pass in turn (noted in `passed` and `order`) until `stop` is on move."""
    while seat is not None and seat != stop:
        passed[seat] = True
        order.append(seat)
        seat = _next_seat(passed, seat)
    return seat


def _characters(state: MeutererState, view: dict) -> None:
    """Who took which character: public after the reveal, else drawn uniformly."""
    n, seat, phase = state.num_players, view["seat"], state.phase
    offered = view["available_characters"]
    state.characters = [None] * n
    state.seen_available = [None] * n
    if phase == DISCARD:
        # The table is cleared: the order of choice is lost; keep the seat's own
        # memory and put the others in any order that agrees with it.
        state.choice_order = _order_after_the_round(state, view)
    elif phase == "promise":
        state.choice_order = []
    else:
        state.choice_order = [s for s in pass_order(view) if s != state.captain]
    choosing = phase == CHARACTER and state.turn == seat
    if choosing:
        state.choice_order.remove(seat)
    if state.revealed:
        state.characters = _own_all(view["characters"])
    else:
        _draw_characters(state, seat, offered, choosing, _own(view["character"]))
    available = list(CHARACTERS)
    for k in state.choice_order:
        state.seen_available[k] = tuple(available)
        name = state.characters[k]
        if name is None:
            raise ValueError("a seat that chose a character holds none in the view")
        available.remove(name)
    state.available = available


def _draw_characters(
    state: MeutererState, seat: int, offered: list | None, choosing: bool, mine: str | None
) -> None:
    order, rng = state.choice_order, state.rng
    # A view that shows no offer (None) fails the check below as an empty one would.
    offered = offered or []
    if seat in order:
        i = order.index(seat)
        before, after = order[:i], order[i + 1 :]
        before_pool = [c for c in CHARACTERS if c not in offered]
        after_pool = [c for c in offered if c != mine]
        state.characters[seat] = mine
    elif choosing:
        before, after = order, []
        before_pool, after_pool = [c for c in CHARACTERS if c not in offered], []
    else:
        before, after = [], order
        before_pool, after_pool = [], list(CHARACTERS)
    if len(before_pool) != len(before) or len(after_pool) < len(after):
        raise ValueError("the characters offered do not match the order of choice")
    rng.shuffle(before_pool)
    rng.shuffle(after_pool)
    for k, name in zip(before, before_pool, strict=True):
        state.characters[k] = name
    for k, name in zip(after, after_pool, strict=False):
        state.characters[k] = name


def _order_after_the_round(state: MeutererState, view: dict) -> list[int]:
    """An order of choice after the reveal: those the seat saw choose first go first."""
    seat, chars, offered = view["seat"], view["characters"], view["available_characters"]
    choosers = [s for s in range(state.num_players) if chars[s] is not None]
    state.rng.shuffle(choosers)
    if offered is None:
        return choosers
    before = [s for s in choosers if chars[s] not in offered]
    after = [s for s in choosers if s != seat and chars[s] in offered]
    return [*before, seat, *after]


def _cards(state: MeutererState, view: dict) -> None:
    """Own hand from the view; the unseen cards shuffled into the other hands and the deck."""
    seat, sizes, open_pile = view["seat"], view["hand_sizes"], view["discards"]
    hand, table = view["hand"], [card for _seat, card, _island, _stage in state.table]
    discards: list[str] = []
    # The unseen cards in card order (then shuffled): what the hidden hands and deck hold.
    pool: list[str] = []
    known = 0
    for card in CARDS:
        shown, gone = hand.count(card) + table.count(card), open_pile[card]
        known += shown
        unseen = DECK[card] - shown - (gone if gone > 0 else 0)
        if unseen < 0:
            raise ValueError("the view shows more cards than the deck holds")
        discards += [card] * gone
        pool += [card] * unseen
    if known != len(hand) + len(table):  # a name that is no card
        raise ValueError("the view shows more cards than the deck holds")
    state.discards = discards
    if len(pool) != view["deck"] + sum(sizes) - sizes[seat]:
        raise ValueError("the view's card counts do not add up")
    state.rng.shuffle(pool)
    hands = state.hands = []
    for k in range(state.num_players):
        if k == seat:
            hands.append(_own_all(view["hand"]))
        else:
            hands.append(pool[: sizes[k]])
            pool = pool[sizes[k] :]
    state.deck = pool
