"""House bot `random`: a uniformly random legal action, the baseline every bot should beat.

Seeded from its first view, so a match with the same seed plays the same way.
"""

import hashlib
import json
import random

_rng = None


def act(view, legal):
    global _rng
    if _rng is None:
        first = json.dumps(view, sort_keys=True).encode()
        _rng = random.Random(hashlib.sha256(first).hexdigest())
    return _rng.choice(legal)
