"""Manila (Franz-Benno Delonge): smuggling goods to Manila, for 3 to 5 players.

Rules and action dicts are documented in RULES.md beside this file.
"""

from engine import schema
from engine.core import Capabilities, Game
from engine.manila.determinize import determinize
from engine.manila.state import REPLAYS, VERSION, ManilaState

GAME = Game(
    name="manila",
    min_players=3,
    max_players=5,
    version=VERSION,
    factory=ManilaState,
    option_defaults={"pirate_variant": False, "deal_from_all_shares": False},
    replays=REPLAYS,
    determinizer=determinize,
    # A voyage's board stays until the same move that raised the prices clears it.
    capabilities=Capabilities(spectate=True, pause_after="prices"),
    schema=schema.loader(__name__),
)

__all__ = ["GAME", "ManilaState"]
