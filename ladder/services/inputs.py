"""What people type, parsed strictly: whole numbers are ASCII digits and nothing else.

`str.isdigit()` is true for '²' or '٣', which `int()` then refuses or reads as
another number; every numeric query argument and form field goes through here.
"""

from __future__ import annotations

import re

DIGITS = re.compile(r"[0-9]{1,18}")


def whole_number(raw: str | None) -> int | None:
    """`raw` as an int if it is 1 to 18 ASCII digits (no sign, no space), else None."""
    if not isinstance(raw, str) or not DIGITS.fullmatch(raw):
        return None
    return int(raw)
