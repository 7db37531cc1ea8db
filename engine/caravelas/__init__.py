"""Caravelas: fleets of caravels racing from Lisboa round the Cape to Calecute."""

from __future__ import annotations

from engine.caravelas import svg
from engine.caravelas.state import CaravelasState
from engine.core import Game

GAME = Game(
    name="caravelas",
    min_players=2,
    max_players=4,
    version=CaravelasState.engine_version,
    factory=CaravelasState,
    option_defaults={},
    replays=("caravelas-1",),  # caravelas-2 only added the round limit
    drawing=svg.drawing,
)

__all__ = ["GAME", "CaravelasState"]
