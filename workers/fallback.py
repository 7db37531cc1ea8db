"""The policy that plays a faulted seat out, so the other seats' game still finishes.

Pure engine, no subprocess: a uniformly random legal action from a generator
seeded by the match seed, so the same match with the same faults replays the
same way.
"""

from __future__ import annotations

from engine.core import Rng

# Mixed into the match seed so the fallback's choices are not the engine's own dice.
_SALT = 0xFA11_BAC5


class Fallback:
    """Chooses moves for every faulted seat of one match."""

    def __init__(self, match_seed: int) -> None:
        self._rng = Rng(match_seed ^ _SALT)

    def choose(self, legal: list[dict]) -> dict:
        """One of `legal`, deterministic given the seed and the calls before."""
        if not legal:
            raise ValueError("no legal action to choose from")
        return legal[self._rng.below(len(legal))]
