"""What the rule tests of every game share to build positions."""

from __future__ import annotations


def with_seat(values: list, seat: int, value) -> list:
    """A copy of a per-seat list with `seat`'s entry replaced.

    `State.setup_position` replaces a field whole, never edits it in place, so a
    test that changes one seat passes the whole new list.
    """
    return [value if s == seat else v for s, v in enumerate(values)]
