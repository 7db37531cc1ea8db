"""Hostile: reads host secrets, the project and another bot's code (expect: ok, none read)."""

import json
import os
import sys

TARGETS = json.loads("@@TARGETS@@")


def _try(path):
    try:
        with open(path, "rb") as handle:
            handle.read(16)
        return True
    except OSError:
        return False


for path in TARGETS:
    print(f"{'READ' if _try(path) else 'DENIED'} {path}", file=sys.stderr, flush=True)
print(f"ROOT {sorted(os.listdir('/'))}", file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]
