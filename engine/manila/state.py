"""Manila's state: one voyage after another until a good's price reaches 30.

A voyage is a fixed schedule of steps (placement rounds, rolls, pilots); the
state walks it, stopping wherever a player must decide. Money moves only
through `_transfer`, which logs every payment, so the books can be audited.

Built for search as much as for matches (a random decision costs a few
microseconds): legal lists are made of shared action dicts (`actions.py`), the
event log holds compact tuples turned into dicts only when something reads them
(`events.py`), and `clone` copies each field by what it holds. Views, logs,
records and the generator's draws are exactly those of the plain version.
"""

from __future__ import annotations

from engine.core import Action, CompactLog, IllegalAction, SharedAction, State
from engine.manila import actions as A
from engine.manila import data as D
from engine.manila import events as E
from engine.manila import scoring, view

VERSION = "manila-2"
# Older versions this engine still replays with their own rules (RULES.md, "Versions").
REPLAYS = ("manila-1",)

# Phases where the player on move may also mortgage or redeem a share.
MONEY_PHASES = frozenset({"auction", "buy", "place"})
# Phases where a seat on move is left to decide (the others wait for the schedule).
CHOOSING_PHASES = frozenset({"buy", "load", "start"})
# Phases whose decision hands the move on to the schedule (`_advance`); after a bid,
# a purchase or a load the next decision is known at once.
SCHEDULED_AFTER = frozenset({"start", "board", "pilot", "plunder"})

# A voyage's schedule. Manila: with 3 players two placement rounds come before the first roll.
STEPS_3 = ("place", "place", "roll", "place", "roll", "place", "pilots", "roll", "settle")
STEPS = STEPS_3[1:]
# Every seat once from a given seat on (a round's order, an auction's bidders), by table size.
ROUND_ORDERS = {
    n: tuple(tuple((first + i) % n for i in range(n)) for first in range(n)) for n in (3, 4, 5)
}
LAST_PRICE = len(D.PRICE_TRACK) - 1
SEAT_COUNT = {g: len(costs) for g, costs in D.SEAT_COSTS.items()}
# A boat's seat costs, then one no capacity reaches (the boat is full).
SEAT_OR_FULL = {g: (*costs, 1 << 62) for g, costs in D.SEAT_COSTS.items()}
# The spaces a voyage starts with free (the pirate ship is kept apart, in `pirates`).
SPACE_KEYS = tuple(s for s in D.SPACES if s != "pirate")
NO_SPACE = 1 << 30  # the cost of the cheapest free space when none is left
# The spaces other than the pirate ship, as a mask over SPACES (`_free` at a voyage's start).
FREE_SPACES = A.ALL_SPACES & ~A.PIRATE_BIT
MAX_COST = max(*D.SPACE_COST.values(), *(c for costs in D.SEAT_COSTS.values() for c in costs))


class ManilaState(CompactLog, State):
    """A Manila game for 3 to 5 players."""

    game_name = "manila"
    engine_version = VERSION
    replays = REPLAYS
    private_view_keys = ("my_shares", "my_mortgaged")
    # Caches derived from the fields live in slots, apart from the fields `vars()`
    # lists (those `setup_position` may set and a determinization rebuilds):
    # `_purse[seat]` is what `_shares_of` says of the seat's shares, or None until asked.
    __slots__ = ("_purse",)

    def __init__(
        self, num_players: int, seed: int, options: dict, version: str | None = None
    ) -> None:
        super().__init__(num_players, seed, options, version)
        # manila-1 let a player with no money and no unmortgaged share take the free
        # insurance space and kept him off the boats while it was free (RULES.md).
        self._v1_stowaways = self.version == "manila-1"
        n = num_players
        self.cash = [D.START_CASH] * n
        self.bank = 0  # net pesos the bank has received (negative: paid out)
        self.prices = {g: 0 for g in D.GOODS}  # index into PRICE_TRACK
        self.held = [{g: 0 for g in D.GOODS} for _ in range(n)]  # unmortgaged shares
        self.mortgaged = [{g: 0 for g in D.GOODS} for _ in range(n)]
        # Which shares each seat was dealt (secret) and bought (public): the split
        # matters only to resample hidden information.
        self.dealt: list[list[str]] = [[] for _ in range(n)]
        self.bought: list[list[str]] = [[] for _ in range(n)]
        self.supply = {g: D.SHARES_PER_GOOD for g in D.GOODS}
        self._purse: list[tuple[int, int, int] | None] = [None] * n  # see `_shares_of`
        self._deal()
        self.voyage = 0
        self.harbour_master = 0
        self.game_over = False
        self._start_voyage(previous=0)

    # -- the event log -------------------------------------------------------
    # Compact entries (`CompactLog`, the entry shapes in events.py); "prices", the
    # game's pause_after event, is always logged through `emit`.
    _event_dict = staticmethod(E.as_dict)
    _fresh_event_dict = staticmethod(E.as_fresh_dict)
    _event_entry = staticmethod(E.as_entry)

    # -- setup ---------------------------------------------------------------
    def _deal(self) -> None:
        if self.options["deal_from_all_shares"]:
            pool = [g for g in D.GOODS for _ in range(D.SHARES_PER_GOOD)]
        else:
            pool = [g for g in D.GOODS for _ in range(D.DEALT_POOL_PER_GOOD)]
        self.rng.shuffle(pool)
        for seat in range(self.num_players):
            for _ in range(D.SHARES_DEALT_EACH):
                good = pool.pop()
                self.dealt[seat].append(good)
                self.held[seat][good] += 1
                self.supply[good] -= 1

    def _start_voyage(self, previous: int) -> None:
        """Reset the board and open the harbour-master auction."""
        n = self.num_players
        self.voyage += 1
        self.phase = "auction"
        self.auction_active = list(ROUND_ORDERS[n][previous])
        self.high_bid = 0
        self.high_bidder: int | None = None
        self.harbour_master = previous
        self.loaded: list[str] = []
        self.position: dict[str, int] = {}
        self.crew: dict[str, list[int]] = {}
        self.boarded: dict[str, list[int]] = {}
        self.berth: dict[str, str | None] = {}  # good -> harbour/shipyard space it went to
        self.spaces: dict[str, int | None] = dict.fromkeys(SPACE_KEYS)
        self._free = FREE_SPACES  # which of `spaces` are free, a mask over SPACES
        self.pirates: list[int] = []  # [captain (bow), stern] still on the pirate ship
        self.accomplices = [D.ACCOMPLICES[n]] * n
        self.passed = [False] * n
        self.rolls = 0
        self.dice: dict[str, int] = {}
        self.plundered: list[str] = []
        self.queue: list[tuple[str, int, str | None]] = []  # pending (kind, seat, good)
        self.turn: int | None = previous
        self.steps = STEPS_3 if n == 3 else STEPS  # shared: never edited
        self.step = -1
        self.round_order: list[int] = []
        self._events.append((E.VOYAGE, "voyage", self.voyage, previous))

    def _after_setup(self) -> None:
        """Keep the order the legal lists rely on: shares by GOODS, spaces by SPACES."""
        self.held = [_ordered(h, D.GOODS) for h in self.held]
        self.mortgaged = [_ordered(m, D.GOODS) for m in self.mortgaged]
        self.spaces = _ordered(self.spaces, D.SPACES)
        self._purse = [None] * self.num_players
        self._free = free_spaces(self.spaces)

    # -- the fixed API -----------------------------------------------------------
    def current_player(self) -> int | None:
        return None if self.game_over else self.turn

    def is_over(self) -> bool:
        return self.game_over

    def legal_actions(self) -> list[Action]:
        """Every action the current player may take now, in a fresh list of read-only actions."""
        if self.game_over or self.turn is None:
            return []
        legal = self._legal_cache
        if legal is None:
            legal = self._legal_cache = self._legal_actions()
        return legal[:]  # read-only shared actions (`actions.py`): the list is the caller's

    def apply(self, action: Action) -> None:
        """Apply one legal action; raise IllegalAction (state unchanged) otherwise.

        `State.apply` as the core has it, for the compact log: the history keeps the
        engine's own action dict (a caller's equal copy of other types, 41.0 for 41,
        never reaches the rules or the replay).
        """
        legal = self._legal_cache
        if legal is None:  # (a cached list means a seat is on move)
            if self.turn is None or self.game_over:
                raise IllegalAction("the game is over")
            legal = self._legal_actions()
        seat: int = self.turn  # type: ignore[assignment]  # on move, as just said
        if not isinstance(action, dict):
            raise IllegalAction(f"an action is a dict, not {type(action).__name__}")
        try:
            index = legal.index(action)
        except ValueError:
            raise IllegalAction(f"not a legal action for seat {seat}: {action!r}") from None
        # The engine's own dict goes on and into the history: shared, never edited
        # (`record` hands out copies).
        action = legal[index]
        self._legal_cache = None
        self._seen[seat] = len(self._events)
        self.history.append((seat, action))
        # The rules (`State._apply`), written out here: a playout applies thousands.
        phase = self.phase
        kind = action["type"]
        if phase == "place" and (kind == "place" or kind == "pass"):
            self._do_place(seat, action)  # it hands the move on
            return
        if kind == "mortgage":
            self._mortgage(seat, action["good"])
            return  # the same decision goes on
        if kind == "redeem":
            good = action["good"]
            mortgaged = self.mortgaged[seat]
            mortgaged[good] -= 1
            self.held[seat][good] += 1
            purse = self._purse[seat]
            if purse is not None:  # one more share held, maybe none left face down
                worth, up, down = purse
                bit = A.GOOD_BIT[good]
                down = down if mortgaged[good] else down & ~bit
                self._purse[seat] = (worth + D.MORTGAGE_VALUE, up | bit, down)
            self._transfer(seat, "bank", D.REDEEM_COST, "redeem")
            return
        _DO[phase](self, seat, action)
        if phase in SCHEDULED_AFTER:
            self._advance()

    def clone(self) -> ManilaState:
        """An independent copy for search (see `State.clone`), each field copied by its shape."""
        other = object.__new__(ManilaState)
        fields = dict(self.__dict__)
        fields.update(
            options=dict(self.options),
            rng=self.rng.copy(),
            history=list(self.history),
            _events=list(self._events),
            _log_dicts=[],
            _seen=list(self._seen),
            _legal_cache=None if self._legal_cache is None else list(self._legal_cache),
            cash=list(self.cash),
            prices=dict(self.prices),
            held=[dict(h) for h in self.held],
            mortgaged=[dict(m) for m in self.mortgaged],
            dealt=[list(d) for d in self.dealt],
            bought=[list(b) for b in self.bought],
            supply=dict(self.supply),
            auction_active=list(self.auction_active),
            loaded=list(self.loaded),
            position=dict(self.position),
            crew={g: list(c) for g, c in self.crew.items()},
            boarded={g: list(b) for g, b in self.boarded.items()},
            berth=dict(self.berth),
            spaces=dict(self.spaces),
            pirates=list(self.pirates),
            accomplices=list(self.accomplices),
            passed=list(self.passed),
            dice=dict(self.dice),
            plundered=list(self.plundered),
            queue=list(self.queue),
            round_order=list(self.round_order),
        )
        other.__dict__.update(fields)
        other._purse = list(self._purse)
        return other

    def fortune(self, seat: int) -> int:
        """Cash + unmortgaged shares at market price − 15 per mortgaged share."""
        return scoring.fortune(self, seat)

    def _scores(self) -> list[int]:
        return [self.fortune(s) for s in range(self.num_players)]

    # -- money ---------------------------------------------------------------
    def capacity(self, seat: int) -> int:
        """Cash plus what mortgaging every unmortgaged share would raise."""
        return self.cash[seat] + (self._purse[seat] or self._shares_of(seat))[0]

    def _shares_of(self, seat: int) -> tuple[int, int, int]:
        """What a seat's shares raise if all mortgaged, and which it may mortgage or redeem.

        (pesos, mask of the goods held unmortgaged, mask of those mortgaged), the
        masks over GOODS; kept in `_purse` until the seat's shares change (every
        change sets its entry to None).
        """
        held = self.held[seat].values()
        entry = (D.MORTGAGE_VALUE * sum(held), A.mask(held), A.mask(self.mortgaged[seat].values()))
        self._purse[seat] = entry
        return entry

    def _transfer(self, payer, payee, amount: int, reason: str) -> None:
        """Move pesos between a seat and the bank ("bank"), and log the payment."""
        if amount <= 0:
            return
        if payer == "bank":
            self.bank -= amount
        else:
            self.cash[payer] -= amount
        if payee == "bank":
            self.bank += amount
        else:
            self.cash[payee] += amount
        self._events.append((E.PAY, "pay", payer, payee, amount, reason))

    def _mortgage(self, seat: int, good: str, forced: bool = False) -> None:
        held = self.held[seat]
        held[good] -= 1
        self.mortgaged[seat][good] += 1
        purse = self._purse[seat]
        if purse is not None:  # one share face down, maybe none left held
            worth, up, down = purse
            bit = A.GOOD_BIT[good]
            up = up if held[good] else up & ~bit
            self._purse[seat] = (worth - D.MORTGAGE_VALUE, up, down | bit)
        # Manila: a mortgaged share lies face down; which good it is stays secret.
        self._transfer("bank", seat, D.MORTGAGE_VALUE, "forced_mortgage" if forced else "mortgage")

    def _raise_cash(self, seat: int, amount: int) -> None:
        """Mortgage shares (cheapest market value first) until `seat` has `amount`."""
        held, prices = self.held[seat], self.prices
        while self.cash[seat] < amount:
            cheapest = None
            for good in D.GOODS:  # the first of the lowest price, in the order of GOODS
                if held[good] and (cheapest is None or prices[good] < prices[cheapest]):
                    cheapest = good
            if cheapest is None:
                return
            self._mortgage(seat, cheapest, forced=True)

    def _pay(self, seat: int, amount: int, payee, reason: str) -> int:
        """Pay, mortgaging when short; pays all it can and returns the amount paid."""
        cash = self.cash
        if cash[seat] < amount:
            self._raise_cash(seat, amount)
            amount = min(amount, cash[seat])
        if amount > 0:  # `_transfer` written out
            cash[seat] -= amount
            if payee == "bank":
                self.bank += amount
            else:
                cash[payee] += amount
            self._events.append((E.PAY, "pay", seat, payee, amount, reason))
        return amount

    # -- legal actions ---------------------------------------------------------
    def _legal_actions(self) -> list[Action]:
        """The legal list, made of shared dicts (`actions.py`); never edited once made."""
        seat = self.turn
        assert seat is not None  # asked only while a seat is on move
        phase = self.phase
        acts: list[Action]
        if phase in MONEY_PHASES:
            worth, can_mortgage, can_redeem = self._purse[seat] or self._shares_of(seat)
            cash = self.cash[seat]
            cap = cash + worth
            if phase == "place":
                acts = self._placements(seat, cap)
            elif phase == "auction":
                high = self.high_bid
                if high < cap < A.BID_TABLE:
                    # The bids from high + 1 to cap, after the one slot that becomes the pass.
                    acts = A.BIDS[high : cap + 1]
                    acts[0] = A.PASS
                elif cap < A.BID_TABLE:
                    acts = [A.PASS]
                else:
                    acts = A.bids(self.high_bid + 1, cap)
            else:
                acts = [A.PASS]
                supply = self.supply
                prices, costs = self.prices, A.SHARE_COST
                acts += [A.BUY[g] for g in D.GOODS if supply[g] and costs[prices[g]] <= cap]
            # The player on move may also mortgage or redeem a share.
            if can_mortgage:
                acts += A.MORTGAGE_SETS[can_mortgage]
            if can_redeem and cash >= D.REDEEM_COST:
                acts += A.REDEEM_SETS[can_redeem]
            return acts
        if phase == "load":
            return A.LOADS
        if phase == "start":
            return A.starts(self.loaded)
        if phase == "pilot":
            return self._pilot_actions(self.queue[0][2])
        if phase == "board":
            return self._board_actions()
        if phase == "plunder":
            good = self.queue[0][2]
            assert good is not None  # a plunder's queue entry names its boat
            return A.PLUNDER[good]
        raise AssertionError(phase)  # pragma: no cover - every phase on move is above

    def share_cost(self, good: str) -> int:
        """What the harbour master pays for a share: its price, at least 5."""
        return A.SHARE_COST[self.prices[good]]

    def free_seats(self, good: str) -> int:
        return SEAT_COUNT[good] - len(self.crew[good])

    def seat_cost(self, good: str) -> int:
        """The cheapest free seat of a boat."""
        return D.SEAT_COSTS[good][len(self.crew[good])]

    def _open_boats(self) -> list[str]:
        """Boats that still take accomplices: not docked, with a free seat."""
        berth, crew = self.berth, self.crew
        return [g for g in self.loaded if berth[g] is None and len(crew[g]) < SEAT_COUNT[g]]

    def _placements(self, seat: int, cap: int) -> list[dict]:
        """Pass, then every boat seat and space `seat` (able to raise `cap`) may take."""
        acts = [A.PASS]
        berth, crew = self.berth, self.crew
        if cap == 0 and not self._v1_stowaways:
            # Manila, «Polizones»: with no money and no share to borrow on, a player
            # may place only as a stowaway on a free boat seat, at no cost (`_open_boats`).
            for good in self.loaded:
                if berth[good] is None and len(crew[good]) < SEAT_COUNT[good]:
                    acts.append(A.PLACE_BOAT[good])
            return acts
        for good in self.loaded:
            if berth[good] is None and SEAT_OR_FULL[good][len(crew[good])] <= cap:
                acts.append(A.PLACE_BOAT[good])
        # Which spaces are free (the pirate ship has two places), then which of them
        # the seat can afford.
        free = self._free if len(self.pirates) > 1 else self._free | A.PIRATE_BIT
        if cap < A.DEAREST_SPACE:
            free &= A.AFFORDABLE[cap]
        if free:
            acts += A.SPOTS[free]
        elif len(acts) == 1:
            # Manila: a player who can afford nothing may stow away on a free boat
            # seat, paying all his cash.
            acts += [A.PLACE_BOAT[g] for g in self._open_boats()]
        return acts

    def _board_actions(self) -> list[dict]:
        targets = [
            g for g in self.loaded if self.position[g] == D.PIRATE_SPACE and not self.berth[g]
        ]
        acts: list[Action] = [A.STAY]
        free = [g for g in targets if self.free_seats(g)]
        acts += [A.BOARD[g] for g in free]
        if self.options["pirate_variant"] and not free:
            # Variant: a full boat may be boarded by sending one accomplice home;
            # a pirate who boarded this voyage cannot be sent home.
            for g in targets:
                crew, boarded = self.crew[g], self.boarded[g]
                for owner in sorted(set(crew)):
                    if crew.count(owner) > boarded.count(owner):
                        acts.append(SharedAction(type="board", good=g, evict=owner))
        return acts

    def _pilot_actions(self, pilot: str | None) -> list[dict]:
        position, berth = self.position, self.berth
        boats = tuple((g, min(position[g], 2)) for g in self.loaded if berth[g] is None)
        large = pilot == "large_pilot"
        known = A.PILOTS.get((large, boats))  # boats loaded out of the order of GOODS: not
        return known if known is not None else A.pilot_moves(large, boats)

    # -- applying actions ------------------------------------------------------
    def _do_auction(self, seat: int, action: dict) -> None:
        active = self.auction_active
        i = active.index(seat)
        if action["type"] == "pass":
            active.pop(i)
            self._events.append((E.SEAT, "auction_pass", seat))
        else:
            self.high_bid, self.high_bidder = action["amount"], seat
            self._events.append((E.SEAT_AMOUNT, "bid", seat, action["amount"]))
            i += 1
        if not active:
            # Nobody bid: the previous harbour master keeps the office for free.
            self._appoint(self.harbour_master, 0)
        elif self.high_bidder is not None and len(active) == 1 and active[0] == self.high_bidder:
            self._appoint(self.high_bidder, self.high_bid)
        else:
            self.turn = active[i % len(active)]

    def _appoint(self, seat: int, price: int) -> None:
        self.harbour_master = seat
        self._pay(seat, price, "bank", "harbour_master")
        self._events.append((E.SEAT_PRICE, "harbour_master", seat, price))
        self.phase, self.turn = "buy", seat

    def _do_buy(self, seat: int, action: dict) -> None:
        if action["type"] == "buy":
            good = action["good"]
            self._pay(seat, self.share_cost(good), "bank", "share")
            self.supply[good] -= 1
            self.held[seat][good] += 1
            self._purse[seat] = None
            self.bought[seat].append(good)
            self._events.append((E.SEAT_GOOD, "share_bought", seat, good))
        self.phase = "load"

    def _do_load(self, seat: int, action: dict) -> None:
        self.loaded = list(action["goods"])
        for g in self.loaded:
            self.crew[g], self.boarded[g], self.berth[g] = [], [], None
        self._events.append((E.LOADED, "loaded", list(self.loaded)))
        self.phase = "start"

    def _do_start(self, seat: int, action: dict) -> None:
        self.position = dict(action["positions"])
        self._events.append((E.BOATS_START, "boats_start", dict(self.position)))
        self.turn = None  # the schedule takes over

    def _do_place(self, seat: int, action: dict) -> None:
        if action["type"] == "pass":
            # Manila: a player who passes places no more accomplices this voyage.
            self.passed[seat] = True
            self._events.append((E.SEAT, "placement_pass", seat))
        else:
            self._place(seat, action)
        if not self._hand_on_placement():
            self._advance()

    def _hand_on_placement(self) -> bool:
        """Give the move to the next seat of this round who may still place; False (and
        nobody on the move) when the round has none left."""
        order, passed, left = self.round_order, self.passed, self.accomplices
        while order:
            seat = order.pop(0)
            if not passed[seat] and left[seat] > 0:
                self.turn = seat
                return True
        self.turn = None
        return False

    def _place(self, seat: int, action: dict) -> None:
        space = action["space"]
        self.accomplices[seat] -= 1
        cash = self.cash
        if space == "boat":
            good = action["good"]
            crew = self.crew[good]
            # With cash for any space or seat he is no stowaway (`_is_stowaway`).
            if cash[seat] < MAX_COST and self._is_stowaway(seat):
                self._transfer(seat, "bank", cash[seat], "stowaway")
                self._events.append((E.PLACED_STOWAWAY, "placed", seat, "boat", good, True))
            else:
                cost = D.SEAT_COSTS[good][len(crew)]
                if cash[seat] >= cost:  # `_pay` without the need to mortgage
                    cash[seat] -= cost
                    self.bank += cost
                    self._events.append((E.PAY, "pay", seat, "bank", cost, "placement"))
                else:
                    self._pay(seat, cost, "bank", "placement")
                self._events.append((E.PLACED_BOAT, "placed", seat, "boat", good))
            crew.append(seat)
            return
        cost = D.SPACE_COST[space]
        if 0 < cost <= cash[seat]:  # `_pay` without the need to mortgage
            cash[seat] -= cost
            self.bank += cost
            self._events.append((E.PAY, "pay", seat, "bank", cost, "placement"))
        else:
            self._pay(seat, cost, "bank", "placement")
        if space == "pirate":
            self.pirates.append(seat)
        else:
            self.spaces[space] = seat
            self._free &= ~A.SPACE_BIT[space]
        if space == "insurance":
            self._transfer("bank", seat, D.INSURANCE_BONUS, "insurance")
        self._events.append((E.PLACED, "placed", seat, space))

    def _free_spaces(self) -> list[str]:
        """Spaces other than boat seats that nobody holds (the pirate ship has two)."""
        return [
            space
            for space in D.SPACES
            if (len(self.pirates) < 2 if space == "pirate" else self.spaces[space] is None)
        ]

    def _is_stowaway(self, seat: int) -> bool:
        """A boat seat taken by a player without the means to pay for any free space.

        With nothing at all (no cash, no unmortgaged share) he is always one
        (manila-2); otherwise only when every free space costs more than he can
        raise (then he pays all his cash).
        """
        cap = self.capacity(seat)
        if cap >= MAX_COST:
            return False  # no space costs more, and the boat he takes is free
        return (cap == 0 and not self._v1_stowaways) or cap < self._cheapest_cost()

    def _cheapest_cost(self) -> int:
        """Cost of the cheapest free space or seat right now (a large number if none)."""
        if self.spaces["insurance"] is None:
            return 0  # the insurance space is free of charge
        costs = [self.seat_cost(g) for g in self._open_boats()]
        costs += [D.SPACE_COST[space] for space in self._free_spaces()]
        return min(costs, default=NO_SPACE)

    def _do_board(self, seat: int, action: dict) -> None:
        _, _, role = self.queue.pop(0)
        if action["type"] == "stay":
            self._events.append((E.SEAT, "pirate_stays", seat))
            return
        good = action["good"]
        if "evict" in action:
            self.crew[good].remove(action["evict"])
            self._events.append((E.SEAT_GOOD, "evicted", action["evict"], good))
        # The captain is always first on the ship; the stern pirate always last.
        self.pirates.pop(0 if role == "bow" else -1)
        self.crew[good].append(seat)
        self.boarded[good].append(seat)
        self._events.append((E.SEAT_GOOD, "boarded", seat, good))

    def _do_pilot(self, seat: int, action: dict) -> None:
        _, _, pilot = self.queue.pop(0)
        for move in action["moves"]:
            self._move(move["good"], move["steps"])
        self._events.append((E.PILOT, "pilot", seat, pilot, action["moves"]))

    def _do_plunder(self, seat: int, action: dict) -> None:
        self.queue.pop(0)
        good = action["good"]
        where = self._next_free(D.HARBOURS if action["to"] == "harbour" else D.SHIPYARDS)
        self.berth[good] = where
        self._events.append((E.GOOD_BERTH, "plunder_to", good, where))

    # -- the automatic parts of a voyage ---------------------------------------
    def _next_free(self, berths: tuple[str, ...]) -> str:
        used = self.berth.values()
        for where in berths:
            if where not in used:
                return where
        raise AssertionError("no free berth")  # pragma: no cover - three boats, three berths

    def _move(self, good: str, steps: int) -> None:
        if self.berth[good] is not None:
            return
        pos = self.position[good] + steps
        self.position[good] = pos
        if pos > D.LANE_LAST:
            self.berth[good] = where = self._next_free(D.HARBOURS)
            self._events.append((E.GOOD_BERTH, "docked", good, where))

    def _advance(self) -> None:
        """Run automatic steps until a player must decide or the game ends."""
        while True:
            phase = self.phase
            if phase == "auction" or (phase in CHOOSING_PHASES and self.turn is not None):
                return
            if self.queue:
                kind, seat, _ = self.queue[0]
                self.phase, self.turn = kind, seat
                if self._only_a_no_op():
                    self.queue.pop(0)  # nothing to decide: skip this pirate or pilot
                    continue
                return
            if phase == "place" and self._hand_on_placement():
                return
            self.step += 1
            step = self.steps[self.step]
            if step == "place":
                self._open_placement_round()
            elif step == "roll":
                self._roll()
            elif step == "pilots":
                for pilot in ("small_pilot", "large_pilot"):
                    holder = self.spaces[pilot]
                    if holder is not None:
                        self.queue.append(("pilot", holder, pilot))
                self.phase = "pilots"
            elif step == "settle":
                scoring.settle(self)
                self._end_voyage()
                if self.game_over:
                    return

    def _only_a_no_op(self) -> bool:
        if self.phase == "board":
            return len(self._board_actions()) == 1
        if self.phase == "pilot":
            return all(self.berth[g] is not None for g in self.loaded)
        return False

    def _open_placement_round(self) -> None:
        n = self.num_players
        self.phase = "place"
        self.round_order = list(ROUND_ORDERS[n][self.harbour_master])
        self.turn = None

    def _roll(self) -> None:
        self.phase = "roll"
        self.rolls += 1
        die, loaded, position, berth = self.rng.die, self.loaded, self.position, self.berth
        dice: dict[str, int] = {}
        for g in loaded:  # a loop, not a comprehension (a function call each roll)
            dice[g] = die()
        self.dice = dice
        self._events.append((E.ROLL, "roll", self.rolls, dict(dice)))
        on_13 = []  # boats at sea on the pirate space after the roll
        for g in loaded:  # `_move` written out
            if berth[g] is None:
                pos = position[g] = position[g] + dice[g]
                if pos > D.LANE_LAST:
                    berth[g] = where = self._next_free(D.HARBOURS)
                    self._events.append((E.GOOD_BERTH, "docked", g, where))
                elif pos == D.PIRATE_SPACE:
                    on_13.append(g)
        if self.rolls == 2 and on_13 and self.pirates:
            # Boarding: the captain first, then the stern pirate, each for himself.
            for pirate, role in zip(self.pirates, ("bow", "stern"), strict=False):
                self.queue.append(("board", pirate, role))
        elif self.rolls == 3:
            if self.pirates:
                self.plundered = on_13
                for g in on_13:
                    self._events.append((E.PLUNDERED, "plundered", g, list(self.pirates)))
                    self.queue.append(("plunder", self.pirates[0], g))
            else:
                for g in on_13:  # no pirate aboard the pirate ship: it docks normally
                    self.berth[g] = where = self._next_free(D.HARBOURS)
                    self._events.append((E.GOOD_BERTH, "docked", g, where))

    def _end_voyage(self) -> None:
        for g in self.loaded:
            if self.berth[g] in D.HARBOURS:
                self.prices[g] = min(self.prices[g] + 1, len(D.PRICE_TRACK) - 1)
        # Through `emit`: the replay viewer pauses on this event (Capabilities.pause_after).
        self.emit("prices", prices={g: D.PRICE_TRACK[i] for g, i in self.prices.items()})
        if max(self.prices.values()) == LAST_PRICE:  # a good's price reached 30
            self.game_over = True
            self.turn = None
            self._events.append((E.GAME_OVER, "game_over", self._scores()))
        else:
            self._start_voyage(previous=self.harbour_master)

    # -- what a seat sees (view.py) ---------------------------------------------
    def view(self, seat: int) -> dict:
        return view.build(self, seat)

    def hidden_variant(self, seat: int, seed: int) -> ManilaState:
        return view.hidden_variant(self, seat, seed)


def free_spaces(spaces: dict[str, int | None]) -> int:
    """Which of `spaces` (all but the pirate ship) nobody holds, as a mask over SPACES."""
    return sum(A.SPACE_BIT[space] for space, holder in spaces.items() if holder is None)


def _ordered(fields: dict, order: tuple[str, ...]) -> dict:
    """`fields` with the keys named in `order` first, in that order."""
    return {
        **{key: fields[key] for key in order if key in fields},
        **{key: value for key, value in fields.items() if key not in order},
    }


# What each phase's decision does (`apply`); mortgage and redeem come first, and a
# placement or a pass in the placement rounds goes to `_do_place`, which hands the move on.
_DO = {
    "auction": ManilaState._do_auction,
    "buy": ManilaState._do_buy,
    "load": ManilaState._do_load,
    "start": ManilaState._do_start,
    "board": ManilaState._do_board,
    "pilot": ManilaState._do_pilot,
    "plunder": ManilaState._do_plunder,
}
