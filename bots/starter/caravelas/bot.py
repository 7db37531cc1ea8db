"""A starter bot for Caravelas: copy this file, change `act`, upload it.

The SDK calls `setup(info)` once when the match starts and `act(view, legal)`
at every decision of yours. Return one of the dicts in `legal`, unchanged.
`print()` goes to your bot's log (stderr), never to the game.

Test it locally against the house bots:
    ladder play caravelas path/to/bot.py caravelas/random caravelas/greedy --games 20
The action dicts, the map and the view are described in engine/caravelas/RULES.md.
"""

import random

# Module globals live for the whole match: one process plays one match.
rng = random.Random()


def setup(info):
    """info = {"game", "seat", "players", "options", "limits", "seed", "seats"}:
    limits are in ms ("move_ms", "bank_ms", "init_ms"); seed is this match's own
    number (the SDK seeds `random` with it too, so your choices replay); seats
    names each seat's bot ("name", "owner", "version")."""
    rng.seed(info["seed"])  # the same match gives the same choices: replays agree
    print(f"seat {info['seat']} of {info['players']}")


def act(view, legal):
    """Choose one action. view["phase"] says which kind of decision this is."""
    by_type = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)

    # After stopping at Lisboa or Calecute you may draw discovery cards.
    if "draw" in by_type:
        return by_type["draw"][0]

    if "move" in by_type:
        # {"type": "move", "card": V, "to": CIRCLE}. Ending on a place whose card
        # you hold (view["discovery_cards"]) discovers it and scores its points.
        mine = set(view["discovery_cards"])
        for move in by_type["move"]:
            if move["to"] in mine:
                return move
        if view["cards_played"] < 2:
            return rng.choice(by_type["move"])
        return by_type["end_turn"][0]

    # keep, sink and discard decisions: a random choice.
    return rng.choice(legal)
