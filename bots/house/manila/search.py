"""House bot `manila/search`: flat Monte Carlo over determinized worlds.

Each decision samples worlds consistent with its view (`determinize`: the
others' shares, which lie face down, the dice to come), tries every promising
action in the same worlds, plays each world on to the end of the voyage with
the greedy heuristic in every seat, and picks the action whose fortune margin
over the best other seat is highest on average. It thinks at most 150 ms a
move (less under a tight move limit) and imports the engine as its forward
model: the rules it simulates are the referee's own.
"""

import random
import time

import engine

GAME = engine.get_game("manila")

BUDGET_S = 0.150  # thinking time per decision, at most
MOVE_SHARE = 0.25  # and never more than this share of the move limit
MATCH_S = 30.0  # thinking for a whole match (it may use 60 CPU s); past it moves are quick
QUICK_S = 0.02
MAX_WORLDS = None  # a fixed number of worlds per decision instead of the clock (tests)
WIN_BONUS = 40  # a won game is worth this many pesos of margin on top
KEEP_START = 6  # start positions tried (of 25), the greedy heuristic's best
KEEP_PLACE = 8  # placements tried, the heuristic's best, plus pass

PROFIT = {"jade": 36, "silk": 30, "ginseng": 18, "nutmeg": 24}
HARBOUR_PAY = {"harbour_a": 6, "harbour_b": 8, "harbour_c": 15}
SHIPYARD_PAY = {"shipyard_a": 6, "shipyard_b": 8, "shipyard_c": 15}
SPACE_COST = {"harbour_a": 4, "harbour_b": 3, "harbour_c": 2, "shipyard_a": 4,
              "shipyard_b": 3, "shipyard_c": 2, "pirate": 5, "small_pilot": 2,
              "large_pilot": 5, "insurance": 0}  # fmt: skip
ROLLS = 3
LAST = 13  # a boat moving past 13 docks

_me = {"seat": 0, "options": {}, "move_s": 1.0, "spent": 0.0, "rng": random.Random(0)}
_sums = {}
_tails = {}  # `_tails_of`, by the chances
TAILS_KEPT = 20_000  # at most this many remembered (a few MB)


def setup(info):
    """Remember the seat, the options and the clock; seed this bot's own generator."""
    limits = info.get("limits") or {}
    _me["seat"] = info["seat"]
    _me["options"] = info.get("options") or {}
    _me["move_s"] = (limits.get("move_ms") or 1000) / 1000
    _me["spent"] = 0.0
    _me["rng"] = random.Random(info.get("seed") or 0)


def act(view, legal):
    """The candidate with the best mean margin over sampled worlds (greedy's pick on ties)."""
    if len(legal) == 1:
        return legal[0]
    started = time.perf_counter()
    candidates = _candidates(view, legal)
    if len(candidates) > 1:
        candidates = [candidates[i] for i in _search(view, legal, candidates, started)]
    _me["spent"] += time.perf_counter() - started
    return candidates[0]


# -- the search ------------------------------------------------------------------
def _budget():
    if _me["spent"] >= MATCH_S:
        return QUICK_S
    return min(BUDGET_S, MOVE_SHARE * _me["move_s"])


def _search(view, legal, candidates, started):
    """Candidate indices, best mean value first; the first candidate wins ties."""
    seat = view["seat"]
    deadline = started + _budget()
    totals = [0.0] * len(candidates)
    counts = [0] * len(candidates)
    worlds = 0
    while MAX_WORLDS is None or worlds < MAX_WORLDS:
        seed = _me["rng"].getrandbits(62)
        world = GAME.determinize(view, seed, options=_me["options"], legal=legal)
        worlds += 1
        for i, action in enumerate(candidates):
            state = world.clone()
            state.apply(action)
            _rollout(state)
            totals[i] += _value(state, seat)
            counts[i] += 1
            if MAX_WORLDS is None and time.perf_counter() > deadline:
                return _ranked(totals, counts)
    return _ranked(totals, counts)


def _ranked(totals, counts):
    means = [t / c if c else float("-inf") for t, c in zip(totals, counts, strict=True)]
    return sorted(range(len(means)), key=lambda i: (-means[i], i))


def _rollout(state):
    """Play greedy moves in every seat until the voyage is settled or the game ends."""
    voyage = state.voyage
    while not state.is_over() and state.voyage == voyage:
        seat = state.current_player()
        state.apply(_greedy(state.view(seat), state.legal_actions()))


def _value(state, seat):
    """This seat's fortune less the best other fortune, plus a bonus for a won game."""
    fortunes = [state.fortune(s) for s in range(state.num_players)]
    mine = fortunes.pop(seat)
    margin = mine - max(fortunes)
    if state.is_over() and margin >= 0:
        margin += WIN_BONUS
    return margin


def _candidates(view, legal):
    """The actions worth simulating, the greedy heuristic's choice first."""
    first = _greedy(view, legal)
    phase = view["phase"]
    plain = [a for a in legal if a["type"] not in ("mortgage", "redeem")]
    if phase == "auction":
        # Bids paid from cash only: a few steps above the high bid.
        cash = view["cash"][view["seat"]]
        high = view["auction"]["high_bid"] or 0
        steps = {high + k for k in (1, 2, 4, 7, 11)}
        plain = [
            a
            for a in plain
            if a["type"] == "pass" or (a["amount"] in steps and a["amount"] <= cash)
        ]
    elif phase == "start":
        plain = sorted(plain, key=lambda a: -_start_score(view, a))[:KEEP_START]
    elif phase == "place":
        rest = [a for a in plain if a["type"] == "place"]
        value = _placement_valuer(view)
        rest.sort(key=lambda a: -value(a))
        plain = rest[:KEEP_PLACE] + [a for a in plain if a["type"] == "pass"]
    return [first] + [a for a in plain if a != first]


# -- the greedy heuristic (the house `manila/greedy`, cached): the rollout policy ----
def _at_least(total, dice):
    """P(the sum of `dice` six-sided dice >= total)."""
    if total <= 0:
        return 1.0
    if dice == 0:
        return 0.0
    key = (total, dice)
    if key not in _sums:
        sums = {0: 1.0}
        for _ in range(dice):
            nxt = {}
            for s, p in sums.items():
                for face in range(1, 7):
                    nxt[s + face] = nxt.get(s + face, 0.0) + p / 6
            sums = nxt
        _sums[key] = sum(p for s, p in sums.items() if s >= total)
    return _sums[key]


def _dock_chance(boat, rolls_left, shift=0):
    berth = boat.get("berth")
    if berth:
        return 1.0 if berth.startswith("harbour") else 0.0
    position = (boat.get("position") or 0) + shift
    return _at_least(LAST + 1 - position, rolls_left)


def _tails_of(chances):
    """P(at least k of independent events with these chances happen), by k from 0 to
    3 past their number (where it is 0), remembered: rollouts meet the same few boat
    positions over and over."""
    key = tuple(chances)
    tails = _tails.get(key)
    if tails is None:
        dist = [1.0]
        for p in chances:
            nxt = [0.0] * (len(dist) + 1)
            for n, q in enumerate(dist):
                nxt[n] += q * (1 - p)
                nxt[n + 1] += q * p
            dist = nxt
        tails = [sum(dist[k:]) for k in range(len(dist) + 3)]  # k up to len(chances) + 3
        if len(_tails) >= TAILS_KEPT:
            _tails.clear()
        _tails[key] = tails
    return tails


def _placement_valuer(view):
    """The value of a placement in `view`, as a function of the action.

    What every placement shares (the boats' chances to dock, the chance that at
    least k of them dock or miss) is worked out once for all the spaces offered:
    a rollout values every placement at every step.
    """
    rolls_left = ROLLS - view["rolls"]
    boats = {b["good"]: b for b in view["boats"]}
    chances = [_dock_chance(b, rolls_left) for b in view["boats"]]
    docked = _tails_of(chances)  # docked[k]: P(at least k boats dock)
    lost = _tails_of([1 - c for c in chances])  # lost[k]: P(at least k miss)
    me = view["seat"]

    def value(action):
        space = action.get("space")
        if space == "boat":
            boat = boats[action["good"]]
            share = PROFIT[action["good"]] / (len(boat["crew"]) + 1)
            return _dock_chance(boat, rolls_left) * share - boat["next_seat_cost"]
        if space in HARBOUR_PAY:
            k = "abc".index(space[-1]) + 1
            return docked[k] * HARBOUR_PAY[space] - SPACE_COST[space]
        if space in SHIPYARD_PAY:
            k = "abc".index(space[-1]) + 1
            return lost[k] * SHIPYARD_PAY[space] - SPACE_COST[space]
        if space == "insurance":
            owed = 0.0
            for k, name in enumerate(("shipyard_a", "shipyard_b", "shipyard_c"), start=1):
                holder = view["spaces"].get(name)
                weight = 1.0 if holder is not None and holder != me else 0.5
                owed += weight * lost[k] * SHIPYARD_PAY[name]
            return 10 - owed
        return -1.0  # pirates and pilots: the search weighs them

    return value


def _stake(view, good):
    """What this seat gains if the boat of `good` docks."""
    boat = next(b for b in view["boats"] if b["good"] == good)
    mine = sum(1 for s in boat["crew"] if s == view["seat"])
    crew_share = mine * PROFIT[good] / max(1, len(boat["crew"]))
    return crew_share + 5 * view["my_shares"].get(good, 0)


def _start_score(view, action):
    mine = view["my_shares"]
    return sum((mine.get(g, 0) + 0.1) * p for g, p in action["positions"].items())


def _best(options, score):
    return max(options, key=score) if options else None


def _greedy(view, legal):
    """The house greedy bot's move: a one-step heuristic, cheap enough for rollouts."""
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
        return _best(plain, lambda a: _start_score(view, a))
    if phase == "place":
        cash = view["cash"][view["seat"]]
        places = [a for a in by_type.get("place", []) if SPACE_COST.get(a.get("space"), 0) <= cash]
        boats = {b["good"]: b for b in view["boats"]}
        places = [
            a
            for a in places
            if a.get("space") != "boat" or boats[a["good"]]["next_seat_cost"] <= cash
        ]
        value = _placement_valuer(view)
        choice = _best(places, value)
        if choice is not None and value(choice) > 0:
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
