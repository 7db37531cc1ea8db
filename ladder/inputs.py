"""What people type, checked strictly.

Whole numbers are ASCII digits and nothing else: `str.isdigit()` is true for
'²' or '٣', which `int()` then refuses or reads as another number; every
numeric query argument and form field goes through `whole_number`. Names
people see (bots, tokens) must be `visible`: no character that hides or
reorders the text around it.
"""

from __future__ import annotations

import re
import unicodedata

DIGITS = re.compile(r"[0-9]{1,18}")
# Controls, and the invisible characters that reorder or hide text: bidirectional
# embeddings and overrides (U+202A-202E) and isolates (U+2066-2069), zero-width
# and other format characters are "Cf"; also surrogates, private use, unassigned
# code points and the line and paragraph separators.
INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def whole_number(raw: str | None) -> int | None:
    """`raw` as an int if it is 1 to 18 ASCII digits (no sign, no space), else None."""
    if not isinstance(raw, str) or not DIGITS.fullmatch(raw):
        return None
    return int(raw)


def visible(text: str) -> bool:
    """Whether `text` has no control, format (bidi, zero-width) or unassigned character."""
    return not any(unicodedata.category(ch) in INVISIBLE for ch in text)
