"""Build Caravelas positions by hand: a real game, then `State.setup_position`."""

from __future__ import annotations

from engine.caravelas import data
from engine.caravelas.state import CaravelasState
from engine.core import Rng


def position(
    n=2, *, at="lisboa", hand=(1, 2, 3, 4), secret=None, cargo=(), sunk=(), version=None, **fields
):
    """A game with seat 0 on move at `at`, holding these cards and this cargo.

    `fields` set further public fields (or replace those built here), all
    through `State.setup_position`, the engine's one set-up hook; `version` is
    the rules version played (None: the current one).
    """
    state = CaravelasState(n, seed=11, version=version)
    secrets, pile = state.secret, state.pile
    if secret is not None:
        # Keep every discovery card in exactly one place: some seat's hand or the pile.
        free = sorted((set(state.pile) | set(state.secret[0])) - set(secret))
        secrets = [sorted(secret)]
        for seat in range(1, n):
            mine = [p for p in state.secret[seat] if p not in secret]
            free = [p for p in free if p not in mine]
            while len(mine) < 4:
                mine.append(free.pop())
            secrets.append(sorted(mine))
        pile = free
    stock = dict(state.stock)
    for colour in cargo:
        stock[colour] -= 1
    built = {
        "pos": [at, *state.pos[1:]],
        "hand": [sorted(hand), *state.hand[1:]],
        "secret": secrets,
        "pile": pile,
        "cargo": [list(cargo), *state.cargo[1:]],
        "stock": stock,
        "sunk": [[k in sunk for k in data.CARAVEL_SLOTS], *state.sunk[1:]],
    }
    state.setup_position(**{**built, **fields})
    return state


def move(card, to):
    return {"type": "move", "card": card, "to": to}


def die_showing(*faces):
    """An Rng whose first rolls of the house die show these `faces`, in order."""
    for seed in range(1000):
        rng = Rng(seed)
        if all(data.DIE_FACES[rng.below(len(data.DIE_FACES))] == face for face in faces):
            return Rng(seed)
    raise AssertionError("no seed found")


def events(state, kind):
    return [e for e in state.log if e["event"] == kind]
