"""Hostile: a legal action with other JSON types: 41.0 for 41, or true for 1 (expect: illegal).

`{"points": 1.0} == {"points": 1}` and `True == 1` in Python, so a `chosen in legal`
check lets such an action through to the engine, which then stores a float or
a bool where it expects an int. MODE is `float` or `bool`.
"""

import sys

MODE = "@@MODE@@"


def retyped(action):
    """`action` with one int field sent as a float (or as a bool); None if it has none fit."""
    for key, value in action.items():
        if type(value) is not int:
            continue
        if MODE == "float":
            return {**action, key: float(value)}
        if MODE == "bool" and value in (0, 1):
            return {**action, key: bool(value)}
    return None


def act(view, legal):
    for action in legal:
        sent = retyped(action)
        if sent is not None:
            print(f"SENT {sent!r} for {action!r}", file=sys.stderr, flush=True)
            return sent
    return legal[0]
