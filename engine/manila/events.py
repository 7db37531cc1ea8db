"""Manila's event log, kept compact: a tuple per event, a dict only when asked for.

A random playout logs a few events per decision and never looks at them, so an
entry is `(keys, kind, *values)`, `keys` being one of the shared shapes below
("event" first, then the fields in the order the dict shows them; `EventShape`
makes the dict quickly). `as_dict`
makes the dict a view, `State.log` or a replay shows; its nested lists and dicts
are the entry's own (never edited once logged), as a shallow copy of a dict
would share them.
"""

from __future__ import annotations

from engine.core import EventShape, event_dict, fresh_event_dict

SEAT = EventShape(("event", "seat"))
SEAT_AMOUNT = EventShape(("event", "seat", "amount"))
SEAT_PRICE = EventShape(("event", "seat", "price"))
SEAT_GOOD = EventShape(("event", "seat", "good"))
GOOD_BERTH = EventShape(("event", "good", "berth"))
PAY = EventShape(("event", "payer", "payee", "amount", "reason"))
VOYAGE = EventShape(("event", "number", "auction_opens"))
LOADED = EventShape(("event", "goods"))
BOATS_START = EventShape(("event", "positions"))
PLACED = EventShape(("event", "seat", "space"))
PLACED_BOAT = EventShape(("event", "seat", "space", "good"))
PLACED_STOWAWAY = EventShape(("event", "seat", "space", "good", "stowaway"))
PILOT = EventShape(("event", "seat", "pilot", "moves"))
ROLL = EventShape(("event", "number", "dice"))
PLUNDERED = EventShape(("event", "good", "pirates"))
GAME_OVER = EventShape(("event", "fortunes"))


def as_dict(entry: tuple) -> dict:
    """The event as the log shows it: {"event": kind, field: value, ...}."""
    return event_dict(entry)


def as_fresh_dict(entry: tuple) -> dict:
    """`as_dict` with its lists and dicts copied all the way down (for a view to hand out)."""
    return fresh_event_dict(entry) if entry[1] in NESTED_KINDS else event_dict(entry)


# The events that hold a list or a dict (the others hold numbers and strings only).
NESTED_KINDS = frozenset(
    {"loaded", "boats_start", "pilot", "roll", "plundered", "game_over", "prices"}
)


def as_entry(event: dict) -> tuple:
    """A logged event dict (an `emit` call, a view's events) as a compact entry."""
    return (tuple(event), *event.values())
