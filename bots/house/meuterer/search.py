"""House bot `meuterer/search`: flat Monte Carlo over determinized worlds.

Each decision samples worlds consistent with its view (`determinize`: the
other hands, the deck order, the characters not yet revealed), tries every
promising action in the same worlds, plays each world on with the greedy
heuristic in every seat to the end of the next round (or of the game), and
picks the action whose score margin over the best other seat is highest on
average: the next round counts because a captain keeps his post, and cards
kept or spent now shape it. It thinks at most 150 ms a move (less under a tight move limit) and
imports the engine as its forward model: the rules it simulates are the
referee's own.
"""

import random
import time

import engine

GAME = engine.get_game("meuterer")

BUDGET_S = 0.150  # thinking time per decision, at most
MOVE_SHARE = 0.25  # and never more than this share of the move limit
MATCH_S = 30.0  # thinking for a whole match (it may use 60 CPU s); past it moves are quick
QUICK_S = 0.02
MAX_WORLDS = None  # a fixed number of worlds per decision instead of the clock (tests)
HORIZON = 2  # rounds a rollout plays: this one and the next (measured best of 1, 2, 3, all)
WIN_BONUS = 8  # a won game is worth this many points of margin on top
KEEP_DISCARD = 6  # stevedore discards tried, the heuristic's best

_me = {"seat": 0, "options": {}, "move_s": 1.0, "spent": 0.0, "rng": random.Random(0)}


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
    """Play greedy moves in every seat until HORIZON rounds have ended, or the game."""
    stop = state.round + HORIZON
    while not state.is_over() and state.round < stop:
        seat = state.current_player()
        state.apply(_greedy(state.view(seat), state.legal_actions()))


def _value(state, seat):
    """This seat's score less the best other score, plus a bonus for a won game."""
    scores = list(state.scores)
    mine = scores.pop(seat)
    margin = mine - max(scores)
    if state.is_over() and margin >= 0:
        margin += WIN_BONUS
    return margin


def _candidates(view, legal):
    """The actions worth simulating, the greedy heuristic's choice first."""
    first = _greedy(view, legal)
    plain = legal
    if view["phase"] == "discard":
        plain = sorted(legal, key=lambda a: -_kept_value(view, a))[:KEEP_DISCARD]
    return [first] + [a for a in plain if a != first]


# -- the greedy heuristic (the house `meuterer/greedy`): the rollout policy -----
def _counts(view, island):
    counts = [0] * view["players"]
    for card in view["table"]:
        if card["island"] == island and card["stage"] == "offer":
            counts[card["seat"]] += 1
    return counts


def _sale(view, island, counts, seat):
    best = max(counts)
    if best == 0 or counts[seat] != best:
        return 0
    sole, two, more = view["islands"][island]["sale"]
    leaders = sum(1 for c in counts if c == best)
    return sole if leaders == 1 else two if leaders == 2 else more


def _gain(view, action):
    """Sale points this seat gains at the island of a `play` action."""
    island = action.get("island")
    if island is None:
        return 0
    seat = view["seat"]
    counts = _counts(view, island)
    before = _sale(view, island, counts, seat)
    counts[seat] += 1
    return _sale(view, island, counts, seat) - before


def _navigation(view, steps):
    return view["islands"][(view["ship"] + steps) % len(view["islands"])]["navigation"]


def _character_value(view, name):
    seat = view["seat"]
    promise = view["promise"] or 0
    reserved = len(view["hand"])
    if name == "boatswain":
        return promise + 1
    if name == "mutineer":
        return 0.6 * _navigation(view, reserved) + 0.3 * view["hand"].count("conflict")
    if name == "cabin_boy":
        return 1.0
    if name == "merchant":
        bonus = 0
        for island in range(len(view["islands"])):
            counts = _counts(view, island)
            if counts[seat] and counts[seat] == max(counts):
                sole = view["islands"][island]["sale"][0]
                bonus += sole - _sale(view, island, counts, seat)
        return bonus + 0.5
    return 0.5  # stevedore: a better hand next round


def _kept_value(view, action):
    # Keep the goods most islands buy; drop conflicts and doubles first.
    kept = list(view["hand"])
    for card in action["cards"]:
        kept.remove(card)
    return len(set(kept)) - 0.5 * kept.count("conflict")


def _greedy(view, legal):
    """The house greedy bot's move: a one-step heuristic, cheap enough for rollouts."""
    phase = view["phase"]
    if phase == "promise":
        return next((a for a in legal if a.get("points") == 1), legal[0])
    if phase == "offer":
        plays = [a for a in legal if a["type"] == "play" and a.get("island") is not None]
        passing = next((a for a in legal if a["type"] == "pass"), legal[0])
        if not plays:
            return passing
        best = max(plays, key=lambda a: _gain(view, a))
        return best if _gain(view, best) > 0 else passing
    if phase == "character":
        return max(legal, key=lambda a: _character_value(view, a["name"]))
    if phase == "mutiny":
        return max(legal, key=lambda a: a["conflicts"])
    if phase == "discard":
        return max(legal, key=lambda a: _kept_value(view, a))
    return legal[0]
