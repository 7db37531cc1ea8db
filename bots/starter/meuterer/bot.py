"""A starter bot for Meuterer: copy this file, change `act`, upload it.

The SDK calls `setup(info)` once when the match starts and `act(view, legal)`
at every decision of yours. Return one of the dicts in `legal`, unchanged.
`print()` goes to your bot's log (stderr), never to the game.

Test it locally against the house bots:
    ladder play meuterer path/to/bot.py meuterer/random meuterer/greedy --games 20
The action dicts and the view are described in engine/meuterer/RULES.md.
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
    phase = view["phase"]

    if phase == "promise":
        # The captain promises the boatswain 0-3 points: {"type": "promise", "points": P}.
        return legal[0]

    if phase == "offer":
        # {"type": "play", "card": "wine", "island": 4}, {"type": "play", "card": "conflict"}
        # or {"type": "pass"}. view["hand"] is your hand, view["table"] what lies face up.
        goods = [a for a in legal if a["type"] == "play" and a.get("island") is not None]
        if goods and len(view["hand"]) > 2:
            return rng.choice(goods)
        return next(a for a in legal if a["type"] == "pass")

    if phase == "character":
        # {"type": "character", "name": "merchant"}: one per character still free.
        names = [a["name"] for a in legal]
        wanted = "merchant" if "merchant" in names else names[0]
        return next(a for a in legal if a["name"] == wanted)

    # mutiny ({"type": "mutiny", "conflicts": K}) and discard: a random choice.
    return rng.choice(legal)
