"""Meuterer (Mutineer) for 3 or 4 players: the basic game, without the pirate.

Rules and rulings: `RULES.md` beside this file; house data: `data.py`.
"""

from __future__ import annotations

from engine import schema
from engine.core import Capabilities, Game
from engine.meuterer.determinize import determinize
from engine.meuterer.state import REPLAYS, MeutererState

GAME = Game(
    name="meuterer",
    min_players=3,
    max_players=4,
    version=MeutererState.engine_version,
    factory=MeutererState,
    option_defaults={},
    replays=REPLAYS,
    determinizer=determinize,
    # A round's table stays until the same move that sailed the ship clears it.
    capabilities=Capabilities(spectate=True, pause_after="sail"),
    schema=schema.loader(__name__),
)

__all__ = ["GAME", "MeutererState"]
