"""House bot `caravelas/search`: flat Monte Carlo over determinized worlds.

Each decision samples worlds consistent with its view (`determinize`: the
other hands, the discovery cards and pile, the movement deck, the die at the
Cape), tries every promising action in the same worlds, plays each world on
with the greedy heuristic in every seat until this seat's next turn is over
(the cards it keeps or spends now play there), and scores the position it
reaches: points won, plus the points still in reach (cubes aboard, discovery
cards held, cubes to take) discounted by the moves to sail for them, less the
best other seat's.
It thinks at most 150 ms a move (less under a tight move limit) and uses the
engine as its forward model and map: the rules it simulates are the
referee's own.
"""

import random
import time

import engine
from engine.caravelas import data
from engine.caravelas.sailing import distances_from

GAME = engine.get_game("caravelas")

BUDGET_S = 0.150  # thinking time per decision, at most
MOVE_SHARE = 0.25  # and never more than this share of the move limit
MATCH_S = 30.0  # thinking for a whole match (it may use 60 CPU s); past it moves are quick
QUICK_S = 0.02
MAX_WORLDS = None  # a fixed number of worlds per decision instead of the clock (tests)
HORIZON = 2  # turns of this seat a rollout plays out: this one and the next
DECAY = 0.95  # value kept per move still to sail (the evaluation)
CUBE_HOPE = 0.6  # share of a cube's slot value counted before it is taken
WIN_BONUS = 20  # a won game is worth this many points of margin on top
KEEP_MOVES = 8  # card moves tried, the heuristic's best
KEEP_OTHER = 6  # keeps and discards tried

POINTS = {place: points for place, (_colour, points) in data.DISCOVERIES.items()}
CARAVEL_OF = {colour: k for k, pair in data.CARAVEL_SLOTS.items() for colour in pair}
LISBOA = data.LISBOA_ID
PENALTY = 2  # an undiscovered card held at the end costs 2 points
GREEDY_DECAY = 0.85  # the greedy heuristic's own discount

_GREEDY_POWERS = [GREEDY_DECAY**d for d in range(100)]  # 99: out of reach

_me = {"seat": 0, "options": {}, "move_s": 1.0, "spent": 0.0, "rng": random.Random(0)}
_dist = {}


def setup(info):
    """Remember the seat, the options and the clock; seed this bot's own generator."""
    limits = info.get("limits") or {}
    _me["seat"] = info["seat"]
    _me["options"] = info.get("options") or {}
    _me["move_s"] = (limits.get("move_ms") or 1000) / 1000
    _me["spent"] = 0.0
    _me["rng"] = random.Random(info.get("seed") or 0)


def act(view, legal):
    """The candidate with the best mean value over sampled worlds (greedy's pick on ties)."""
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
            _rollout(state, seat)
            totals[i] += _value(state, seat)
            counts[i] += 1
            if MAX_WORLDS is None and time.perf_counter() > deadline:
                return _ranked(totals, counts)
    return _ranked(totals, counts)


def _ranked(totals, counts):
    means = [t / c if c else float("-inf") for t, c in zip(totals, counts, strict=True)]
    return sorted(range(len(means)), key=lambda i: (-means[i], i))


def _rollout(state, me):
    """Play greedy moves in every seat until `me` has ended HORIZON turns, or the game."""
    ends = 0
    while not state.is_over():
        seat = state.current_player()
        state.apply(_greedy(state.view(seat), state.legal_actions()))
        if seat == me and state.current_player() != me:
            ends += 1
            if ends >= HORIZON:
                return


def _value(state, me):
    """This seat's worth less the best other seat's, plus a bonus for a won game."""
    if state.is_over():
        result = state.result()
        scores = list(result["scores"])
        mine = scores.pop(me)
        return mine - max(scores) + (WIN_BONUS if result["ranks"][me] == 1 else 0)
    worths = [_worth(state.view(seat)) for seat in range(state.num_players)]
    mine = worths.pop(me)
    return mine - max(worths)


def _worth(view):
    """Points won, plus those in reach discounted by the moves to them."""
    seat = view["seat"]
    here = view["fleets"][seat]
    cargo = view["cargo"][seat]
    held = view["discovery_cards"]
    worth = view["scores"][seat] - PENALTY * len(held)
    if view["end_triggered"]:
        return worth + 2 * len(cargo) if here != LISBOA else worth
    reach = _distances(here)
    home = reach.get(LISBOA, 99)
    worth += sum(data.SLOT_VALUES[c] for c in cargo) * DECAY**home
    for place in held:
        worth += (POINTS[place] + PENALTY) * DECAY ** reach.get(place, 99)
    sunk = view["sunk"][seat]
    hope = 0.0
    for colour, place in data.CUBE_PLACES.items():
        if colour in cargo or not view["cubes"].get(colour) or CARAVEL_OF[colour] in sunk:
            continue
        moves = reach.get(place, 99) + _distances(place).get(LISBOA, 99)
        hope = max(hope, data.SLOT_VALUES[colour] * DECAY**moves)
    return worth + CUBE_HOPE * hope


def _distances(circle):
    if circle not in _dist:
        _dist[circle] = distances_from(circle)
    return _dist[circle]


def _candidates(view, legal):
    """The actions worth simulating, the greedy heuristic's choice first."""
    first = _greedy(view, legal)
    moves = [a for a in legal if a["type"] == "move"]
    if moves:
        scores = _move_scores(_targets(view), moves)
        order = sorted(range(len(moves)), key=lambda i: -scores[i])
        plain = [moves[i] for i in order[:KEEP_MOVES]] + [a for a in legal if a["type"] != "move"]
    elif legal[0]["type"] == "keep":
        here = view["fleets"][view["seat"]]
        plain = sorted(legal, key=lambda a: -_keep_value(here, a))[:KEEP_OTHER]
    elif legal[0]["type"] == "discard":
        # Keeping all, or dropping the smallest cards: the cards that move least.
        plain = sorted(legal, key=lambda a: (sum(a["cards"]), -len(a["cards"])))[:KEEP_OTHER]
    else:
        plain = legal
    return [first] + [a for a in plain if a != first]


# -- the greedy heuristic (the house `caravelas/greedy`): the rollout policy ----
def _distance(start, goal):
    return _distances(start).get(goal, 99)


def _targets(view):
    """circle -> points this seat gains by ending a card there."""
    seat = view["seat"]
    cargo = view["cargo"][seat]
    sunk = view["sunk"][seat]
    found = {}
    for place in view["discovery_cards"]:
        found[place] = found.get(place, 0) + POINTS.get(place, 1) + PENALTY
    for colour, place in data.CUBE_PLACES.items():
        if (
            colour not in cargo
            and view["cubes"].get(colour, 0) > 0
            and CARAVEL_OF[colour] not in sunk
        ):
            found[place] = found.get(place, 0) + 0.6 * data.SLOT_VALUES[colour]
    home = sum(data.SLOT_VALUES[c] for c in cargo) + (3 if sunk else 0)
    if home:
        found[LISBOA] = found.get(LISBOA, 0) + home
    return found


def _potential(here, goals, skip=None):
    """The best goal's value from `here`, discounted per move (`skip` left out)."""
    row, powers = _distances(here), _GREEDY_POWERS
    # A list, not a generator, for max: rollouts weigh every goal at every move.
    values = [v * powers[row.get(c, 99)] for c, v in goals.items() if c != skip]
    return max(values) if values else 0.0


def _move_scores(goals, moves):
    """`_move_score` of every move, worked out once per destination (cards share them)."""
    by_dest = {}
    for action in moves:
        dest = action["to"]
        if dest not in by_dest:
            by_dest[dest] = goals.get(dest, 0.0) + _potential(dest, goals, skip=dest)
    return [by_dest[action["to"]] for action in moves]


def _keep_value(here, action):
    total = 0.0
    for place in action["places"]:
        q = 0.93 ** _distance(here, place)
        total += q * POINTS.get(place, 1) - (1 - q) * PENALTY
    return total


def _greedy(view, legal):
    """The house greedy bot's move: a one-step heuristic, cheap enough for rollouts."""
    kinds = {}
    for action in legal:
        kinds.setdefault(action["type"], []).append(action)
    seat = view["seat"]
    here = view["fleets"][seat]
    if "draw" in kinds:
        return kinds["draw"][0]
    if "keep" in kinds:
        return max(kinds["keep"], key=lambda a: _keep_value(here, a))
    if "sink" in kinds:
        cargo = view["cargo"][seat]

        def loss(action):
            slots = data.CARAVEL_SLOTS[action["caravel"]]
            return sum(data.SLOT_VALUES[c] for c in slots if c in cargo)

        return min(kinds["sink"], key=loss)
    if "discard" in kinds:
        return next((a for a in kinds["discard"] if a["cards"] == []), kinds["discard"][0])
    goals = _targets(view)
    moves = kinds.get("move", [])
    stop = kinds.get("end_turn", [legal[0]])[0]
    if not moves:
        return stop
    scores = _move_scores(goals, moves)
    top = max(scores)
    # Cards come back every turn, so sail on unless the best card loses ground.
    if top >= _potential(here, goals) - 0.5:
        return moves[scores.index(top)]
    return stop
