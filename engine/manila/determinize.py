"""A full Manila state from one seat's view, for bots that search.

Everything on the board is public; a seat cannot see which goods the others
were dealt, nor which of their shares lie face down (mortgaged). Those are
drawn uniformly: the goods dealt to the others together are known from the open
supply and the open purchases, so only their split is sampled (a shuffle, as
the deal was), then for each other seat which of its shares are mortgaged (any
of them equally, keeping the public count). The position in the voyage's
schedule (which placement round, whose pirate or pilot turn is next) is rebuilt
from the view; where the view alone cannot tell, its events or the legal list do.
"""

from __future__ import annotations

from engine.core import Action, State
from engine.manila import data as D
from engine.manila import events as E
from engine.manila.state import SPACE_KEYS, STEPS, STEPS_3, ManilaState, free_spaces


def determinize(view: dict, seed: int, options: dict, legal: list[Action] | None) -> ManilaState:
    """A state of the current rules consistent with `view`, hidden shares drawn from `seed`."""
    if view.get("game") != "manila":
        raise ValueError("not a manila view")
    if view.get("to_move") is None:
        raise ValueError("the game is over: nothing to determinize")
    if "bought" not in view:
        raise ValueError("a manila-1 view: determinize takes views of the current rules")
    # A bare state (no deal, no voyage: the view gives them), then the view's position.
    state = ManilaState.__new__(ManilaState)
    State.__init__(state, view["players"], seed, options)  # a fresh generator from `seed`
    # The log holds the view's events (as `State._as_determinized` has it), kept compact.
    state._events = list(map(E.as_entry, view.get("events", [])))
    _board(state, view)
    _schedule(state, view, legal)
    _shares(state, view)
    return state


def _board(state: ManilaState, view: dict) -> None:
    """Copy the public board: money, prices, the auction, boats and spaces."""
    n = state.num_players
    state._v1_stowaways = False  # the current rules
    state.steps = STEPS_3 if n == 3 else STEPS
    state.voyage = view["voyage"]
    state.harbour_master = view["harbour_master"]
    state.cash = list(view["cash"])
    # Money only moves between seats and the bank, so the bank's books follow.
    state.bank = n * D.START_CASH - sum(state.cash)
    goods = D.GOODS
    # As `{g: view["prices"][g] ...}` would, in the order of GOODS: no comprehension.
    steps = map(D.PRICE_TRACK.index, map(view["prices"].__getitem__, goods))
    state.prices = dict(zip(goods, steps, strict=True))
    state.supply = dict(zip(goods, map(view["supply"].__getitem__, goods), strict=True))
    state.bought = list(map(list, view["bought"]))
    state.phase = view["phase"]
    state.turn = view["to_move"]
    state.game_over = False
    auction = view["auction"]
    state.auction_active = list(auction["bidding"]) if auction else []
    state.high_bid = auction["high_bid"] if auction else 0
    state.high_bidder = auction["high_bidder"] if auction else None
    # The boats in one pass (their order is the order loaded).
    state.loaded = loaded = []
    state.position = position = {}
    state.crew = crew = {}
    state.boarded = boarded = {}
    state.berth = berth = {}
    state.plundered = plundered = []
    for boat in view["boats"]:
        good = boat["good"]
        loaded.append(good)
        if boat["position"] is not None:
            position[good] = boat["position"]
        crew[good] = list(boat["crew"])
        boarded[good] = list(boat["boarded"])
        berth[good] = boat["berth"]
        if boat["plundered"]:
            plundered.append(good)
    spaces = map(view["spaces"].__getitem__, SPACE_KEYS)
    state.spaces = dict(zip(SPACE_KEYS, spaces, strict=True))  # in rule order
    state._free = free_spaces(state.spaces)
    state.pirates = list(view["pirates"])
    state.accomplices = list(view["accomplices"])
    state.passed = list(view["passed"])
    state.rolls = view["rolls"]
    state.dice = dict(view["dice"])


def _schedule(state: ManilaState, view: dict, legal: list[Action] | None) -> None:
    """Where the voyage's schedule stands: its step, the placement round, the queue."""
    steps, turn, n = state.steps, state.turn, state.num_players
    assert turn is not None  # `determinize` refused a view with nobody on move
    state.queue, state.round_order, state.step = [], [], -1
    phase = state.phase
    if phase in ("auction", "buy", "load", "start"):
        return
    if phase == "place":
        # Every round asks each seat that has not passed, so the seat on move has
        # placed once per earlier round (nobody runs out of accomplices earlier).
        placed = D.ACCOMPLICES[n] - state.accomplices[turn]
        state.step = [i for i, s in enumerate(steps) if s == "place"][placed]
        order = [(state.harbour_master + i) % n for i in range(n)]
        state.round_order = order[order.index(turn) + 1 :]
    elif phase == "board":
        state.step = _nth_roll(steps, 2)
        state.queue = _boarding_queue(state, view)
    elif phase == "pilot":
        state.step = steps.index("pilots")
        state.queue = _pilot_queue(state, view, legal)
    elif phase == "plunder":
        state.step = _nth_roll(steps, 3)
        captain = state.pirates[0]
        state.queue = [("plunder", captain, g) for g in state.plundered if state.berth[g] is None]
    else:
        raise ValueError(f"no decision is taken in phase {phase!r}")
    if steps[: state.step + 1].count("roll") != state.rolls:
        raise ValueError("the view's rolls do not match its place in the voyage")


def _nth_roll(steps: tuple[str, ...], k: int) -> int:
    return [i for i, s in enumerate(steps) if s == "roll"][k - 1]


def _boarding_queue(state: ManilaState, view: dict) -> list[tuple]:
    """Captain first, then the stern pirate; a captain who boarded has left the ship."""
    turn, pirates = state.turn, state.pirates
    assert turn is not None  # `determinize` refused a view with nobody on move
    if len(pirates) == 1:
        return [("board", turn, "bow")]  # alone on the ship: either role pops him
    bow, stern = pirates
    if bow != stern:
        return [("board", bow, "bow"), ("board", stern, "stern")][pirates.index(turn) :]
    # One seat holds both places: he is the stern pirate if he already stayed as captain.
    stayed = any(e["event"] == "pirate_stays" and e["seat"] == turn for e in _events(view))
    both = [("board", turn, "bow"), ("board", turn, "stern")]
    return both[1:] if stayed else both


def _pilot_queue(state: ManilaState, view: dict, legal: list[Action] | None) -> list[tuple]:
    """The small pilot moves first, then the large one."""
    turn = state.turn
    small, large = state.spaces["small_pilot"], state.spaces["large_pilot"]
    if small == turn and large == turn:
        if legal is not None:
            # Only the large pilot is offered two steps or two boats.
            is_large = any(
                len(a["moves"]) == 2 or abs(a["moves"][0]["steps"]) == 2
                for a in legal
                if a["moves"]
            )
        else:  # the seat's own small-pilot move is among its events
            is_large = any(
                e["event"] == "pilot" and e["seat"] == turn and e["pilot"] == "small_pilot"
                for e in _events(view)
            )
        both = [("pilot", turn, "small_pilot"), ("pilot", turn, "large_pilot")]
        return both[1:] if is_large else both
    if small == turn:
        after = [("pilot", large, "large_pilot")] if large is not None else []
        return [("pilot", turn, "small_pilot"), *after]
    if large == turn:
        return [("pilot", turn, "large_pilot")]
    raise ValueError(f"seat {turn} holds no pilot")


def _events(view: dict) -> list[dict]:
    return view.get("events") or []


def _shares(state: ManilaState, view: dict) -> None:
    """Own shares from the view; the others' dealt goods and face-down shares sampled."""
    seat, n = view["seat"], state.num_players
    goods = D.GOODS
    held = dict(zip(goods, map(view["my_shares"].__getitem__, goods), strict=True))
    mortgaged = dict(zip(goods, map(view["my_mortgaged"].__getitem__, goods), strict=True))
    bought, supply = state.bought, state.supply
    own_bought = bought[seat]
    every_purchase = [g for purchases in bought for g in purchases]
    # Every share is in the supply, bought openly, or dealt: the others' deal is known
    # as a whole, not who got which.
    own_dealt: list[str] = []
    pool: list[str] = []
    for g in goods:
        mine = max(0, held[g] + mortgaged[g] - own_bought.count(g))
        own_dealt += [g] * mine
        pool += [g] * (D.SHARES_PER_GOOD - supply[g] - mine - every_purchase.count(g))
    others = [s for s in range(n) if s != seat]
    shares, counts = view["shares"], view["mortgaged"]
    sizes = [shares[s] - len(bought[s]) for s in others]
    if len(pool) != sum(sizes) or min(sizes, default=0) < 0:
        raise ValueError("the view's share counts do not add up")
    state.held = all_held = [held] * n
    state.mortgaged = all_mortgaged = [mortgaged] * n
    state.dealt = all_dealt = [own_dealt] * n
    state._purse = [None] * n
    shuffle = state.rng.shuffle
    shuffle(pool)
    start = 0
    for s, size in zip(others, sizes, strict=True):
        all_dealt[s] = dealt = pool[start : start + size]
        start += size
        owned = dealt + bought[s]
        # Which shares lie face down is secret; any of them equally, the count kept.
        shuffle(owned)
        count = counts[s]
        down = dict.fromkeys(goods, 0)
        for g in owned[:count]:
            down[g] += 1
        up = dict.fromkeys(goods, 0)
        for g in owned[count:]:
            up[g] += 1
        all_mortgaged[s], all_held[s] = down, up
