"""A full Caravelas state from one seat's view, for bots that search.

Hidden from a seat: the other movement hands and the deck order; the places
on the other seats' discovery cards (their colours show on the backs), the
cards another seat is choosing from after a draw, and the order of the
discovery pile except the cards this seat put under it. Movement cards not in
the seat's hand nor on the used pile are shuffled and dealt to the other hands
by their public sizes, the rest forming the deck. Unknown discovery places
(not found, not in the seat's hand, not among the cards it is choosing from or
knows in the pile) are drawn uniformly among assignments that give each other
seat its public number of green and yellow cards and never the place its fleet
stands on (a card held there would have been revealed on arrival); the rest
fill the cards being chosen and the unknown pile positions in random order.
"""

from __future__ import annotations

from engine.caravelas import data
from engine.caravelas.state import KEEP, SAIL, CaravelasState
from engine.core import Action

# Rejection sampling of the others' discovery cards gives up after this many tries
# (only an impossible view gets there: the true hands always qualify).
MAX_TRIES = 10_000
CARD_VALUES = sorted(data.MOVEMENT_DECK)
# The discovery places of each colour, sorted: green first, as the others' cards are dealt.
PLACES = {
    colour: sorted(p for p, (c, _) in data.DISCOVERIES.items() if c == colour)
    for colour in (data.GREEN, data.YELLOW)
}


def determinize(view: dict, seed: int, options: dict, legal: list[Action] | None) -> CaravelasState:
    """A state of the current rules consistent with `view`, hidden things drawn from `seed`."""
    if "discovery_pile_known" not in view or "fleets" not in view:
        raise ValueError("not a caravelas view of the current rules")
    if view["phase"] == "over":
        raise ValueError("the game is over: nothing to determinize")
    state = CaravelasState.blank(view["players"], seed, options)
    state._as_determinized(seed, view.get("events", []))
    _board(state, view)
    _movement(state, view)
    _discoveries(state, view)
    _turn_flags(state, view, legal)
    return state


def _board(state: CaravelasState, view: dict) -> None:
    """Copy the public table: fleets, scores, cargo, cubes, turn and phase."""
    caravels = sorted(data.CARAVEL_SLOTS)
    state.pos = list(view["fleets"])
    state.score = list(view["scores"])
    state.found = [list(places) for places in view["discovered"]]
    state.cargo = [list(cubes) for cubes in view["cargo"]]
    state.sunk = [[k in sunk for k in caravels] for sunk in view["sunk"]]
    state.stock = dict(view["cubes"])
    state.jeronimos, state.jeronimos_size = view["jeronimos"], view["jeronimos_size"]
    state.turn, state.round, state.phase = view["turn"], view["round"], view["phase"]
    state.played, state.closed = view["cards_played"], view["turn_closed"]
    state.end_triggered = view["end_triggered"]


def _movement(state: CaravelasState, view: dict) -> None:
    """Own hand and the used pile from the view; other hands and the deck sampled."""
    seat, sizes = view["seat"], view["movement_counts"]
    used = {int(v): count for v, count in view["movement_used"].items()}
    state.used = [v for v in sorted(used) for _ in range(used[v])]
    # The cards of each value nobody can see: the deck's, less the hand's and the used.
    left = dict(data.MOVEMENT_DECK)
    for v in view["movement"]:
        left[v] = left.get(v, 0) - 1
    for v, count in used.items():
        if count > 0:
            left[v] = left.get(v, 0) - count
    if min(left.values()) < 0:
        raise ValueError("the view shows more movement cards than the deck holds")
    pool = [v for v in CARD_VALUES for _ in range(left[v])]
    if len(pool) != view["movement_deck"] + sum(sizes) - sizes[seat]:
        raise ValueError("the view's movement card counts do not add up")
    state.rng.shuffle(pool)
    hands = []
    for k in range(state.num_players):
        if k == seat:
            hands.append(list(view["movement"]))
        else:
            hands.append(sorted(pool[: sizes[k]]))
            pool = pool[sizes[k] :]
    state.hand, state.deck = hands, pool


def _discoveries(state: CaravelasState, view: dict) -> None:
    """Own cards and known pile places from the view; the other places sampled."""
    seat, n = view["seat"], state.num_players
    others = [k for k in range(n) if k != seat]
    mine_drawn = view["drawn"] if state.turn == seat else []
    known_pile = view["discovery_pile_known"]
    known = {p for places in state.found for p in places}
    known.update(view["discovery_cards"], mine_drawn, (p for p in known_pile if p))
    unknown = {colour: [p for p in places if p not in known] for colour, places in PLACES.items()}
    counts = view["discovery_counts"]
    hands = _deal_secrets(state, others, counts, unknown)
    state.secret = [sorted(view["discovery_cards"]) if k == seat else hands[k] for k in range(n)]
    taken = {p for k in others for p in hands[k]}
    rest = [p for colour in (data.GREEN, data.YELLOW) for p in unknown[colour] if p not in taken]
    others_drawn = view["drawn_count"] if state.turn != seat else 0
    if len(rest) != others_drawn + known_pile.count(None):
        raise ValueError("the view's discovery card counts do not add up")
    state.rng.shuffle(rest)
    state.drawn = list(mine_drawn) if state.turn == seat else rest[:others_drawn]
    rest = rest[others_drawn:]
    state.pile = [p if p else rest.pop() for p in known_pile]
    # The others' memory of the pile is not in this view: they remember nothing.
    state.returned = [[p for p in known_pile if p] if k == seat else [] for k in range(n)]


def _deal_secrets(
    state: CaravelasState, others: list[int], counts: list[dict], unknown: dict[str, list[str]]
) -> dict[int, list[str]]:
    """Each other seat's places by its colour counts, never the place its fleet is on.

    Rejection sampling: a draw that breaks the rule is thrown away whole, so
    every assignment that keeps it is equally likely.
    """
    for _ in range(MAX_TRIES):
        hands: dict[int, list[str]] = {k: [] for k in others}
        for colour, places in unknown.items():
            pool = list(places)
            state.rng.shuffle(pool)
            for k in others:
                take = counts[k][colour]
                if take > len(pool):
                    raise ValueError("the view's discovery card counts do not add up")
                hands[k] += pool[:take]
                pool = pool[take:]
        if all(state.pos[k] not in hands[k] for k in others):
            return {k: sorted(cards) for k, cards in hands.items()}
    raise ValueError("no hands agree with the view")


def _turn_flags(state: CaravelasState, view: dict, legal: list[Action] | None) -> None:
    """Whether the seat on move has arrived with its last card and has drawn this turn.

    The view does not say: a wreck (sent home, no arrival) and a draw this turn
    show in the events since the seat last acted; a draw followed by more
    sailing does not, so `legal` (does it offer `draw`?) settles it when given.
    """
    seat = state.turn
    mine = [e for e in view.get("events") or [] if e.get("seat") == seat]
    wrecked = any(e["event"] == "wrecked" for e in mine)
    state.arrived = state.played > 0 and not wrecked
    state.drew = state.phase == KEEP or any(e["event"] in ("draw", "keep") for e in mine)
    if legal is not None and state.phase == SAIL and seat == view["seat"]:
        offered = {"type": "draw"} in legal
        if offered != state.can_draw():
            state.arrived, state.drew = offered or state.arrived, not offered
