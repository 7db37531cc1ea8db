"""Hostile: dumps its environment, looking for secrets (expect: ok, empty environment)."""

import json
import os
import sys

print("ENV " + json.dumps(dict(os.environ)), file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]
