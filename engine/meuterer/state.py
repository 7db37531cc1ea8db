"""Meuterer's state machine: promise, offer, characters, mutiny, scoring, refill.

Rule references are to the rules digest (`shared/rules/meuterer.md`) and the
rulings in `engine/meuterer/RULES.md`.
"""

from __future__ import annotations

import itertools
from typing import Any

from engine.core import Action, State
from engine.meuterer import scoring, view
from engine.meuterer.data import (
    CARD_RANK,
    CARDS,
    CHARACTERS,
    CONFLICT,
    DECK,
    HAND_SIZE,
    ISLANDS,
    MAX_PROMISE,
    ROUNDS,
    START_ISLAND,
    STEVEDORE_EXTRA,
    buys,
    sort_cards,
)

PROMISE, OFFER, CHARACTER, MUTINY, DISCARD, OVER = (
    "promise",
    "offer",
    "character",
    "mutiny",
    "discard",
    "over",
)


# Older versions this engine still replays with their own rules (RULES.md, "Versions").
REPLAYS = ("meuterer-1",)


class MeutererState(State):
    """One game of Meuterer for 3 or 4 players (basic game, no pirate)."""

    game_name = "meuterer"
    engine_version = "meuterer-2"
    replays = REPLAYS
    private_view_keys = ("hand", "character", "available_characters")

    def __init__(
        self, num_players: int, seed: int, options: dict | None = None, version: str | None = None
    ) -> None:
        super().__init__(num_players, seed, options, version)
        n = num_players
        self.rounds = ROUNDS[n]
        self.round = 1
        self.scores = [0] * n
        self.ship = START_ISLAND
        self.active = [START_ISLAND]  # sorted island numbers, active side up
        self.deck = [card for card in CARDS for _ in range(DECK[card])]
        self.discards: list[str] = []
        self.hands: list[list[str]] = [[] for _ in range(n)]
        # Digest: the captain of round 1 is chosen at random.
        self.captain = self.rng.below(n)
        self.rng.shuffle(self.deck)
        for seat in self._clockwise_from(self.captain):
            self._draw(seat, HAND_SIZE)
        self._start_round()

    # -- round bookkeeping ----------------------------------------------------
    def _start_round(self) -> None:
        n = self.num_players
        self.phase = PROMISE
        self.turn = self.captain
        self.pay: int | None = None
        self.passed = [False] * n
        self.reserved: list[int | None] = [None] * n
        self.characters: list[str | None] = [None] * n
        self.available = list(CHARACTERS)
        # What each seat saw when it chose: the set its view showed then.
        self.seen_available: list[tuple[str, ...] | None] = [None] * n
        self.choice_order: list[int] = []
        self.revealed = False
        self.table: list[dict] = []
        # island -> per seat [good type or None, accepted cards]; the islands
        # active during the offer are the ones that score sales.
        self.sales: dict[int, list[list[Any]]] = {
            island: [[None, 0] for _ in range(n)] for island in self.active
        }
        self.conflicts = [0] * n
        self.destination: int | None = None
        self.mutineer_destination: int | None = None
        self.mutiny_queue: list[int] = []
        self.mutiny_result: dict | None = None
        self.refill_queue: list[int] = []
        self.emit("round", round=self.round, captain=self.captain)

    def _after_setup(self) -> None:
        # A position set before the captain's promise is the start of a round:
        # rebuild the round from it (the captain on move, sales at the active islands).
        if self.phase == PROMISE and self.pay is None:
            self._start_round()

    def _clockwise_from(self, seat: int) -> list[int]:
        n = self.num_players
        return [(seat + k) % n for k in range(n)]

    def _draw(self, seat: int, count: int) -> None:
        """Draw `count` cards; an empty deck is rebuilt from the shuffled discards."""
        drawn = 0
        while drawn < count:
            if not self.deck:
                if not self.discards:
                    break  # cannot happen with 36 cards and at most 23 in hands
                self.deck = self.discards
                self.discards = []
                self.rng.shuffle(self.deck)
                self.emit("reshuffle", cards=len(self.deck))
            self.hands[seat].append(self.deck.pop())
            drawn += 1
        if drawn:
            self.emit("draw", seat=seat, cards=drawn)

    # -- the State hooks ------------------------------------------------------
    def current_player(self) -> int | None:
        return None if self.phase == OVER else self.turn

    def is_over(self) -> bool:
        return self.phase == OVER

    def _scores(self) -> list:
        return list(self.scores)

    def view(self, seat: int) -> dict:
        return view.build(self, seat)

    def hidden_variant(self, seat: int, seed: int) -> MeutererState:
        return view.hidden_variant(self, seat, seed)

    def _legal_actions(self) -> list[Action]:
        seat = self.turn
        if self.phase == PROMISE:
            return [{"type": "promise", "points": p} for p in range(MAX_PROMISE + 1)]
        if self.phase == OFFER:
            return self._offer_actions(seat)
        if self.phase == CHARACTER:
            return [{"type": "character", "name": name} for name in self.available]
        if self.phase == MUTINY:
            held = self.hands[seat].count(CONFLICT)
            return [{"type": "mutiny", "conflicts": k} for k in range(held + 1)]
        if self.phase == DISCARD:
            extra = len(self.hands[seat]) - HAND_SIZE
            choices = set(itertools.combinations(sort_cards(self.hands[seat]), extra))
            options = sorted(choices, key=lambda cards: [CARD_RANK[c] for c in cards])
            return [{"type": "discard", "cards": list(cards)} for cards in options]
        return []

    def _offer_actions(self, seat: int) -> list[Action]:
        actions: list[Action] = []
        hand = self.hands[seat]
        for card in CARDS:
            if card not in hand:
                continue
            if card == CONFLICT:
                actions.append({"type": "play", "card": CONFLICT})
                continue
            for island in self.active:
                # Digest: one good type per player per island.
                held = self.sales[island][seat][0]
                if buys(island, card) and held in (None, card):
                    actions.append({"type": "play", "card": card, "island": island})
        actions.append({"type": "pass"})
        return actions

    def _apply(self, action: Action) -> None:
        kind = action["type"]
        seat = self.turn
        if kind == "promise":
            self.pay = action["points"]
            self.emit("promise", seat=seat, points=self.pay)
            self.phase = OFFER
        elif kind == "play":
            self._play(seat, action["card"], action.get("island"))
            self._next_offer_turn()
        elif kind == "pass":
            self._pass(seat)
        elif kind == "character":
            self.seen_available[seat] = tuple(self.available)
            self.available.remove(action["name"])
            self.characters[seat] = action["name"]
            self.choice_order.append(seat)
            self.emit("character_taken", seat=seat)  # which one stays secret
            self.phase = OFFER
            self._next_offer_turn()
        elif kind == "mutiny":
            self._add_conflicts(seat, action["conflicts"])
        elif kind == "discard":
            for card in action["cards"]:
                self.hands[seat].remove(card)
                self.discards.append(card)
            # Ruling: the stevedore discards face up onto the open discard pile.
            self.emit("discard", seat=seat, cards=list(action["cards"]))
            self._refill()

    # -- offer ---------------------------------------------------------------
    def _play(self, seat: int, card: str, island: int | None) -> None:
        self.hands[seat].remove(card)
        if card == CONFLICT:
            self.conflicts[seat] += 1
        else:
            assert island is not None  # a good is always played at an island
            slot = self.sales[island][seat]
            slot[0] = card
            slot[1] += 1
        self.table.append({"seat": seat, "card": card, "island": island, "stage": "offer"})
        self.emit("play", seat=seat, card=card, island=island)

    def _pass(self, seat: int) -> None:
        self.passed[seat] = True
        reserved = self.reserved[seat] = len(self.hands[seat])
        self.emit("pass", seat=seat, reserved=reserved)
        if seat == self.captain:
            # Digest: the destination lies as many islands clockwise as he reserved.
            self.destination = (self.ship + reserved) % len(ISLANDS)
            self.emit("destination", seat=seat, island=self.destination)
            self._next_offer_turn()
        else:
            # At most 3 non-captains choose among 5 characters: one is always left.
            self.phase = CHARACTER

    def _next_offer_turn(self) -> None:
        n = self.num_players
        for k in range(1, n + 1):
            seat = (self.turn + k) % n
            if not self.passed[seat]:
                self.turn = seat
                return
        self._reveal()

    # -- reveal and mutiny ---------------------------------------------------
    def _reveal(self) -> None:
        self.revealed = True
        self.emit("reveal", characters=list(self.characters))
        mutineer = scoring.seat_of(self.characters, "mutineer")
        if mutineer is None:
            self._end_round()
            return
        reserved = self.reserved[mutineer]
        assert reserved is not None  # he chose a character, so he has passed
        self.mutineer_destination = (self.ship + reserved) % len(ISLANDS)
        self.emit("mutineer_destination", seat=mutineer, island=self.mutineer_destination)
        involved = {"mutineer", "cabin_boy", "boatswain"}
        self.mutiny_queue = [
            seat
            for seat in self._clockwise_from(self.captain)
            if seat == self.captain or self.characters[seat] in involved
        ]
        self.phase = MUTINY
        self.turn = self.mutiny_queue.pop(0)

    def _add_conflicts(self, seat: int, count: int) -> None:
        for _ in range(count):
            self.hands[seat].remove(CONFLICT)
            self.table.append({"seat": seat, "card": CONFLICT, "island": None, "stage": "mutiny"})
        self.conflicts[seat] += count
        self.emit("mutiny_add", seat=seat, conflicts=count)
        if self.mutiny_queue:
            self.turn = self.mutiny_queue.pop(0)
        else:
            self._end_round()

    # -- scoring, sailing, clean-up ------------------------------------------
    def _end_round(self) -> None:
        won = False
        mutineer = scoring.seat_of(self.characters, "mutineer")
        if mutineer is not None:
            captain_side, mutineer_side = scoring.mutiny_strengths(
                self.captain, self.characters, self.conflicts
            )
            won = scoring.mutiny_succeeds(captain_side, mutineer_side)
            self.mutiny_result = {
                "captain_strength": captain_side,
                "mutineer_strength": mutineer_side,
                "winner": "mutineer" if won else "captain",
            }
            self.emit("mutiny", **self.mutiny_result)
        roles = scoring.role_scores(
            self.captain,
            self.characters,
            self.pay,
            self.destination,
            self.mutineer_destination,
            won,
        )
        self._add_scores(roles, "role")
        merchant = scoring.seat_of(self.characters, "merchant")
        for island, slots in self.sales.items():
            counts = [count for _, count in slots]
            self._add_scores(scoring.sale_scores(island, counts, merchant), f"island {island}")
        target = self.mutineer_destination if won else self.destination
        assert target is not None  # a mutiny won has the mutineer's destination
        if won:
            assert mutineer is not None
            self.captain = mutineer
        # Digest: departure and arrival stay or become active, all others turn.
        departure, self.ship = self.ship, target
        self.active = sorted({departure, target})
        self.emit("sail", departure=departure, arrival=target, captain=self.captain)
        for card in self.table:
            self.discards.append(card["card"])
        self.table = []
        # Reserved cards go back to hand: nobody has passed in the coming round.
        self.reserved = [None] * self.num_players
        self.passed = [False] * self.num_players
        if self.round == self.rounds:
            self.phase = OVER
            self.emit("game_over", scores=list(self.scores))
            return
        self.refill_queue = self._clockwise_from(self.captain)
        self._refill()

    def _add_scores(self, deltas: list[int], reason: str) -> None:
        for seat, points in enumerate(deltas):
            if points:
                self.scores[seat] += points
                self.emit("score", seat=seat, points=points, reason=reason)

    def _refill(self) -> None:
        """Refill hands from the new captain clockwise; pause for the stevedore."""
        while self.refill_queue:
            seat = self.refill_queue.pop(0)
            stevedore = self.characters[seat] == "stevedore"
            want = HAND_SIZE + (STEVEDORE_EXTRA if stevedore else 0)
            self._draw(seat, max(0, want - len(self.hands[seat])))
            if len(self.hands[seat]) > HAND_SIZE:
                # Digest: he discards down to 5 of his choice before the next draws.
                self.phase = DISCARD
                self.turn = seat
                return
        self.round += 1
        self._start_round()
