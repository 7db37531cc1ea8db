"""House bot `manila/greedy`: takes the placement with the best expected payout right now.

It never bids, mortgages or redeems, loads and starts the boats of its own
shares, and judges every placement by the chance, from the dice still to roll,
that the boats dock. A plain one-step heuristic: a yardstick above `random`.
"""

PROFIT = {"jade": 36, "silk": 30, "ginseng": 18, "nutmeg": 24}
HARBOUR_PAY = {"harbour_a": 6, "harbour_b": 8, "harbour_c": 15}
SHIPYARD_PAY = {"shipyard_a": 6, "shipyard_b": 8, "shipyard_c": 15}
SPACE_COST = {"harbour_a": 4, "harbour_b": 3, "harbour_c": 2, "shipyard_a": 4,
              "shipyard_b": 3, "shipyard_c": 2, "pirate": 5, "small_pilot": 2,
              "large_pilot": 5, "insurance": 0}  # fmt: skip
ROLLS = 3
LAST = 13  # a boat moving past 13 docks


def _at_least(total, dice):
    """P(the sum of `dice` six-sided dice >= total)."""
    if total <= 0:
        return 1.0
    if dice == 0:
        return 0.0
    sums = {0: 1.0}
    for _ in range(dice):
        nxt = {}
        for s, p in sums.items():
            for face in range(1, 7):
                nxt[s + face] = nxt.get(s + face, 0.0) + p / 6
        sums = nxt
    return sum(p for s, p in sums.items() if s >= total)


def _dock_chance(boat, rolls_left, shift=0):
    berth = boat.get("berth")
    if berth:
        return 1.0 if berth.startswith("harbour") else 0.0
    position = (boat.get("position") or 0) + shift
    return _at_least(LAST + 1 - position, rolls_left)


def _count_at_least(chances, k):
    """P(at least k of independent events with these chances happen)."""
    dist = [1.0]
    for p in chances:
        nxt = [0.0] * (len(dist) + 1)
        for n, q in enumerate(dist):
            nxt[n] += q * (1 - p)
            nxt[n + 1] += q * p
        dist = nxt
    return sum(dist[k:])


def _placement_value(action, view):
    rolls_left = ROLLS - view["rolls"]
    boats = {b["good"]: b for b in view["boats"]}
    chances = [_dock_chance(b, rolls_left) for b in view["boats"]]
    me = view["seat"]
    space = action.get("space")
    if space == "boat":
        boat = boats[action["good"]]
        share = PROFIT[action["good"]] / (len(boat["crew"]) + 1)
        return _dock_chance(boat, rolls_left) * share - boat["next_seat_cost"]
    if space in HARBOUR_PAY:
        k = "abc".index(space[-1]) + 1
        return _count_at_least(chances, k) * HARBOUR_PAY[space] - SPACE_COST[space]
    if space in SHIPYARD_PAY:
        k = "abc".index(space[-1]) + 1
        missed = [1 - c for c in chances]
        return _count_at_least(missed, k) * SHIPYARD_PAY[space] - SPACE_COST[space]
    if space == "insurance":
        missed = [1 - c for c in chances]
        owed = 0.0
        for k, name in enumerate(("shipyard_a", "shipyard_b", "shipyard_c"), start=1):
            holder = view["spaces"].get(name)
            weight = 1.0 if holder is not None and holder != me else 0.5
            owed += weight * _count_at_least(missed, k) * SHIPYARD_PAY[name]
        return 10 - owed
    return -1.0  # pirates and pilots: left to cleverer bots


def _stake(view, good):
    """What this seat gains if the boat of `good` docks."""
    boat = next(b for b in view["boats"] if b["good"] == good)
    mine = sum(1 for s in boat["crew"] if s == view["seat"])
    crew_share = mine * PROFIT[good] / max(1, len(boat["crew"]))
    return crew_share + 5 * view["my_shares"].get(good, 0)


def _best(options, score):
    return max(options, key=score) if options else None


def act(view, legal):
    phase = view["phase"]
    plain = [a for a in legal if a["type"] not in ("mortgage", "redeem")] or legal
    by_type = {}
    for a in plain:
        by_type.setdefault(a["type"], []).append(a)
    passing = by_type.get("pass", [None])[0]
    mine = view["my_shares"]
    if phase == "auction":
        return passing or plain[0]
    if phase == "buy":
        cash = view["cash"][view["seat"]]
        prices = view["prices"]
        affordable = [
            a
            for a in by_type.get("buy", [])
            if max(5, prices[a["good"]]) + 10 <= cash and prices[a["good"]] >= 5
        ]
        choice = _best(affordable, lambda a: prices[a["good"]])
        return choice or passing or plain[0]
    if phase == "load":
        return _best(plain, lambda a: sum(mine.get(g, 0) for g in a["goods"]))
    if phase == "start":
        return _best(
            plain, lambda a: sum((mine.get(g, 0) + 0.1) * p for g, p in a["positions"].items())
        )
    if phase == "place":
        cash = view["cash"][view["seat"]]
        places = [a for a in by_type.get("place", []) if SPACE_COST.get(a.get("space"), 0) <= cash]
        boats = {b["good"]: b for b in view["boats"]}
        places = [
            a
            for a in places
            if a.get("space") != "boat" or boats[a["good"]]["next_seat_cost"] <= cash
        ]
        choice = _best(places, lambda a: _placement_value(a, view))
        if choice is not None and _placement_value(choice, view) > 0:
            return choice
        return passing or choice or plain[0]
    if phase == "board":
        boats = {b["good"]: b for b in view["boats"]}
        boards = by_type.get("board", [])
        choice = _best(boards, lambda a: PROFIT[a["good"]] / (len(boats[a["good"]]["crew"]) + 1))
        return choice or by_type.get("stay", plain)[0]
    if phase == "pilot":
        rolls_left = ROLLS - view["rolls"]

        def score(a):
            shifts = {m["good"]: m["steps"] for m in a["moves"]}
            return sum(
                _stake(view, b["good"]) * _dock_chance(b, rolls_left, shifts.get(b["good"], 0))
                for b in view["boats"]
            )

        return _best(plain, score)
    if phase == "plunder":
        return _best(plain, lambda a: (a["to"] == "harbour") == (mine.get(a["good"], 0) > 0))
    return passing or plain[0]
