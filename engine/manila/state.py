"""Manila's state: one voyage after another until a good's price reaches 30.

A voyage is a fixed schedule of steps (placement rounds, rolls, pilots); the
state walks it, stopping wherever a player must decide. Money moves only
through `_transfer`, which logs every payment, so the books can be audited.
"""

from __future__ import annotations

from itertools import combinations

from engine.core import Action, State
from engine.manila import data as D
from engine.manila import scoring, view

VERSION = "manila-2"
# Older versions this engine still replays with their own rules (RULES.md, "Versions").
REPLAYS = ("manila-1",)

# Phases where the player on move may also mortgage or redeem a share.
MONEY_PHASES = frozenset({"auction", "buy", "place"})


class ManilaState(State):
    """A Manila game for 3 to 5 players."""

    game_name = "manila"
    engine_version = VERSION
    replays = REPLAYS
    private_view_keys = ("my_shares", "my_mortgaged")

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
        self._deal()
        self.voyage = 0
        self.harbour_master = 0
        self.game_over = False
        self._start_voyage(previous=0)

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
        self.auction_active = [(previous + i) % n for i in range(n)]
        self.high_bid = 0
        self.high_bidder: int | None = None
        self.harbour_master = previous
        self.loaded: list[str] = []
        self.position: dict[str, int] = {}
        self.crew: dict[str, list[int]] = {}
        self.boarded: dict[str, list[int]] = {}
        self.berth: dict[str, str | None] = {}  # good -> harbour/shipyard space it went to
        self.spaces: dict[str, int | None] = {s: None for s in D.SPACES if s != "pirate"}
        self.pirates: list[int] = []  # [captain (bow), stern] still on the pirate ship
        self.accomplices = [D.ACCOMPLICES[n]] * n
        self.passed = [False] * n
        self.rolls = 0
        self.dice: dict[str, int] = {}
        self.plundered: list[str] = []
        self.queue: list[tuple[str, int, str | None]] = []  # pending (kind, seat, good)
        self.turn: int | None = previous
        self.steps = self._schedule()
        self.step = -1
        self.round_order: list[int] = []
        self.emit("voyage", number=self.voyage, auction_opens=previous)

    def _schedule(self) -> list[str]:
        # Manila: with 3 players two placement rounds come before the first roll.
        steps = ["place", "place"] if self.num_players == 3 else ["place"]
        return [*steps, "roll", "place", "roll", "place", "pilots", "roll", "settle"]

    # -- the fixed API -----------------------------------------------------------
    def current_player(self) -> int | None:
        return None if self.game_over else self.turn

    def is_over(self) -> bool:
        return self.game_over

    def fortune(self, seat: int) -> int:
        """Cash + unmortgaged shares at market price − 15 per mortgaged share."""
        return scoring.fortune(self, seat)

    def _scores(self) -> list[int]:
        return [self.fortune(s) for s in range(self.num_players)]

    # -- money ---------------------------------------------------------------
    def capacity(self, seat: int) -> int:
        """Cash plus what mortgaging every unmortgaged share would raise."""
        return self.cash[seat] + D.MORTGAGE_VALUE * sum(self.held[seat].values())

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
        self.emit("pay", payer=payer, payee=payee, amount=amount, reason=reason)

    def _mortgage(self, seat: int, good: str, forced: bool = False) -> None:
        self.held[seat][good] -= 1
        self.mortgaged[seat][good] += 1
        # Manila: a mortgaged share lies face down; which good it is stays secret.
        self._transfer("bank", seat, D.MORTGAGE_VALUE, "forced_mortgage" if forced else "mortgage")

    def _raise_cash(self, seat: int, amount: int) -> None:
        """Mortgage shares (cheapest market value first) until `seat` has `amount`."""
        while self.cash[seat] < amount:
            goods = [g for g in D.GOODS if self.held[seat][g]]
            if not goods:
                return
            self._mortgage(seat, min(goods, key=lambda g: self.prices[g]), forced=True)

    def _pay(self, seat: int, amount: int, payee, reason: str) -> int:
        """Pay, mortgaging when short; pays all it can and returns the amount paid."""
        self._raise_cash(seat, amount)
        paid = min(amount, self.cash[seat])
        self._transfer(seat, payee, paid, reason)
        return paid

    # -- legal actions ---------------------------------------------------------
    def _legal_actions(self) -> list[Action]:
        seat = self.turn
        assert seat is not None  # the base class asks only while a seat is on move
        phase = self.phase
        acts: list[Action]
        if phase == "auction":
            acts = [{"type": "pass"}]
            top = self.capacity(seat)
            acts += [{"type": "bid", "amount": a} for a in range(self.high_bid + 1, top + 1)]
        elif phase == "buy":
            acts = [{"type": "pass"}]
            cap = self.capacity(seat)
            acts += [
                {"type": "buy", "good": g}
                for g in D.GOODS
                if self.supply[g] and self.share_cost(g) <= cap
            ]
        elif phase == "load":
            acts = [{"type": "load", "goods": list(trio)} for trio in combinations(D.GOODS, 3)]
        elif phase == "start":
            acts = self._start_actions()
        elif phase == "place":
            acts = [{"type": "pass"}, *self._placements(seat)]
        elif phase == "board":
            acts = self._board_actions()
        elif phase == "pilot":
            acts = self._pilot_actions(self.queue[0][2])
        elif phase == "plunder":
            good = self.queue[0][2]
            acts = [
                {"type": "plunder", "good": good, "to": "harbour"},
                {"type": "plunder", "good": good, "to": "shipyard"},
            ]
        else:  # pragma: no cover - every phase with a player on move is listed above
            raise AssertionError(phase)
        if phase in MONEY_PHASES:
            acts += [{"type": "mortgage", "good": g} for g in D.GOODS if self.held[seat][g]]
            if self.cash[seat] >= D.REDEEM_COST:
                acts += [{"type": "redeem", "good": g} for g in D.GOODS if self.mortgaged[seat][g]]
        return acts

    def share_cost(self, good: str) -> int:
        """What the harbour master pays for a share: its price, at least 5."""
        return max(D.MIN_SHARE_PRICE, D.PRICE_TRACK[self.prices[good]])

    def _start_actions(self) -> list[Action]:
        a, b, c = self.loaded
        acts: list[Action] = []
        for pa in range(D.START_MAX + 1):
            for pb in range(D.START_MAX + 1):
                pc = D.START_SUM - pa - pb
                if 0 <= pc <= D.START_MAX:
                    acts.append({"type": "start", "positions": {a: pa, b: pb, c: pc}})
        return acts

    def free_seats(self, good: str) -> int:
        return len(D.SEAT_COSTS[good]) - len(self.crew[good])

    def seat_cost(self, good: str) -> int:
        """The cheapest free seat of a boat."""
        return D.SEAT_COSTS[good][len(self.crew[good])]

    def _open_boats(self) -> list[str]:
        """Boats that still take accomplices: not docked, with a free seat."""
        return [g for g in self.loaded if self.berth[g] is None and self.free_seats(g)]

    def _placements(self, seat: int) -> list[dict]:
        cap = self.capacity(seat)
        if cap == 0 and not self._v1_stowaways:
            # Manila, «Polizones»: with no money and no share to borrow on, a player
            # may place only as a stowaway on a free boat seat, at no cost.
            return [{"type": "place", "space": "boat", "good": g} for g in self._open_boats()]
        acts = [
            {"type": "place", "space": "boat", "good": g}
            for g in self._open_boats()
            if self.seat_cost(g) <= cap
        ]
        acts += [
            {"type": "place", "space": space}
            for space in self._free_spaces()
            if D.SPACE_COST[space] <= cap
        ]
        if not acts:
            # Manila: a player who can afford nothing may stow away on a free boat
            # seat, paying all his cash.
            acts = [{"type": "place", "space": "boat", "good": g} for g in self._open_boats()]
        return acts

    def _board_actions(self) -> list[dict]:
        targets = [
            g for g in self.loaded if self.position[g] == D.PIRATE_SPACE and not self.berth[g]
        ]
        acts: list[Action] = [{"type": "stay"}]
        free = [g for g in targets if self.free_seats(g)]
        acts += [{"type": "board", "good": g} for g in free]
        if self.options["pirate_variant"] and not free:
            # Variant: a full boat may be boarded by sending one accomplice home;
            # a pirate who boarded this voyage cannot be sent home.
            for g in targets:
                crew, boarded = self.crew[g], self.boarded[g]
                for owner in sorted(set(crew)):
                    if crew.count(owner) > boarded.count(owner):
                        acts.append({"type": "board", "good": g, "evict": owner})
        return acts

    def _pilot_actions(self, pilot: str | None) -> list[dict]:
        boats = [g for g in self.loaded if self.berth[g] is None]
        acts: list[dict] = [{"type": "pilot", "moves": []}]

        def ok(good: str, steps: int) -> bool:
            return self.position[good] + steps >= 0  # never below space 0

        singles = [(g, s) for g in boats for s in (1, -1) if ok(g, s)]
        acts += [{"type": "pilot", "moves": [{"good": g, "steps": s}]} for g, s in singles]
        if pilot == "large_pilot":
            acts += [
                {"type": "pilot", "moves": [{"good": g, "steps": s}]}
                for g in boats
                for s in (2, -2)
                if ok(g, s)
            ]
            for (g1, s1), (g2, s2) in combinations(singles, 2):
                if g1 != g2:
                    acts.append(
                        {
                            "type": "pilot",
                            "moves": [{"good": g1, "steps": s1}, {"good": g2, "steps": s2}],
                        }
                    )
        return acts

    # -- applying actions ------------------------------------------------------
    def _apply(self, action: Action) -> None:
        kind = action["type"]
        seat = self.turn
        assert seat is not None  # the base class applies only while a seat is on move
        if kind == "mortgage":
            self._mortgage(seat, action["good"])
            return  # the same decision goes on
        if kind == "redeem":
            good = action["good"]
            self.mortgaged[seat][good] -= 1
            self.held[seat][good] += 1
            self._transfer(seat, "bank", D.REDEEM_COST, "redeem")
            return
        getattr(self, "_do_" + self.phase)(seat, action)
        self._advance()

    def _do_auction(self, seat: int, action: dict) -> None:
        active = self.auction_active
        i = active.index(seat)
        if action["type"] == "pass":
            active.pop(i)
            self.emit("auction_pass", seat=seat)
        else:
            self.high_bid, self.high_bidder = action["amount"], seat
            self.emit("bid", seat=seat, amount=action["amount"])
            i += 1
        if not active:
            # Nobody bid: the previous harbour master keeps the office for free.
            self._appoint(self.harbour_master, 0)
        elif self.high_bidder is not None and active == [self.high_bidder]:
            self._appoint(self.high_bidder, self.high_bid)
        else:
            self.turn = active[i % len(active)]

    def _appoint(self, seat: int, price: int) -> None:
        self.harbour_master = seat
        self._pay(seat, price, "bank", "harbour_master")
        self.emit("harbour_master", seat=seat, price=price)
        self.phase, self.turn = "buy", seat

    def _do_buy(self, seat: int, action: dict) -> None:
        if action["type"] == "buy":
            good = action["good"]
            self._pay(seat, self.share_cost(good), "bank", "share")
            self.supply[good] -= 1
            self.held[seat][good] += 1
            self.bought[seat].append(good)
            self.emit("share_bought", seat=seat, good=good)
        self.phase = "load"

    def _do_load(self, seat: int, action: dict) -> None:
        self.loaded = list(action["goods"])
        for g in self.loaded:
            self.crew[g], self.boarded[g], self.berth[g] = [], [], None
        self.emit("loaded", goods=self.loaded)
        self.phase = "start"

    def _do_start(self, seat: int, action: dict) -> None:
        self.position = dict(action["positions"])
        self.emit("boats_start", positions=dict(self.position))
        self.turn = None  # the schedule takes over

    def _do_place(self, seat: int, action: dict) -> None:
        if action["type"] == "pass":
            # Manila: a player who passes places no more accomplices this voyage.
            self.passed[seat] = True
            self.emit("placement_pass", seat=seat)
            return
        space = action["space"]
        self.accomplices[seat] -= 1
        if space == "boat":
            good = action["good"]
            cost = self.seat_cost(good)
            if self._is_stowaway(seat):
                self._transfer(seat, "bank", self.cash[seat], "stowaway")
                self.emit("placed", seat=seat, space="boat", good=good, stowaway=True)
            else:
                self._pay(seat, cost, "bank", "placement")
                self.emit("placed", seat=seat, space="boat", good=good)
            self.crew[good].append(seat)
            return
        self._pay(seat, D.SPACE_COST[space], "bank", "placement")
        if space == "pirate":
            self.pirates.append(seat)
        else:
            self.spaces[space] = seat
        if space == "insurance":
            self._transfer("bank", seat, D.INSURANCE_BONUS, "insurance")
        self.emit("placed", seat=seat, space=space)

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
        return (cap == 0 and not self._v1_stowaways) or cap < self._cheapest_cost()

    def _cheapest_cost(self) -> int:
        """Cost of the cheapest free space or seat right now (a large number if none)."""
        costs = [self.seat_cost(g) for g in self._open_boats()]
        costs += [D.SPACE_COST[space] for space in self._free_spaces()]
        return min(costs, default=1 << 30)

    def _do_board(self, seat: int, action: dict) -> None:
        _, _, role = self.queue.pop(0)
        if action["type"] == "stay":
            self.emit("pirate_stays", seat=seat)
            return
        good = action["good"]
        if "evict" in action:
            self.crew[good].remove(action["evict"])
            self.emit("evicted", seat=action["evict"], good=good)
        # The captain is always first on the ship; the stern pirate always last.
        self.pirates.pop(0 if role == "bow" else -1)
        self.crew[good].append(seat)
        self.boarded[good].append(seat)
        self.emit("boarded", seat=seat, good=good)

    def _do_pilot(self, seat: int, action: dict) -> None:
        _, _, pilot = self.queue.pop(0)
        for move in action["moves"]:
            self._move(move["good"], move["steps"])
        self.emit("pilot", seat=seat, pilot=pilot, moves=action["moves"])

    def _do_plunder(self, seat: int, action: dict) -> None:
        self.queue.pop(0)
        good = action["good"]
        where = self._next_free(D.HARBOURS if action["to"] == "harbour" else D.SHIPYARDS)
        self.berth[good] = where
        self.emit("plunder_to", good=good, berth=where)

    # -- the automatic parts of a voyage ---------------------------------------
    def _next_free(self, berths: tuple[str, ...]) -> str:
        used = set(self.berth.values())
        return next(b for b in berths if b not in used)

    def _move(self, good: str, steps: int) -> None:
        if self.berth[good] is not None:
            return
        pos = self.position[good] + steps
        self.position[good] = pos
        if pos > D.LANE_LAST:
            self.berth[good] = self._next_free(D.HARBOURS)
            self.emit("docked", good=good, berth=self.berth[good])

    def _advance(self) -> None:
        """Run automatic steps until a player must decide or the game ends."""
        while True:
            if self.phase in ("buy", "load", "start") and self.turn is not None:
                return
            if self.phase == "auction":
                return
            if self.queue:
                kind, seat, _ = self.queue[0]
                self.phase, self.turn = kind, seat
                if self._only_a_no_op():
                    self.queue.pop(0)  # nothing to decide: skip this pirate or pilot
                    continue
                return
            if self.phase == "place" and self._next_placer():
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
        self.round_order = [(self.harbour_master + i) % n for i in range(n)]
        self.turn = None

    def _next_placer(self) -> bool:
        """Give the move to the next player of this round who may still place."""
        while self.round_order:
            seat = self.round_order.pop(0)
            if not self.passed[seat] and self.accomplices[seat] > 0:
                self.turn = seat
                return True
        self.turn = None
        return False

    def _roll(self) -> None:
        self.phase = "roll"
        self.rolls += 1
        self.dice = {g: self.rng.die() for g in self.loaded}
        self.emit("roll", number=self.rolls, dice=dict(self.dice))
        for g in self.loaded:
            self._move(g, self.dice[g])
        on_13 = [g for g in self.loaded if self.position[g] == D.PIRATE_SPACE and not self.berth[g]]
        if self.rolls == 2 and on_13 and self.pirates:
            # Boarding: the captain first, then the stern pirate, each for himself.
            for pirate, role in zip(self.pirates, ("bow", "stern"), strict=False):
                self.queue.append(("board", pirate, role))
        elif self.rolls == 3:
            if self.pirates:
                self.plundered = on_13
                for g in on_13:
                    self.emit("plundered", good=g, pirates=list(self.pirates))
                    self.queue.append(("plunder", self.pirates[0], g))
            else:
                for g in on_13:  # no pirate aboard the pirate ship: it docks normally
                    self.berth[g] = self._next_free(D.HARBOURS)
                    self.emit("docked", good=g, berth=self.berth[g])

    def _end_voyage(self) -> None:
        for g in self.loaded:
            if self.berth[g] in D.HARBOURS:
                self.prices[g] = min(self.prices[g] + 1, len(D.PRICE_TRACK) - 1)
        self.emit("prices", prices={g: D.PRICE_TRACK[i] for g, i in self.prices.items()})
        if any(D.PRICE_TRACK[i] == D.PRICE_TRACK[-1] for i in self.prices.values()):
            self.game_over = True
            self.turn = None
            self.emit("game_over", fortunes=self._scores())
        else:
            self._start_voyage(previous=self.harbour_master)

    # -- what a seat sees (view.py) ---------------------------------------------
    def view(self, seat: int) -> dict:
        return view.build(self, seat)

    def hidden_variant(self, seat: int, seed: int) -> ManilaState:
        return view.hidden_variant(self, seat, seed)
