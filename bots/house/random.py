"""House bot `random` for every game: a uniformly random legal action, the baseline to beat.

Seeded from its first view, so a match with the same seed plays the same way
(`random.Random` hashes a string seed with SHA-512, the same in every process).
"""

import random

_rng = None


def act(view, legal):
    global _rng
    if _rng is None:
        _rng = random.Random(repr(view))
    return _rng.choice(legal)
