"""Where a movement card can take a fleet, computed once from the house map.

A card moves the fleet exactly its value along lines or arrows without passing
any circle twice (rules 6.1-6.4), except that arriving at the Cape stops it
(9.1-9.2). Where a card ends depends only on the start circle and the value,
so the whole table is built at import and a move costs a lookup; so are the
move actions themselves (`MOVE_ACTIONS`, `MOVE_BY_TARGET`), read-only shared
dicts the state hands out as they are and finds an action among by hashing.
"""

from __future__ import annotations

from collections import deque

from engine.caravelas import data
from engine.core import SharedAction

CIRCLE_IDS: tuple[str, ...] = tuple(c[0] for c in data.CIRCLES)
INDEX: dict[str, int] = {cid: i for i, cid in enumerate(CIRCLE_IDS)}
KIND: dict[str, str] = {c[0]: c[4] for c in data.CIRCLES}
MAX_CARD = max(data.MOVEMENT_DECK)


def steps_from() -> dict[str, tuple[str, ...]]:
    """Every circle one move away: neighbours by a line, or the end of an arrow."""
    steps: dict[str, list[str]] = {cid: [] for cid in CIRCLE_IDS}
    for a, b in data.LINES:
        steps[a].append(b)
        steps[b].append(a)
    for start, end, _skipped in data.ARROWS:
        if end not in steps[start]:
            steps[start].append(end)
    return {cid: tuple(sorted(set(nxt))) for cid, nxt in steps.items()}


STEPS = steps_from()


def destinations(start: str, value: int) -> tuple[str, ...]:
    """Circles where a card of `value` played from `start` can end, sorted."""
    found: set[str] = set()

    def walk(here: str, left: int, seen: frozenset[str]) -> None:
        for nxt in STEPS[here]:
            if nxt in seen:
                continue
            # The Cape stops the fleet on arrival; the rest of the card is lost.
            if nxt == data.CAPE_ID or left == 1:
                found.add(nxt)
                continue
            walk(nxt, left - 1, seen | {nxt})

    walk(start, value, frozenset({start}))
    return tuple(sorted(found))


# DESTINATIONS[circle][value] for every card value in the deck.
DESTINATIONS: dict[str, dict[int, tuple[str, ...]]] = {
    cid: {v: destinations(cid, v) for v in data.MOVEMENT_DECK} for cid in CIRCLE_IDS
}


def distances_from(origin: str) -> dict[str, int]:
    """Fewest moves from `origin` to every circle it can reach (arrows included)."""
    dist = {origin: 0}
    queue = deque([origin])
    while queue:
        here = queue.popleft()
        for nxt in STEPS[here]:
            if nxt not in dist:
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    return dist


def _move_actions() -> dict[str, dict[int, tuple[SharedAction, ...]]]:
    """MOVE_ACTIONS[circle][value]: the move actions of that card there, in legal-list order.

    One read-only dict per card value and end circle, whatever the start: a
    small table stays in the processor's cache.
    """
    made: dict[tuple[int, str], SharedAction] = {}
    return {
        cid: {
            v: tuple(made.setdefault((v, to), _move(v, to)) for to in ends)
            for v, ends in by_value.items()
        }
        for cid, by_value in DESTINATIONS.items()
    }


def _move(value: int, to: str) -> SharedAction:
    return SharedAction(type="move", card=value, to=to)


# Shared and read-only: a state hands them out and records them as they are (state.py).
MOVE_ACTIONS = _move_actions()
# MOVE_BY_TARGET[circle][(value, to)]: the same action dicts, found by what an action names.
MOVE_BY_TARGET: dict[str, dict[tuple[int, str], SharedAction]] = {
    cid: {(a["card"], a["to"]): a for moves in by_value.values() for a in moves}
    for cid, by_value in MOVE_ACTIONS.items()
}
