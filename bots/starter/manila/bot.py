"""A starter bot for Manila: copy this file, change `act`, upload it.

The SDK calls `setup(info)` once when the match starts and `act(view, legal)`
at every decision of yours. Return one of the dicts in `legal`, unchanged.
`print()` goes to your bot's log (stderr), never to the game.

Test it locally against the house bots:
    ladder play manila path/to/bot.py manila/random manila/greedy --games 20
The action dicts and the view are described in engine/manila/RULES.md.
"""

import random

# Module globals live for the whole match: one process plays one match.
rng = random.Random()
me = None


def setup(info):
    """info = {"game", "seat", "players", "options", "limits", "seed", "seats"}:
    limits are in ms ("move_ms", "bank_ms", "init_ms"); seed is this match's own
    number (the SDK seeds `random` with it too, so your choices replay); seats
    names each seat's bot ("name", "owner", "version")."""
    global me
    me = info["seat"]
    rng.seed(info["seed"])  # the same match gives the same choices: replays agree
    print(f"playing seat {me} of {info['players']}, {info['limits']['move_ms']} ms a move")


def act(view, legal):
    """Choose one action. view["phase"] says which kind of decision this is."""
    phase = view["phase"]
    # Mortgages and redemptions may come with any decision; this bot never takes them.
    plain = [a for a in legal if a["type"] not in ("mortgage", "redeem")] or legal

    if phase == "auction":
        # Bids: {"type": "bid", "amount": k}; or {"type": "pass"}.
        return next(a for a in plain if a["type"] == "pass")

    if phase == "place":
        # Placements: {"type": "place", "space": "boat", "good": "jade"} or a space
        # such as "harbour_a", "shipyard_c", "pirate", "insurance"; or pass.
        # view["boats"] has each boat's position, crew and next seat cost.
        boats = [a for a in plain if a.get("space") == "boat"]
        if boats:
            return max(boats, key=lambda a: _boat_position(view, a["good"]))

    # Anything else (load, start, buy, pilot, board, plunder): a random choice.
    return rng.choice(plain)


def _boat_position(view, good):
    for boat in view["boats"]:
        if boat["good"] == good:
            return boat["position"] or 0
    return 0
