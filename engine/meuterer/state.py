"""Meuterer's state machine: promise, offer, characters, mutiny, scoring, refill.

Rule references are to the rules digest (`shared/rules/meuterer.md`) and the
rulings in `engine/meuterer/RULES.md`.

Bots search with this state (random playouts from `determinize`d worlds), so its
hot path is lean: every action there can be is made once (at import, or for a
discard on the first hand that offers it) as a read-only `SharedAction`, a legal
list holds those and hands them out as they are, `legal_actions` and `apply` are this
game's own shorter versions of the base class's (same checks, errors and
history), events are logged as compact tuples made dicts only when read, and
`clone` copies field by field only what a move may change. Views are built only when asked for
(`view.py`); `determinize` sets every field of a state it makes without a deal.
"""

from __future__ import annotations

import copy
import functools
import itertools
import operator
from typing import Any

from engine.core import (
    Action,
    CompactLog,
    EventShape,
    IllegalAction,
    SharedAction,
    SharedList,
    State,
    event_dict,
)
from engine.meuterer import scoring, view
from engine.meuterer.data import (
    CARDS,
    CHARACTERS,
    CONFLICT,
    DECK,
    GOODS,
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

# Every flat action there is, made once as a read-only `SharedAction`. A legal
# list holds these and `legal_actions` hands out a copy of the list, not of its
# actions; `apply` records the engine's own (`State.record` copies actions out).
# The lists themselves are never handed out.
_PROMISES: list[Action] = [SharedAction(type="promise", points=p) for p in range(MAX_PROMISE + 1)]
_CHARACTER: dict[str, Action] = {n: SharedAction(type="character", name=n) for n in CHARACTERS}
_MUTINY: list[Action] = [
    SharedAction(type="mutiny", conflicts=k) for k in range(DECK[CONFLICT] + 1)
]
# Per number of conflict cards in hand: the mutiny's legal list.
_MUTINY_LISTS = [_MUTINY[: k + 1] for k in range(DECK[CONFLICT] + 1)]
_PLAY_CONFLICT = SharedAction(type="play", card=CONFLICT)
_PASS = SharedAction(type="pass")
# Per characters still available (always in their order): the legal list.
_CHARACTER_LISTS = {
    names: [_CHARACTER[name] for name in names]
    for k in range(len(CHARACTERS) + 1)
    for names in itertools.combinations(CHARACTERS, k)
}
# Per island: good -> the action that plays it there, for the goods it buys.
_PLAY_AT = tuple(
    {card: SharedAction(type="play", card=card, island=i) for card in GOODS if buys(i, card)}
    for i in range(len(ISLANDS))
)


def _plays(islands: tuple[int, ...], held: tuple[str | None, ...]) -> tuple:
    """(good, action) for the plays of an offer at `islands`, where a seat holds
    the goods `held` (None where it has sold nothing): goods in card order, each
    at the islands that buy it. Digest: one good type per player per island.
    """
    return tuple(
        (card, _PLAY_AT[island][card])
        for card in GOODS
        for island, good in zip(islands, held, strict=True)
        if buys(island, card) and good in (None, card)
    )


# An offer's plays by the active islands and what the seat holds at each (the
# good, or None): (island, held) for one, (a, held at a, b, held at b) for two, a < b.
_HELD = (None, *GOODS)
_PLAYS: dict[tuple, tuple] = {
    (a, held_a): _plays((a,), (held_a,)) for a in range(len(ISLANDS)) for held_a in _HELD
} | {
    (a, held_a, b, held_b): _plays((a, b), (held_a, held_b))
    for a, b in itertools.combinations(range(len(ISLANDS)), 2)
    for held_a in _HELD
    for held_b in _HELD
}
_REASON = tuple(f"island {i}" for i in range(len(ISLANDS)))
# The deck before its first shuffle, in card order.
_FULL_DECK = tuple(card for card in CARDS for _ in range(DECK[card]))
_CARD_OF = operator.itemgetter(1)
# Per table size and seat, the seats clockwise after it, itself last; and from
# it, itself first.
_AFTER = {
    n: tuple(tuple((seat + k) % n for k in range(1, n + 1)) for seat in range(n)) for n in (3, 4)
}
_FROM = {n: tuple((seat, *after[:-1]) for seat, after in enumerate(_AFTER[n])) for n in _AFTER}


@functools.cache
def _discard_actions(hand: tuple[str, ...]) -> list[Action]:
    """The stevedore's legal list for a hand (any order): a discard of each distinct
    set of cards that leaves 5, the cards in card order, the sets sorted.

    A memo (of at most some 2,500 hands) of read-only actions, their card lists
    read-only too: the state's legal list while he discards, never edited.
    """
    # Combinations of a hand in card order come in card order: keeping the
    # first of equal choices (dict.fromkeys) leaves every distinct one once, sorted.
    combinations = itertools.combinations(sort_cards(list(hand)), len(hand) - HAND_SIZE)
    return [_discard_of(cards) for cards in dict.fromkeys(combinations)]


@functools.cache
def _discard_of(cards: tuple[str, ...]) -> Action:
    """The discard of `cards`, one action for every hand that offers it (a few dozen in all)."""
    return SharedAction(type="discard", cards=SharedList(cards))


# The event log is kept compact: an entry is (its keys, "event kind", *values),
# a tuple where the event holds a list, and is made a dict only when the log or a
# view is read. A playout that reads neither never makes one.
_ROUND = EventShape(("event", "round", "captain"))
_RESHUFFLE = EventShape(("event", "cards"))
_DRAW = EventShape(("event", "seat", "cards"))
_PLAY = EventShape(("event", "seat", "card", "island"))
_PASSED = EventShape(("event", "seat", "reserved"))
_DESTINATION = EventShape(("event", "seat", "island"))
_SEAT = EventShape(("event", "seat"))
_POINTS = EventShape(("event", "seat", "points"))
_REVEAL = EventShape(("event", "characters"))
_CARDS = EventShape(("event", "seat", "cards"))
_CONFLICTS = EventShape(("event", "seat", "conflicts"))
_MUTINY_RESULT = EventShape(("event", "captain_strength", "mutineer_strength", "winner"))
_SCORE = EventShape(("event", "seat", "points", "reason"))
_GAME_OVER = EventShape(("event", "scores"))


def _fresh_event(entry: tuple | dict) -> dict:
    """A logged event as the log shows it: a fresh dict, its lists fresh too.

    An entry is compact, or a dict as `determinize` takes it from a view.
    """
    if type(entry) is tuple and entry[1] not in SEQUENCE_KINDS:  # numbers and names only
        return event_dict(entry)
    items = entry.items() if type(entry) is dict else zip(entry[0], entry[1:], strict=True)
    return {key: list(value) if type(value) in _SEQUENCES else value for key, value in items}


_SEQUENCES = (list, tuple, SharedList)
# The kinds of compact entry that hold a sequence (a tuple, or a discard's shared
# list), made a list in the dict; every other entry holds numbers and names only.
SEQUENCE_KINDS = frozenset({"reveal", "discard", "game_over"})


# The fields that hold flat lists (of numbers, names, tuples, or entries never
# edited once made): a clone slices them. `clone` copies the nested ones deeper.
_FLAT_FIELDS = (
    "history", "_events", "_log_dicts", "_seen", "scores", "active", "deck", "discards",
    "passed", "reserved", "characters", "available", "seen_available", "choice_order", "conflicts",
    "table", "mutiny_queue", "refill_queue",
)  # fmt: skip
# The characters that take part in a mutiny (with the captain).
_INVOLVED = frozenset({"mutineer", "cabin_boy", "boatswain"})


class MeutererState(CompactLog, State):
    """One game of Meuterer for 3 or 4 players (basic game, no pirate)."""

    game_name = "meuterer"
    engine_version = "meuterer-2"
    replays = REPLAYS
    private_view_keys = ("hand", "character", "available_characters")
    _legal_cache: list[Action] | None  # the legal list: shared actions, never edited

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
        self.deck = list(_FULL_DECK)
        self.discards: list[str] = []
        self.hands: list[list[str]] = [[] for _ in range(n)]
        # Digest: the captain of round 1 is chosen at random.
        self.captain = self.rng.below(n)
        self.rng.shuffle(self.deck)
        # The deal (`_draw` written out: 36 cards are enough for every hand).
        deck, log = self.deck, self._events
        for seat in _FROM[n][self.captain]:
            self.hands[seat] += deck[: -HAND_SIZE - 1 : -1]
            del deck[-HAND_SIZE:]
            log.append((_DRAW, "draw", seat, HAND_SIZE))
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
        # The cards face up: (seat, card, island or None, "offer" or "mutiny"),
        # a view shows each as a dict of these keys ("seat", "card", "island", "stage").
        self.table: list[tuple] = []
        # island -> [good type or None, accepted cards] * seats, flat; the islands
        # active during the offer are the ones that score sales.
        sales: dict[int, list[Any]] = {}
        for island in self.active:  # one or two
            sales[island] = [None, 0] * n
        self.sales = sales
        self.conflicts = [0] * n
        self.destination: int | None = None
        self.mutineer_destination: int | None = None
        self.mutiny_queue: list[int] = []
        self.mutiny_result: dict | None = None
        self.refill_queue: list[int] = []
        self._events.append((_ROUND, "round", self.round, self.captain))

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
        hand, drawn = self.hands[seat], 0
        while drawn < count:
            deck = self.deck
            if not deck:
                if not self.discards:
                    break  # cannot happen with 36 cards and at most 23 in hands
                deck = self.deck = self.discards
                self.discards = []
                self.rng.shuffle(deck)
                self._events.append((_RESHUFFLE, "reshuffle", len(deck)))
            # Drawn one by one off the top (the end of the list): a slice, reversed.
            take = min(count - drawn, len(deck))
            hand.extend(deck[: -take - 1 : -1])
            del deck[-take:]
            drawn += take
        if drawn:
            self._events.append((_DRAW, "draw", seat, drawn))

    # -- the State hooks ------------------------------------------------------
    def current_player(self) -> int | None:
        return None if self.phase == OVER else self.turn

    def is_over(self) -> bool:
        return self.phase == OVER

    def _scores(self) -> list:
        return list(self.scores)

    # The log's compact entries (`CompactLog`); an entry may also be a dict, as
    # `determinize` keeps the view's events. "sail", the game's pause_after event,
    # is always logged through `emit`.
    _event_dict = _fresh_event_dict = staticmethod(_fresh_event)

    @staticmethod
    def _event_entry(event: dict) -> tuple | dict:
        return event

    def view(self, seat: int) -> dict:
        return view.build(self, seat)

    def hidden_variant(self, seat: int, seed: int) -> MeutererState:
        return view.hidden_variant(self, seat, seed)

    def clone(self) -> MeutererState:
        """An independent copy for search, as `State.clone` makes, field by field.

        Numbers and names are shared, flat lists sliced, hands, sales and the
        mutiny result copied one level deeper; logged events, history entries,
        table cards (tuples) and cached actions are shared, being never edited once made.
        """
        fields = self.__dict__.copy()
        for name in _FLAT_FIELDS:
            fields[name] = fields[name][:]
        if self._legal_cache is not None:
            fields["_legal_cache"] = self._legal_cache[:]
        fields["options"] = copy.deepcopy(self.options) if self.options else {}
        fields["rng"] = self.rng.copy()
        fields["hands"] = [hand[:] for hand in self.hands]
        fields["sales"] = {island: slots[:] for island, slots in self.sales.items()}
        if self.mutiny_result is not None:
            fields["mutiny_result"] = self.mutiny_result.copy()
        other = object.__new__(MeutererState)
        other.__dict__.update(fields)
        return other

    def legal_actions(self) -> list[Action]:
        """Every action the current player may take now, in a fresh list of the shared
        read-only actions (a discard's list of cards read-only too)."""
        cache = self._legal_cache
        if cache is None:
            # Most decisions are offers. The cache is never filled once the game is over.
            phase = self.phase
            if phase == OFFER:
                # The offer's list, built here (a playout asks for one at most decisions):
                # goods in card order, each at the active islands that buy it, where the
                # seat may still sell it (`_PLAYS`), if in its hand; then conflict, pass.
                seat = self.turn
                sales, active, hand = self.sales, self.active, self.hands[seat]
                at = 2 * seat
                if len(active) == 2:
                    a, b = active
                    plays = _PLAYS[a, sales[a][at], b, sales[b][at]]
                else:
                    a = active[0]
                    plays = _PLAYS[a, sales[a][at]]
                cache = self._legal_cache = []
                for card, action in plays:
                    if card in hand:
                        cache.append(action)
                if CONFLICT in hand:
                    cache.append(_PLAY_CONFLICT)
                cache.append(_PASS)
                return cache[:]
            # The other lists come from tables, the discards from a memo.
            if phase == CHARACTER:
                cache = self._legal_cache = _CHARACTER_LISTS[tuple(self.available)]
            elif phase == MUTINY:
                cache = self._legal_cache = _MUTINY_LISTS[self.hands[self.turn].count(CONFLICT)]
            elif phase == PROMISE:
                cache = self._legal_cache = _PROMISES
            elif phase == DISCARD:
                cache = self._legal_cache = _discard_actions(tuple(sorted(self.hands[self.turn])))
            else:  # over
                return []
        return cache[:]

    def apply(self, action: Action) -> None:
        """Apply one legal action; raise IllegalAction (state unchanged) otherwise.

        The base class's checks, errors and history, without its general detours;
        the rules of the commonest actions are written out here.
        """
        cache = self._legal_cache
        if cache is None:
            if self.phase == OVER:
                raise IllegalAction("the game is over")
            cache = self._legal_cache = self._legal_actions()
        seat = self.turn
        # Most often the action is one the legal list handed out (the shared one
        # itself): found by identity alone, without comparing the dicts before it.
        for own in cache:
            if own is action:
                break
        else:
            if not isinstance(action, dict):
                raise IllegalAction(f"an action is a dict, not {type(action).__name__}")
            try:
                own = cache[cache.index(action)]
            except ValueError:
                raise IllegalAction(f"not a legal action for seat {seat}: {action!r}") from None
        # The engine's own dict decides: a caller's equal copy of other types (1.0 or
        # True for 1) never reaches the rules. The history keeps it (read-only).
        self._legal_cache = None
        log = self._events
        self._seen[seat] = len(log)
        kind = own["type"]
        self.history.append((seat, own))
        if kind == "play":
            card = own["card"]
            self.hands[seat].remove(card)
            if card == CONFLICT:
                self.conflicts[seat] += 1
                island = None
            else:
                island = own["island"]
                sales = self.sales[island]
                sales[2 * seat] = card
                sales[2 * seat + 1] += 1
            self.table.append((seat, card, island, "offer"))
            log.append((_PLAY, "play", seat, card, island))
            # `_next_offer_turn` written out: the seat that played has not passed, so
            # the turn goes on (to itself, last, if all others have).
            passed = self.passed
            for after in _AFTER[self.num_players][seat]:
                if not passed[after]:
                    self.turn = after
                    return
        elif kind == "pass":
            self.passed[seat] = True
            reserved = self.reserved[seat] = len(self.hands[seat])
            log.append((_PASSED, "pass", seat, reserved))
            if seat == self.captain:
                # Digest: the destination lies as many islands clockwise as he reserved.
                destination = self.destination = (self.ship + reserved) % len(ISLANDS)
                log.append((_DESTINATION, "destination", seat, destination))
                self._next_offer_turn()
            else:
                # At most 3 non-captains choose among 5 characters: one is always left.
                self.phase = CHARACTER
        elif kind == "character":
            name = own["name"]
            available = self.available
            self.seen_available[seat] = tuple(available)
            available.remove(name)
            self.characters[seat] = name
            self.choice_order.append(seat)
            # Which one stays secret.
            log.append((_SEAT, "character_taken", seat))
            self.phase = OFFER
            self._next_offer_turn()
        elif kind == "promise":
            points = self.pay = own["points"]
            log.append((_POINTS, "promise", seat, points))
            self.phase = OFFER
        elif kind == "mutiny":
            self._add_conflicts(seat, own["conflicts"])
        else:  # discard
            self._discard(seat, own["cards"])

    def _legal_actions(self) -> list[Action]:
        """The legal list, of the shared actions (the list is never handed out).

        `legal_actions` builds it (into the cache), written out there for playouts.
        """
        if self._legal_cache is None:
            self.legal_actions()
        return self._legal_cache or []

    # -- offer ---------------------------------------------------------------
    def _next_offer_turn(self) -> None:
        """The next seat clockwise that has not passed (maybe the same); none left: the reveal."""
        passed = self.passed
        for seat in _AFTER[self.num_players][self.turn]:
            if not passed[seat]:
                self.turn = seat
                return
        self._reveal()

    # -- reveal and mutiny ---------------------------------------------------
    def _reveal(self) -> None:
        self.revealed = True
        characters = self.characters
        self._events.append((_REVEAL, "reveal", tuple(characters)))
        if "mutineer" not in characters:
            self._end_round()
            return
        mutineer = characters.index("mutineer")
        reserved = self.reserved[mutineer]
        assert reserved is not None  # he chose a character, so he has passed
        self.mutineer_destination = (self.ship + reserved) % len(ISLANDS)
        self._events.append(
            (_DESTINATION, "mutineer_destination", mutineer, self.mutineer_destination)
        )
        # The captain adds first, then the others involved clockwise (the captain
        # holds no character).
        captain = self.captain
        queue = self.mutiny_queue = []
        for seat in _AFTER[self.num_players][captain]:
            if characters[seat] in _INVOLVED:
                queue.append(seat)
        self.phase = MUTINY
        self.turn = captain

    def _discard(self, seat: int, cards: list[str]) -> None:
        hand, discards = self.hands[seat], self.discards
        for card in cards:
            hand.remove(card)
            discards.append(card)
        # Ruling: the stevedore discards face up onto the open discard pile.
        self._events.append((_CARDS, "discard", seat, cards))
        self._refill()

    def _add_conflicts(self, seat: int, count: int) -> None:
        hand = self.hands[seat]
        for _ in range(count):
            hand.remove(CONFLICT)
            self.table.append((seat, CONFLICT, None, "mutiny"))
        self.conflicts[seat] += count
        self._events.append((_CONFLICTS, "mutiny_add", seat, count))
        queue = self.mutiny_queue
        if queue:
            self.turn = queue.pop(0)
        else:
            self._end_round()

    # -- scoring, sailing, clean-up ------------------------------------------
    def _end_round(self) -> None:
        characters, captain, log = self.characters, self.captain, self._events
        won = False
        mutineer = characters.index("mutineer") if "mutineer" in characters else None
        if mutineer is not None:
            captain_side, mutineer_side = scoring.mutiny_strengths(
                captain, characters, self.conflicts
            )
            won = scoring.mutiny_succeeds(captain_side, mutineer_side)
            winner = "mutineer" if won else "captain"
            self.mutiny_result = {
                "captain_strength": captain_side,
                "mutineer_strength": mutineer_side,
                "winner": winner,
            }
            log.append((_MUTINY_RESULT, "mutiny", captain_side, mutineer_side, winner))
        scores = self.scores
        roles = scoring.role_scores(
            captain, characters, self.pay, self.destination, self.mutineer_destination, won
        )
        for seat, points in enumerate(roles):
            if points:
                scores[seat] += points
                log.append((_SCORE, "score", seat, points, "role"))
        merchant = characters.index("merchant") if "merchant" in characters else None
        for island, slots in self.sales.items():
            counts = slots[1::2]
            if any(counts):  # nobody sold here: nobody scores
                reason = _REASON[island]
                for seat, points in scoring.sale_awards(island, counts, merchant):
                    scores[seat] += points
                    log.append((_SCORE, "score", seat, points, reason))
        target = self.mutineer_destination if won else self.destination
        assert target is not None  # a mutiny won has the mutineer's destination
        if won:
            assert mutineer is not None
            self.captain = captain = mutineer
        # Digest: departure and arrival stay or become active, all others turn.
        departure = self.ship
        self.ship = target
        if departure == target:
            self.active = [target]
        else:
            self.active = [departure, target] if departure < target else [target, departure]
        # Through emit, not a literal: the replay viewer watches emit for this event
        # (the game's pause_after) to show the board before the round clears it.
        self.emit("sail", departure=departure, arrival=target, captain=captain)
        self.discards += map(_CARD_OF, self.table)
        self.table = []
        # Reserved cards go back to hand: nobody has passed in the coming round.
        n = self.num_players
        self.reserved = [None] * n
        self.passed = [False] * n
        if self.round == self.rounds:
            self.phase = OVER
            log.append((_GAME_OVER, "game_over", tuple(self.scores)))
            return
        self.refill_queue = list(_FROM[n][captain])
        self._refill()

    def _refill(self) -> None:
        """Refill hands from the new captain clockwise; pause for the stevedore."""
        queue, hands, characters = self.refill_queue, self.hands, self.characters
        while queue:
            seat = queue.pop(0)
            hand = hands[seat]
            want = HAND_SIZE + STEVEDORE_EXTRA if characters[seat] == "stevedore" else HAND_SIZE
            missing = want - len(hand)
            if missing > 0:
                deck = self.deck
                if missing <= len(deck):
                    # Drawn one by one off the top (the end of the list): a slice, reversed.
                    hand += deck[: -missing - 1 : -1]
                    del deck[-missing:]
                    self._events.append((_DRAW, "draw", seat, missing))
                else:
                    self._draw(seat, missing)
            if len(hand) > HAND_SIZE:
                # Digest: he discards down to 5 of his choice before the next draws.
                self.phase = DISCARD
                self.turn = seat
                return
        self.round += 1
        self._start_round()
