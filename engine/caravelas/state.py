"""The Caravelas game state: fleets, cards, cubes and whose decision it is.

Rule numbers in comments refer to the Portuguese rules (sources/caravelas_pt.txt);
rulings where they are silent are written in RULES.md and cited as "ruling".

Speed, for bots that search (a random game is some 2,400 decisions): the legal
lists while sailing are tuples built at import of read-only shared actions
(`SharedAction`), handed out in a fresh list without copying a dict, and kept as
they are in the history; the discard lists are tables of shared actions too, their
card lists read-only (`SharedList`). `apply` finds a move handed out by its
identity, an equal dict, an end of turn or a discard by lookup (a move or a discard
is then played in place), and leaves
every other action to `State.apply`'s search of the whole list; moves and ends of
turn log shared event dicts (logged events are never edited), and a table says
which ends of a move can bring anything (`ARRIVAL`). `Rng.shuffle` makes all of a
pile's draws at once.
`clone` copies the known fields one by one, and `determinize` fills a `blank`
state rather than a new game whose shuffles it would discard.
"""

from __future__ import annotations

import functools
from itertools import combinations, combinations_with_replacement

from engine.caravelas import data, scoring, view
from engine.caravelas.sailing import MOVE_ACTIONS, MOVE_BY_TARGET
from engine.core import Action, SharedAction, SharedList, State, ranks_from_keys

SAIL, KEEP, SINK, DISCARD, OVER = "sail", "keep", "sink", "discard", "over"
HARBOURS = (data.LISBOA_ID, data.CALECUTE_ID)
LISBOA, CAPE = data.LISBOA_ID, data.CAPE_ID
# Older versions this engine still replays with their own rules (RULES.md, "Versions").
REPLAYS = ("caravelas-1", "caravelas-2")
CUBE_AT = {place: colour for colour, place in data.CUBE_PLACES.items()}
# Circles where a move ends with nothing more to do: no discovery card can name
# them, no cubes lie there, not Lisboa, not the Cape.
OPEN_SEA = frozenset(
    c[0] for c in data.CIRCLES if c[0] not in (*data.DISCOVERIES, *CUBE_AT, LISBOA, CAPE)
)
# What a move's end may bring, per circle (`_arrive` is the rule): QUIET, the open
# sea; IF_HELD, a discovery place and nothing else, so only if the seat holds its
# card; ARRIVES, the Cape, cubes or Lisboa, always.
QUIET, IF_HELD, ARRIVES = 0, 1, 2
ARRIVAL = {
    c[0]: QUIET
    if c[0] in OPEN_SEA
    else (IF_HELD if c[0] not in (*CUBE_AT, LISBOA, CAPE) else ARRIVES)
    for c in data.CIRCLES
}
# Per player card, the caravel (1-4) whose slot holds each colour of cube.
SLOT_CARAVEL = {c: k for k, pair in data.CARAVEL_SLOTS.items() for c in pair}
SLOT_CARAVEL_BEFORE_3 = {c: k for k, pair in data.CARAVEL_SLOTS_BEFORE_3.items() for c in pair}
# The fields `clone` copies: lists of numbers and strings, and lists of such lists
# (every other field is a number, a string, a bool or a table never edited).
SHALLOW_LISTS = ("history", "log", "_seen", "pos", "score", "deck", "used", "pile", "drawn")
NESTED_LISTS = ("found", "cargo", "sunk", "hand", "secret", "returned")
DICTS = ("options", "stock", "_caravel_slots", "_slot_caravel")
MAX_SECRET = 4
CARDS_PER_TURN = 4
HAND_SIZE, MAX_ROUNDS = data.HAND_SIZE, data.MAX_ROUNDS
# The events that hold a list (of cubes, cards or scores): a view copies the list too.
LIST_EVENTS = frozenset({"deliver", "sink", "discard", "game_over"})
# Shared read-only actions: a state hands them out and records them as they are.
DRAW = SharedAction(type="draw")
END_TURN = SharedAction(type="end_turn")
END_ONLY = (END_TURN,)


def _sub_multisets(values: list[int] | tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every distinct sub-multiset of sorted `values`, the empty one included."""
    found: set[tuple[int, ...]] = {()}
    for size in range(1, len(values) + 1):
        found.update(combinations(values, size))
    return sorted(found, key=lambda c: (len(c), c))


# Every sorted hand a turn can hold (at most HAND_SIZE cards), with its distinct values.
HAND_VALUES: dict[tuple[int, ...], tuple[int, ...]] = {
    hand: tuple(sorted(set(hand)))
    for size in range(data.HAND_SIZE + 1)
    for hand in combinations_with_replacement(sorted(data.MOVEMENT_DECK), size)
}


# The sets of distinct values a hand may hold, shortest first (the empty one first).
VALUE_SETS = sorted(set(HAND_VALUES.values()), key=len)


def _sail_lists(
    by_value: dict[int, tuple[SharedAction, ...]],
) -> dict[tuple[int, ...], tuple[SharedAction, ...]]:
    """Per set of card values, the moves they make from one circle, then the end of turn."""
    moves: dict[tuple[int, ...], tuple[SharedAction, ...]] = {(): ()}
    for values in VALUE_SETS[1:]:
        # Each set extends a shorter one already made: one tuple join apiece.
        moves[values] = moves[values[:-1]] + by_value[values[-1]]
    return {values: (*found, END_TURN) for values, found in moves.items()}


# SAIL_LISTS[circle][values]: the legal list while sailing from there with cards of
# those values left to play (a draw, when allowed, goes before the end of the turn).
SAIL_LISTS = {circle: _sail_lists(by_value) for circle, by_value in MOVE_ACTIONS.items()}
# The events a move or an end of turn logs, made once: logged events are never
# edited (`State.clone` shares them too), and a view copies what it shows.
_SEATS = range(4)
MOVE_EVENTS: tuple[dict[str, dict[int, dict]], ...] = tuple(
    {
        to: {v: {"event": "move", "seat": seat, "card": v, "to": to} for v in data.MOVEMENT_DECK}
        for to in MOVE_ACTIONS
    }
    for seat in _SEATS
)
END_TURN_EVENTS = tuple({"event": "end_turn", "seat": seat} for seat in _SEATS)
# SAIL_BY_HAND[circle][hand]: SAIL_LISTS[circle] for the sorted hand's values, one lookup.
SAIL_BY_HAND: dict[str, dict[tuple[int, ...], tuple[SharedAction, ...]]] = {
    circle: {hand: lists[values] for hand, values in HAND_VALUES.items()}
    for circle, lists in SAIL_LISTS.items()
}
# MOVES_FROM[circle][(value, to)]: a move from there, its card and end, the event
# each seat logs for it and what its end may bring (what `apply` needs, in one lookup).
MoveEntry = tuple[SharedAction, int, str, tuple[dict, ...], int]
MOVES_FROM: dict[str, dict[tuple[int, str], MoveEntry]] = {
    circle: {
        key: (
            a,
            a["card"],
            a["to"],
            tuple(MOVE_EVENTS[seat][a["to"]][a["card"]] for seat in _SEATS),
            ARRIVAL[a["to"]],
        )
        for key, a in by_target.items()
    }
    for circle, by_target in MOVE_BY_TARGET.items()
}
# MOVE_BY_ID[circle][id(move)]: the same, by the identity of a move the tables hand
# out. They live as long as the module, so no other object can have their ids.
MOVE_BY_ID: dict[str, dict[int, MoveEntry]] = {
    circle: {id(entry[0]): entry for entry in by_key.values()}
    for circle, by_key in MOVES_FROM.items()
}


@functools.cache
def _discard_of(cards: tuple[int, ...]) -> SharedAction:
    """The discard of `cards`, one action for every hand that offers it (126 in all)."""
    return SharedAction(type="discard", cards=SharedList(cards))


# DISCARDS[hand]: the discards that hand may make (its sub-multisets), in legal-list
# order; DISCARD_NAMED[hand] finds one by the cards an action names.
DISCARDS: dict[tuple[int, ...], tuple[SharedAction, ...]] = {
    hand: tuple(map(_discard_of, _sub_multisets(hand))) for hand in HAND_VALUES
}
DISCARD_NAMED: dict[tuple[int, ...], dict[tuple[int, ...], SharedAction]] = {
    hand: {tuple(a["cards"]): a for a in choices} for hand, choices in DISCARDS.items()
}


class CaravelasState(State):
    """One game of Caravelas for 2-4 players."""

    game_name = "caravelas"
    engine_version = "caravelas-3"
    replays = REPLAYS
    private_view_keys = ("movement", "discovery_cards", "drawn", "discovery_pile_known")

    def __init__(
        self, num_players: int, seed: int, options: dict | None = None, version: str | None = None
    ) -> None:
        super().__init__(num_players, seed, options, version)
        # The player card this version plays: caravelas-1 and -2 had another (RULES.md).
        before_3 = self.version in REPLAYS
        self._caravel_slots = data.CARAVEL_SLOTS_BEFORE_3 if before_3 else data.CARAVEL_SLOTS
        self._slot_caravel = SLOT_CARAVEL_BEFORE_3 if before_3 else SLOT_CARAVEL
        n = num_players
        self.pos = [data.LISBOA_ID] * n
        self.score = [0] * n
        self.found: list[list[str]] = [[] for _ in range(n)]
        self.cargo: list[list[str]] = [[] for _ in range(n)]
        self.sunk: list[list[bool]] = [[False] * 4 for _ in range(n)]
        self.stock = {c: data.CUBES_PER_COLOUR for c in data.COLOURS}
        self.stock["green"] = data.GREEN_CUBES[n]
        self.jeronimos = 0
        self.jeronimos_size = data.GREEN_CUBES[n]

        self.deck = [v for v, count in data.MOVEMENT_DECK.items() for _ in range(count)]
        self.rng.shuffle(self.deck)
        self.used: list[int] = []
        self.hand: list[list[int]] = [sorted(self._deal(data.HAND_SIZE)) for _ in range(n)]

        # Setup: 2 green and 2 yellow discovery cards each, then one mixed pile.
        greens = sorted(p for p, (col, _) in data.DISCOVERIES.items() if col == data.GREEN)
        yellows = sorted(p for p, (col, _) in data.DISCOVERIES.items() if col == data.YELLOW)
        self.rng.shuffle(greens)
        self.rng.shuffle(yellows)
        self.secret: list[list[str]] = []
        for seat in range(n):
            mine = greens[2 * seat : 2 * seat + 2] + yellows[2 * seat : 2 * seat + 2]
            self.secret.append(sorted(mine))
        self.pile = greens[2 * n :] + yellows[2 * n :]
        self.rng.shuffle(self.pile)

        self.turn = 0
        self.round = 1
        self.phase = SAIL
        self.drawn: list[str] = []
        # Per seat, the drawn cards it put under the pile that nobody has drawn
        # since: it saw them and knows where they lie (its view shows them).
        self.returned: list[list[str]] = [[] for _ in range(n)]
        self.end_triggered = False
        self._start_turn()

    @classmethod
    def blank(cls, num_players: int, seed: int, options: dict | None = None) -> CaravelasState:
        """A current-rules state with every field in place and nothing dealt, for `determinize`.

        A new game would shuffle the deck and the discovery cards only for
        determinize to throw them away (half its work); the fields keep
        `__init__`'s order, so a blank state filled in looks like any other.
        """
        state = cls.__new__(cls)
        State.__init__(state, num_players, seed, options)
        state._caravel_slots, state._slot_caravel = data.CARAVEL_SLOTS, SLOT_CARAVEL
        state.pos, state.score, state.found, state.cargo, state.sunk = [], [], [], [], []
        state.stock, state.jeronimos, state.jeronimos_size = {}, 0, 0
        state.deck, state.used, state.hand, state.secret, state.pile = [], [], [], [], []
        state.turn, state.round, state.phase, state.drawn, state.returned = 0, 1, SAIL, [], []
        state.end_triggered = False
        state._start_turn()
        return state

    def _after_setup(self) -> None:
        # A seat remembers only cards still in the pile (a test may set a new pile).
        self.returned = [[p for p in known if p in self.pile] for known in self.returned]

    def clone(self) -> CaravelasState:
        """As `State.clone`, field by field: each list copied as deep as it goes, no search.

        Logged events and history entries are never edited: shared, as `State.clone`
        shares them.
        """
        fields = self.__dict__.copy()
        copy = list.copy
        fields["rng"] = self.rng.copy()
        for name in SHALLOW_LISTS:
            fields[name] = copy(fields[name])
        for name in NESTED_LISTS:
            fields[name] = list(map(copy, fields[name]))
        for name in DICTS:
            fields[name] = dict(fields[name])
        if self._legal_cache is not None:
            fields["_legal_cache"] = copy(self._legal_cache)
        other = object.__new__(type(self))
        other.__dict__ = fields
        return other

    # -- turn bookkeeping --------------------------------------------------
    def _start_turn(self) -> None:
        self.played = 0
        self.arrived = False  # the last card of this turn ended where the fleet is
        self.drew = False
        self.closed = False  # a delivery, repair or wreck ended the turn (10, 9.7)
        self.phase = SAIL

    def _deal(self, count: int) -> list[int]:
        """Draw movement cards, reshuffling the used ones when the deck runs out (5)."""
        deck = self.deck
        if 0 < count <= len(deck):  # no reshuffle: the top `count` cards, as popped
            cards = deck[-count:]
            del deck[-count:]
            cards.reverse()
            return cards
        cards = []
        for _ in range(count):
            if not self.deck:
                if not self.used:
                    break
                self.deck, self.used = self.used, []
                self.rng.shuffle(self.deck)
                self.emit("reshuffle", cards=len(self.deck))
            cards.append(self.deck.pop())
        return cards

    def _gain(self, seat: int, points: int) -> None:
        self.score[seat] += points
        if self.score[seat] >= data.END_SCORE and not self.end_triggered:
            self.end_triggered = True
            self.emit("end_triggered", seat=seat, reason="score")

    # -- the engine contract ----------------------------------------------
    def current_player(self) -> int | None:
        return None if self.phase == OVER else self.turn

    def is_over(self) -> bool:
        return self.phase == OVER

    def can_draw(self) -> bool:
        """Rule 7: stopped at Lisboa or Calecute this turn, once, under 4 secrets."""
        seat = self.turn
        return (
            self.arrived
            and not self.drew
            and self.pos[seat] in HARBOURS
            and len(self.secret[seat]) < MAX_SECRET
            and bool(self.pile)
        )

    def _legal_actions(self) -> list[dict]:
        seat = self.turn
        if self.phase == KEEP:
            most = min(MAX_SECRET - len(self.secret[seat]), len(self.drawn))
            return [
                {"type": "keep", "places": sorted(kept)}
                for size in range(1, most + 1)
                for kept in combinations(self.drawn, size)
            ]
        if self.phase == SINK:
            return [
                {"type": "sink", "caravel": k}
                for k in self._caravel_slots
                if not self.sunk[seat][k - 1]
            ]
        return self.legal_actions()  # sailing or discarding: the shared actions of the tables

    def legal_actions(self) -> list[Action]:
        """As `State.legal_actions`: the shared actions from the tables, in a fresh list."""
        phase = self.phase
        seat = self.turn
        if phase == SAIL:
            pos = self.pos[seat]
            if self.closed or self.played >= CARDS_PER_TURN:
                actions: tuple[SharedAction, ...] = END_ONLY
            else:
                hand = self.hand[seat]
                try:
                    actions = SAIL_BY_HAND[pos][tuple(hand)]
                except KeyError:  # a hand no turn deals (a test's set-up): the long way
                    here = MOVE_ACTIONS[pos]
                    actions = (*(a for v in sorted(set(hand)) for a in here[v]), END_TURN)
            if pos in HARBOURS and self.can_draw():
                actions = (*actions[:-1], DRAW, END_TURN)
            # The table's own read-only dicts, in a list of the caller's own.
            return [*actions]
        if phase == DISCARD:
            hand_key = tuple(self.hand[seat])
            discards = DISCARDS.get(hand_key)
            if discards is None:  # a hand no turn deals (a test's set-up): the long way
                return list(map(_discard_of, _sub_multisets(hand_key)))
            return [*discards]
        return super().legal_actions()

    def apply(self, action: Action) -> None:
        """As `State.apply`; a move, end of turn or discard is found by lookup, not by search.

        A move handed out is found by its identity; otherwise the shortcut takes
        only what equals a legal action, and everything else goes to
        `State.apply`, which searches the whole legal list (and names what is not
        legal), so both ways accept and record the same: the engine's own action.
        """
        phase, seat = self.phase, self.turn
        if phase == SAIL:
            pos = self.pos[seat]
            entry = MOVE_BY_ID[pos].get(id(action))
            if entry is None and type(action) is dict and len(action) == 3:
                try:
                    # A card and circle that hash and compare equal to a move from
                    # here (1.0 finds 1): with "move" and no other key, equal to it.
                    entry = MOVES_FROM[pos][action["card"], action["to"]]
                except (KeyError, TypeError):  # no such move, or an unhashable value
                    pass
                else:
                    if action.get("type") != "move":
                        entry = None
            if entry is not None:
                move, card, to, events, arrival = entry
                hand = self.hand[seat]
                if card in hand and not self.closed and self.played < CARDS_PER_TURN:
                    # `_move` written out: most decisions are moves.
                    self._legal_cache = None
                    log = self.log
                    self._seen[seat] = len(log)
                    # The engine's own read-only dict (ints, not 1.0).
                    self.history.append((seat, move))
                    hand.remove(card)
                    self.used.append(card)
                    self.played += 1
                    self.pos[seat] = to
                    self.arrived = True
                    log.append(events[seat])
                    if arrival and (arrival == ARRIVES or to in self.secret[seat]):
                        self._arrive(seat, to)
                    return
            elif action is END_TURN or (type(action) is dict and action == END_TURN):
                self._legal_cache = None
                self._seen[seat] = len(self.log)
                self.history.append((seat, END_TURN))
                if self.hand[seat]:
                    self.phase = DISCARD
                else:
                    self._finish_turn()
                return
        elif (
            phase == DISCARD
            and isinstance(action, dict)
            and len(action) == 2
            and action.get("type") == "discard"
            and isinstance(cards := action.get("cards"), list)  # a shared list is one too
        ):
            hand = self.hand[seat]
            try:
                # The engine's own action with the cards named (1.0 finds 1).
                own = DISCARD_NAMED[tuple(hand)].get(tuple(cards))
            except (KeyError, TypeError):  # an odd hand, or an unhashable card
                own = None
            if own is not None:
                # `_discard` written out: a tenth of the decisions.
                self._legal_cache = None
                log = self.log
                self._seen[seat] = len(log)
                self.history.append((seat, own))
                chosen = own["cards"]
                for value in chosen:
                    hand.remove(value)
                self.used += chosen
                log.append({"event": "discard", "seat": seat, "cards": [*chosen]})
                self._finish_turn()
                return
        super().apply(action)

    def _apply(self, action: dict) -> None:
        kind = action["type"]
        # Numbers are stored as ints: the validation by equality lets 1.0 or True pass for 1.
        if kind == "move":
            self._move(int(action["card"]), action["to"])
        elif kind == "draw":
            self._draw()
        elif kind == "keep":
            self._keep(action["places"])
        elif kind == "sink":
            self._sink(int(action["caravel"]))
        elif kind == "end_turn":
            self._end_turn()
        else:  # discard
            self._discard([int(v) for v in action["cards"]])

    # -- actions ------------------------------------------------------------
    def _move(self, value: int, to: str) -> None:
        seat = self.turn
        self.hand[seat].remove(value)
        self.used.append(value)
        self.played += 1
        self.pos[seat] = to
        self.arrived = True
        self.log.append(MOVE_EVENTS[seat][to][value])
        if to not in OPEN_SEA:
            self._arrive(seat, to)

    def _arrive(self, seat: int, to: str) -> None:
        """What a move ending off the open sea brings: the Cape, a discovery, cubes, home."""
        if to == CAPE:
            self._round_the_cape(seat)
            return
        if to in self.secret[seat]:
            # Rule 7: a held card is revealed where the move ends.
            self.secret[seat].remove(to)
            self.found[seat].append(to)
            points = data.DISCOVERIES[to][1]
            self.emit("discover", seat=seat, place=to, points=points)
            self._gain(seat, points)
        colour = CUBE_AT.get(to)
        if colour is not None:
            self._collect(seat, colour)
        if to == LISBOA:
            self._deliver(seat)

    def _collect(self, seat: int, colour: str) -> None:
        """Rule 8: one cube, one per colour, only onto a caravel afloat."""
        afloat = not self.sunk[seat][self._slot_caravel[colour] - 1]
        if self.stock[colour] and colour not in self.cargo[seat] and afloat:
            self.stock[colour] -= 1
            self.cargo[seat].append(colour)
            self.cargo[seat].sort(key=data.COLOURS.index)
            self.emit("collect", seat=seat, colour=colour)

    def _deliver(self, seat: int) -> None:
        """Rule 10: all cubes score, green ones go to Jerónimos; sunk caravels return."""
        cargo, repaired = self.cargo[seat], sum(self.sunk[seat])
        if not cargo and not repaired:
            return
        points = sum(data.SLOT_VALUES[c] for c in cargo)
        for colour in cargo:
            if colour == "green":
                self.jeronimos += 1
            else:
                self.stock[colour] += 1
        self.cargo[seat] = []
        self.sunk[seat] = [False] * 4
        self.closed = True
        self.emit("deliver", seat=seat, cubes=cargo, points=points, repaired=repaired)
        self._gain(seat, points)
        if self.jeronimos >= self.jeronimos_size and not self.end_triggered:
            self.end_triggered = True
            self.emit("end_triggered", seat=seat, reason="jeronimos")

    def _round_the_cape(self, seat: int) -> None:
        """Rule 9: stop, roll; a 1 sinks a caravel of the player's choice."""
        face = data.DIE_FACES[self.rng.below(len(data.DIE_FACES))]
        self.emit("roll", seat=seat, face=face)
        if face == 0:
            return
        if sum(map(sum, self.sunk)) >= data.BLACK_DISCS:
            # Ruling: with all six black discs in use nothing marks a wreck.
            self.emit("no_disc", seat=seat)
            return
        self.phase = SINK

    def _sink(self, caravel: int) -> None:
        seat = self.turn
        self.sunk[seat][caravel - 1] = True
        lost = [c for c in self.cargo[seat] if self._slot_caravel[c] == caravel]
        for colour in lost:
            self.cargo[seat].remove(colour)
            self.stock[colour] += 1  # back to its place, green included (9.5)
        self.emit("sink", seat=seat, caravel=caravel, cubes=lost)
        self.phase = SAIL
        if all(self.sunk[seat]):
            # Rule 9.7: the whole fleet lost: back to Lisboa, repaired, turn over.
            self.sunk[seat] = [False] * 4
            self.pos[seat] = data.LISBOA_ID
            self.arrived = False
            self.closed = True
            self.emit("wrecked", seat=seat)

    def _draw(self) -> None:
        seat = self.turn
        self.drawn, self.pile = self.pile[:4], self.pile[4:]
        for known in self.returned:
            known[:] = [p for p in known if p not in self.drawn]
        self.drew = True
        self.phase = KEEP
        self.emit("draw", seat=seat, cards=len(self.drawn))

    def _keep(self, places: list[str]) -> None:
        seat = self.turn
        self.secret[seat] = sorted(self.secret[seat] + places)
        # The rest go to the bottom of the pile, in the order drawn (rule 7).
        back = [p for p in self.drawn if p not in places]
        self.pile.extend(back)
        self.returned[seat].extend(back)
        self.emit("keep", seat=seat, kept=len(places), returned=len(self.drawn) - len(places))
        self.drawn = []
        self.phase = SAIL

    def _end_turn(self) -> None:
        if self.hand[self.turn]:
            self.phase = DISCARD
        else:
            self._finish_turn()

    def _discard(self, cards: list[int]) -> None:
        seat = self.turn
        for value in cards:
            self.hand[seat].remove(value)
            self.used.append(value)
        self.log.append({"event": "discard", "seat": seat, "cards": cards})
        self._finish_turn()

    def _finish_turn(self) -> None:
        seat = self.turn
        hand = self.hand[seat]
        deck, count = self.deck, HAND_SIZE - len(hand)
        if 0 < count <= len(deck):  # `_deal` without a reshuffle: the order goes in the sort
            hand += deck[-count:]
            del deck[-count:]
        else:
            hand += self._deal(count)
        hand.sort()
        self.log.append(END_TURN_EVENTS[seat])
        if seat == self.num_players - 1:
            # Rule 11: the game ends once the player right of the first has played.
            if not self.end_triggered and self.round >= MAX_ROUNDS:
                self.end_triggered = True  # house limit: a game must end (RULES.md)
                self.emit("end_triggered", seat=seat, reason="round_limit")
            if self.end_triggered:
                self.phase = OVER
                self.emit("game_over", scores=self.final_scores())
                return
            self.round += 1
        self.turn = (seat + 1) % self.num_players
        # A new turn (as `_start_turn`, written out on this hot path).
        self.played = 0
        self.arrived = self.drew = self.closed = False
        self.phase = SAIL

    # -- scoring ------------------------------------------------------------
    def final_scores(self) -> list[int]:
        """Rule 11: +2 per cube carried away from Lisboa, -2 per card not discovered."""
        return scoring.final_scores(self.score, self.secret, self.pos, self.cargo)

    def _scores(self) -> list[int]:
        return self.final_scores()

    def result(self) -> dict:
        """Final scores; ties go to most discoveries, then most green ones (rule 11)."""
        if not self.is_over():
            raise ValueError("the game is not over")
        scores = self.final_scores()
        return {"scores": scores, "ranks": ranks_from_keys(scoring.rank_keys(scores, self.found))}

    # -- what a seat may know (view.py) --------------------------------------
    def events_since_last_decision(self, seat: int) -> list[dict]:
        """As `State`'s, and the list an event may hold copied too: a view never aliases the log."""
        return [
            {k: v[:] if type(v) is list else v for k, v in e.items()}
            if e["event"] in LIST_EVENTS
            else dict(e)
            for e in self.log[self._seen[seat] :]
        ]

    def view(self, seat: int) -> dict:
        return view.build(self, seat)

    def hidden_variant(self, seat: int, seed: int) -> CaravelasState:
        return view.hidden_variant(self, seat, seed)
