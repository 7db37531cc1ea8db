"""Builders for Manila rule tests: reach a position quickly, with chosen dice.

Positions come from public actions; what actions cannot reach quickly (chosen
dice, cash, shares) is set through `State.setup_position`, the engine's one
set-up hook.
"""

from __future__ import annotations

import engine
from engine.manila.state import ManilaState
from tests.unit.engine.helpers import with_seat

PASS = {"type": "pass"}


class Dice:
    """Stands in for the state's generator where a test needs chosen dice.

    The engine rolls one die per loaded boat, in the order the goods were loaded.
    """

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def die(self, sides: int = 6) -> int:
        return self.values.pop(0)


def new(n: int = 4, seed: int = 1, version: str | None = None, **options) -> ManilaState:
    """A new game; `version` is the rules version played (None: the current one)."""
    return engine.get_game("manila").new_game(n, seed=seed, options=options, version=version)


def place(space: str, good: str | None = None) -> dict:
    if space == "boat":
        return {"type": "place", "space": "boat", "good": good}
    return {"type": "place", "space": space}


def play(state: ManilaState, *actions: dict) -> ManilaState:
    for action in actions:
        state.apply(action)
    return state


def at_placement(
    n: int = 4,
    loaded=("jade", "silk", "nutmeg"),
    positions=(3, 3, 3),
    dice=(),
    seed: int = 1,
    **options,
) -> ManilaState:
    """A first voyage with seat 0 as harbour master (nobody bid), boats loaded and
    started, at the first placement decision (seat 0 on move)."""
    state = new(n, seed, **options)
    for _ in range(n):
        state.apply(PASS)  # nobody bids: seat 0 keeps the office for free
    state.apply(PASS)  # buys no share
    state.apply(
        {"type": "load", "goods": sorted(loaded, key=("jade", "silk", "ginseng", "nutmeg").index)}
    )
    state.apply({"type": "start", "positions": dict(zip(loaded, positions, strict=True))})
    state.setup_position(rng=Dice(*dice))
    return state


def everyone_passes(state: ManilaState) -> ManilaState:
    """Every player still placing passes, until someone else must decide."""
    while state.phase == "place" and not state.is_over():
        state.apply(PASS)
    return state


def set_shares(state: ManilaState, seat: int, held: dict, mortgaged: dict | None = None) -> None:
    """Give a seat exactly these shares (test set-up; the supply is not adjusted)."""
    goods = list(state.held[seat])
    state.setup_position(
        held=with_seat(state.held, seat, {g: held.get(g, 0) for g in goods}),
        mortgaged=with_seat(state.mortgaged, seat, {g: (mortgaged or {}).get(g, 0) for g in goods}),
    )
