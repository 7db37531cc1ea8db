"""Manila's event log, kept compact: a tuple per event, a dict only when asked for.

A random playout logs a few events per decision and never looks at them, so an
entry is `(keys, kind, *values)`, `keys` being one of the shared tuples below
("event" first, then the fields in the order the dict shows them). `as_dict`
makes the dict a view, `State.log` or a replay shows; its nested lists and dicts
are the entry's own (never edited once logged), as a shallow copy of a dict
would share them.
"""

from __future__ import annotations

SEAT = ("event", "seat")
SEAT_AMOUNT = ("event", "seat", "amount")
SEAT_PRICE = ("event", "seat", "price")
SEAT_GOOD = ("event", "seat", "good")
GOOD_BERTH = ("event", "good", "berth")
PAY = ("event", "payer", "payee", "amount", "reason")
VOYAGE = ("event", "number", "auction_opens")
LOADED = ("event", "goods")
BOATS_START = ("event", "positions")
PLACED = ("event", "seat", "space")
PLACED_BOAT = ("event", "seat", "space", "good")
PLACED_STOWAWAY = ("event", "seat", "space", "good", "stowaway")
PILOT = ("event", "seat", "pilot", "moves")
ROLL = ("event", "number", "dice")
PLUNDERED = ("event", "good", "pirates")
GAME_OVER = ("event", "fortunes")


def as_dict(entry: tuple) -> dict:
    """The event as the log shows it: {"event": kind, field: value, ...}."""
    return dict(zip(entry[0], entry[1:], strict=True))


def as_fresh_dict(entry: tuple) -> dict:
    """`as_dict` with its lists and dicts copied all the way down (for a view to hand out)."""
    if entry[1] in NESTED_KINDS:
        return {key: _fresh(value) for key, value in zip(entry[0], entry[1:], strict=True)}
    return dict(zip(entry[0], entry[1:], strict=True))


# The events that hold a list or a dict (the others hold numbers and strings only).
NESTED_KINDS = frozenset(
    {"loaded", "boats_start", "pilot", "roll", "plundered", "game_over", "prices"}
)


def _fresh(value):
    # A pilot's moves are the action's own, shared and read-only: copied out plain.
    if isinstance(value, list):
        return [_fresh(item) for item in value]
    if isinstance(value, dict):
        return {key: _fresh(item) for key, item in value.items()}
    return value


def as_entry(event: dict) -> tuple:
    """A logged event dict (an `emit` call, a view's events) as a compact entry."""
    return (tuple(event), *event.values())
