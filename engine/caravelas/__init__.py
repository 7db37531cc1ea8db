"""Caravelas: fleets of caravels racing from Lisboa round the Cape to Calecute."""

from __future__ import annotations

from engine import schema
from engine.caravelas import svg
from engine.caravelas.determinize import determinize
from engine.caravelas.state import REPLAYS, CaravelasState
from engine.core import Capabilities, Game

GAME = Game(
    name="caravelas",
    min_players=2,
    max_players=4,
    version=CaravelasState.engine_version,
    factory=CaravelasState,
    option_defaults={},
    # caravelas-2 added the round limit, caravelas-3 fixed the player card (RULES.md).
    replays=REPLAYS,
    drawing=svg.drawing,
    determinizer=determinize,
    # No move clears a board worth pausing on: fleets stay where they sailed.
    capabilities=Capabilities(spectate=True),
    schema=schema.loader(__name__),
)

__all__ = ["GAME", "CaravelasState"]
