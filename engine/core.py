"""The contract every game state keeps, plus the pieces all games share.

A game package subclasses `State`, implements the `_`-prefixed hooks, and
registers a `Game` in `engine/__init__.py`. `State.apply` owns validation and
the action history, so every game rejects illegal actions the same way and
leaves the state untouched when it does.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

Action = dict[str, Any]

# The values a shared action may hold: JSON scalars, or shared actions and lists
# themselves (read-only all the way down; a plain list or dict would be shared too).
_SCALARS = (str, int, float, bool, type(None))


def _refuse_edit(self: Any, *args: Any, **kwargs: Any) -> Any:
    raise TypeError(
        "an action from legal_actions() is shared and read-only: edit a copy (dict(action))"
    )


def _refuse_list_edit(self: Any, *args: Any, **kwargs: Any) -> Any:
    raise TypeError(
        "a list in an action from legal_actions() is shared and read-only:"
        " edit a copy (list(items), or copy.deepcopy(action) for the whole action)"
    )


class SharedAction(dict):
    """An action a game makes once and hands to every caller without copying it.

    A playout asks for a legal list at every decision; copying each action dict
    for it was a fifth of a decision's time, for dicts nobody edits. So a legal
    list holds these, and they refuse edits (one changed would change the game's
    tables for every state): `dict(action)` or `action.copy()` is an editable
    copy, `copy.deepcopy(action)` one whose lists and dicts are plain too. JSON,
    `==`, `copy`, `deepcopy` and pickle see the plain dict it is. Its values are
    JSON scalars or, for an action that holds a list or a dict (a pilot's moves,
    a discard's cards), a `SharedList` or `SharedAction`: nothing inside it can
    be edited either.
    """

    __slots__ = ()

    def __init__(self, *args: Any, **fields: Any) -> None:
        super().__init__(*args, **fields)
        for key, value in self.items():
            if not isinstance(value, _SHARED_VALUES):
                raise TypeError(
                    f"a shared action holds JSON scalars or shared values, not {key}={value!r}"
                )

    __setitem__ = __delitem__ = __ior__ = _refuse_edit  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _refuse_edit  # type: ignore[assignment]

    def __copy__(self) -> dict:
        return dict(self)

    def __deepcopy__(self, memo: dict) -> dict:
        return _copy_dict(self)

    def __reduce__(self) -> tuple:
        return (dict, (_copy_dict(self),))


class SharedList(list):
    """A list inside a `SharedAction`, read-only like it: a list to `==`, JSON and
    `isinstance`; `list(items)` or a copy is a plain editable one."""

    __slots__ = ()

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        for value in self:
            if not isinstance(value, _SHARED_VALUES):
                raise TypeError(f"a shared list holds JSON scalars or shared values, not {value!r}")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse_list_edit  # type: ignore[assignment]
    append = extend = insert = remove = pop = clear = _refuse_list_edit  # type: ignore[assignment]
    sort = reverse = _refuse_list_edit  # type: ignore[assignment]

    def copy(self) -> list:  # type: ignore[override]
        return list(self)

    def __copy__(self) -> list:
        return list(self)

    def __deepcopy__(self, memo: dict) -> list:
        return _copy_list(self)

    def __reduce__(self) -> tuple:
        return (list, (_copy_list(self),))


_SHARED_VALUES = (*_SCALARS, SharedAction, SharedList)


def shared(value: Any) -> Any:
    """A plain action (or a value inside one) made read-only all the way down."""
    if isinstance(value, dict):
        return SharedAction({key: shared(item) for key, item in value.items()})
    if isinstance(value, list):
        return SharedList(shared(item) for item in value)
    return value


class IllegalAction(ValueError):
    """An action that is not one of `legal_actions()` for the current player."""


_MASK = (1 << 64) - 1  # a splitmix64 state and output are 64-bit
# `below`'s rejection limits for small ranges (the largest multiple of n up to 2**64).
_SMALL = 64
_LIMITS = tuple((1 << 64) - ((1 << 64) % n) if n else 0 for n in range(_SMALL))
_LIMIT_6 = _LIMITS[6]


class Rng:
    """A tiny seeded generator (splitmix64) owned by one state.

    Written here rather than borrowed from `random` so that a replay recorded
    today rebuilds the same game on any future Python.
    """

    __slots__ = ("_x",)
    _MASK = _MASK

    def __init__(self, seed: int) -> None:
        self._x = seed & self._MASK

    def _next(self) -> int:
        self._x = (self._x + 0x9E3779B97F4A7C15) & self._MASK
        z = self._x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self._MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self._MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n), without modulo bias."""
        if n <= 0:
            raise ValueError("n must be positive")
        # Draws at or above `limit` are rejected (odds n in 2**64) and drawn again.
        limit = _LIMITS[n] if n < _SMALL else (1 << 64) - ((1 << 64) % n)
        mask = self._MASK
        while True:
            # `_next` written out: search rolls dice in every playout.
            x = self._x = (self._x + 0x9E3779B97F4A7C15) & mask
            x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
            x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & mask
            r = x ^ (x >> 31)
            if r < limit:
                return r % n

    def copy(self) -> Rng:
        """An independent generator at the same point of the same sequence."""
        other = Rng.__new__(Rng)
        other._x = self._x
        return other

    def die(self, sides: int = 6) -> int:
        """Roll one die: 1..sides, `below(sides) + 1` with the six-sided draw written out."""
        if sides != 6:
            return self.below(sides) + 1
        x = self._x = (self._x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        r = x ^ (x >> 31)
        if r < _LIMIT_6:
            return r % 6 + 1
        return self.below(6) + 1  # rejected, as `below` would: the next draws decide

    def shuffle(self, items: list) -> None:
        """Shuffle a list in place (Fisher-Yates): `below(i + 1)` for i from the top down.

        Determinize shuffles every hidden pool and games reshuffle their piles in every
        playout, so a list of up to `_LANES` items has all its draws made at once (see
        `_lane_draws`); a draw `below` would reject, or a longer list, goes one by one.
        """
        draws = len(items) - 1
        numbers = _lane_draws(self._x, draws) if 0 < draws < _LANES else None
        if numbers is None:
            self._shuffle_one_by_one(items)
            return
        n = draws + 1
        for r in numbers:
            j = r % n
            n -= 1
            items[n], items[j] = items[j], items[n]
        self._x = (self._x + draws * _STEP) & _MASK

    def _shuffle_one_by_one(self, items: list) -> None:
        """`shuffle` a draw at a time: `below` written out, the state in a local."""
        mask = self._MASK
        span = 1 << 64
        x = self._x
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            x = (x + 0x9E3779B97F4A7C15) & mask
            r = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
            r = ((r ^ (r >> 27)) * 0x94D049BB133111EB) & mask
            r ^= r >> 31
            if r >= span - span % n:  # rejected (odds n in 2**64): drawn again as `below` does
                self._x = x
                j = self.below(n)
                x = self._x
            else:
                j = r % n
            items[i], items[j] = items[j], items[i]
        self._x = x


# A shuffle's draws made at once. The generator's state only steps by a constant, so
# every state a shuffle will draw from is known in advance: one integer holds each in a
# 128-bit lane, and each step of splitmix64's mixing is one operation on all the lanes
# (a 64-bit lane times a 64-bit constant fits in its lane; what a shift spills into the
# lane below is masked off). The numbers are read back through `array`.
_STEP, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_LANE_BITS = 128
_LANES = 64  # lists of up to 64 items (every pile our games shuffle) go through lanes
# Per number of draws m: each lane's low 64 bits set; lane k holding (k + 1) steps;
# a 1 in each lane (a state times it is that state in every lane).
_LOW = [sum(_MASK << (_LANE_BITS * k) for k in range(m)) for m in range(_LANES)]
_STEPS = [
    sum(((k + 1) * _STEP & _MASK) << (_LANE_BITS * k) for k in range(m)) for m in range(_LANES)
]
_ONES = [sum(1 << (_LANE_BITS * k) for k in range(m)) for m in range(_LANES)]
# `below(n)` rejects draws from 2**64 - 2**64 % n up, never below this for n <= _LANES;
# adding the rest up to 2**64 to every lane carries such a draw into bit 64 of its lane.
_FIRST_REJECTED = min((1 << 64) - (1 << 64) % n for n in range(2, _LANES + 1))
_TO_CARRY = [((1 << 64) - _FIRST_REJECTED) * ones for ones in _ONES]
_CARRIES = [ones << 64 for ones in _ONES]
_BIG_ENDIAN = sys.byteorder == "big"  # the lanes are read little-endian


def _lane_draws(x: int, draws: int) -> array | None:
    """The numbers of the next `draws` draws from state `x`, in order; None when one of
    them might be a draw `below` rejects (odds under 64 in 2**64 a draw)."""
    low = _LOW[draws]
    states = (x * _ONES[draws] + _STEPS[draws]) & low
    mixed = ((states ^ (states >> 30)) & low) * _MIX1 & low
    mixed = ((mixed ^ (mixed >> 27)) & low) * _MIX2 & low
    mixed = (mixed ^ (mixed >> 31)) & low
    if (mixed + _TO_CARRY[draws]) & _CARRIES[draws]:
        return None
    numbers = array("Q", mixed.to_bytes(_LANE_BITS // 8 * draws, "little"))[:: _LANE_BITS // 64]
    if _BIG_ENDIAN:
        numbers.byteswap()
    return numbers


def ranks_from_scores(scores: list[float]) -> list[int]:
    """1-based competition ranks, highest score first; equal scores share a rank."""
    return [1 + sum(1 for other in scores if other > s) for s in scores]


def ranks_from_keys(keys: list[tuple]) -> list[int]:
    """Like `ranks_from_scores` for tie-break tuples compared in order."""
    return [1 + sum(1 for other in keys if other > k) for k in keys]


class State:
    """Base of every game's state: validation, history and the event log.

    Subclasses implement `current_player`, `_legal_actions`, `_apply`, `view`,
    `is_over` and `_scores` (or `result`). The base keeps the ordered
    `(seat, action)` history that makes a replay record.
    """

    game_name: str = ""
    # The current rules version; a state may play an older one (`version`).
    engine_version: str = ""
    # The keys of a view that only its own seat may know; `spectate` shows them per seat.
    private_view_keys: tuple[str, ...] = ()
    # Older rules versions a state of this game may still play (for old records).
    replays: tuple[str, ...] = ()

    def __init__(
        self, num_players: int, seed: int, options: dict | None, version: str | None = None
    ) -> None:
        # The rules version this state plays: the current one, or an older one a
        # replay of an old record asks for (`Game.new_game(..., version=)` checks it).
        # Private, so `setup_position` cannot change it; the game branches on it
        # only where a correction changed behaviour.
        self._version = version or self.engine_version
        if self._version not in (self.engine_version, *self.replays):
            older = ", ".join(self.replays) or "no older version"
            raise ValueError(
                f"{type(self).__name__} plays {self.engine_version} and replays {older},"
                f" not {version!r}"
            )
        self.num_players = num_players
        self.seed = seed
        self.options = dict(options or {})
        self.rng = Rng(seed)
        self.history: list[tuple[int, Action]] = []
        # Public events, and for each seat the log length at its last decision,
        # so a view can show "what happened since you last acted".
        self.log: list[dict] = []
        self._seen = [0] * num_players
        self._legal_cache: list[Action] | None = None

    @property
    def version(self) -> str:
        """The rules version this state plays (its records say so)."""
        return self._version

    # -- hooks for the game ------------------------------------------------
    def current_player(self) -> int | None:
        raise NotImplementedError

    def _legal_actions(self) -> list[Action]:
        raise NotImplementedError

    def _apply(self, action: Action) -> None:
        raise NotImplementedError

    def view(self, seat: int) -> dict:
        raise NotImplementedError

    def is_over(self) -> bool:
        raise NotImplementedError

    def _scores(self) -> list:
        raise NotImplementedError

    def spectate(self) -> dict:
        """The whole state as JSON-able data, for an all-seeing spectator.

        What every seat may see, plus each seat's secrets (hands, shares,
        characters) under `"private"`: one dict per seat holding the
        `private_view_keys` of `view(seat)` with the same values. The generator
        is left out. Only the ladder decides when showing it is fair (a
        finished match). Not on a hot path: it builds every seat's view.
        """
        if not self.private_view_keys:
            raise NotImplementedError(f"{self.game_name} names no private_view_keys")
        views = [self.view(seat) for seat in range(self.num_players)]
        public = {
            k: v
            for k, v in views[0].items()
            if k not in ("seat", "events", *self.private_view_keys)
        }
        # An older rules version's view may lack a key a later version added.
        private = [{k: v[k] for k in self.private_view_keys if k in v} for v in views]
        return {**public, "seat": None, "spectator": True, "private": private}

    def hidden_variant(self, seat: int, seed: int) -> State:
        """A copy in which everything `seat` cannot see is resampled.

        Other seats' secrets, deck order and the generator change; what `seat`
        knows does not. The contract test uses it to prove `view(seat)` leaks
        nothing; a search bot could use it to sample possible worlds.
        """
        raise NotImplementedError

    def clone(self) -> State:
        """An independent copy for search: same position, same generator, no deep copy.

        Lists and dicts are copied all the way down (a state is plain data; its
        tuples hold only numbers and strings, so they are shared). Logged events,
        history entries and the cached legal list are never edited once made, so
        the clone shares them and copies only the lists that hold them. The clone
        and the original then play on independently; equal actions give equal
        states.
        """
        other = object.__new__(type(self))
        fields = {}
        for name, value in self.__dict__.items():
            kind = type(value)
            if kind is list:
                value = list(value) if name in _SHARED_ENTRIES else _copy_list(value)
            elif kind is dict:
                value = _copy_dict(value)
            fields[name] = value
        fields["rng"] = self.rng.copy()
        other.__dict__.update(fields)
        return other

    def _as_determinized(self, seed: int, events: list[dict]) -> None:
        """Hook for a game's `determinize`: a fresh generator, no history, the view's events.

        The generator is seeded from `seed` (the hidden things are drawn from it
        first, then the future); the log holds the view's events so the seat's
        next view shows them as the original did.
        """
        self.seed = seed
        self.rng = Rng(seed)
        self.history = []
        self.log = [dict(e) for e in events]
        self._seen = [0] * self.num_players
        self._legal_cache = None

    # -- set-up for tests and tools ---------------------------------------
    def setup_position(self, **fields: Any) -> None:
        """Build a position by hand: replace public fields, then drop what was derived.

        For tests and tools only; play and replays never call it. Each name must be
        a public field the state already has, and its value replaces that field
        whole (pass a new list or dict, not an edited one). The caller keeps the
        position consistent (every card in one place, a seat on move); the game
        re-derives what follows from the fields (`_after_setup`) and the cached
        legal actions are dropped.
        """
        unknown = [name for name in fields if name.startswith("_") or name not in vars(self)]
        if unknown:
            raise AttributeError(f"{type(self).__name__} has no public field {unknown[0]!r}")
        for name, value in fields.items():
            setattr(self, name, value)
        self._after_setup()
        self._legal_cache = None

    def _after_setup(self) -> None:
        """Hook: re-derive what follows from fields `setup_position` set (nothing here)."""

    # -- shared behaviour -------------------------------------------------
    def legal_actions(self) -> list[Action]:
        """Every action the current player may take now (a fresh list)."""
        if self.current_player() is None:
            return []
        if self._legal_cache is None:
            self._legal_cache = self._legal_actions()
        return [dict(a) for a in self._legal_cache]

    def apply(self, action: Action) -> None:
        """Apply one legal action; raise IllegalAction (state unchanged) otherwise."""
        seat = self.current_player()
        if seat is None:
            raise IllegalAction("the game is over")
        if not isinstance(action, dict):
            raise IllegalAction(f"an action is a dict, not {type(action).__name__}")
        if self._legal_cache is None:
            self._legal_cache = self._legal_actions()
        try:
            index = self._legal_cache.index(action)
        except ValueError:
            raise IllegalAction(f"not a legal action for seat {seat}: {action!r}") from None
        # The engine's own dict goes on: a caller's equal copy of other types (41.0
        # for 41, True for 1) must never reach the rules or the replay.
        action = self._legal_cache[index]
        self._legal_cache = None
        self._seen[seat] = len(self.log)
        self.history.append((seat, action))
        self._apply(action)

    def events_since_last_decision(self, seat: int) -> list[dict]:
        """Public events logged since `seat` last acted (copies: a view never aliases the log)."""
        return [dict(e) for e in self.log[self._seen[seat] :]]

    def emit(self, kind: str, **fields: Any) -> None:
        """Log one public event."""
        self.log.append({"event": kind, **fields})

    def result(self) -> dict:
        """Final scores and 1-based ranks (ties share); only when the game is over."""
        if not self.is_over():
            raise ValueError("the game is not over")
        scores = self._scores()
        return {"scores": scores, "ranks": ranks_from_scores(scores)}

    def record(self) -> dict:
        """The replay record: plain JSON that `engine.replay` turns back into this state."""
        return {
            "game": self.game_name,
            "engine_version": self._version,
            "seed": self.seed,
            "players": self.num_players,
            "options": dict(self.options),
            "actions": [[seat, _copy_dict(action)] for seat, action in self.history],
            "result": self.result() if self.is_over() else None,
        }


# Lists whose entries are never edited once made: a clone copies the list only.
_SHARED_ENTRIES = frozenset({"log", "history", "_legal_cache"})
# The lists and dicts a copy makes plain and copies deeper (a shared one too).
_NESTED = frozenset({list, dict, SharedList, SharedAction})


def _copy_list(items: list) -> list:
    return [_copy_any(v) if type(v) in _NESTED else v for v in items]


def _copy_dict(items: dict) -> dict:
    return {k: (_copy_any(v) if type(v) in _NESTED else v) for k, v in items.items()}


def _copy_any(value: Any) -> Any:
    return _copy_list(value) if isinstance(value, list) else _copy_dict(value)


def find_legal(legal: list[Action], action: Any) -> int | None:
    """The index of `action` in `legal`, matched exactly: equal values of equal types.

    `==` alone would take 41.0 or True for 41 or 1. `State.apply` accepts those
    (and applies its own dict); the match runner holds bots to this stricter
    test, so a bot's reply is legal only if JSON writes it as a legal action.
    """
    if not isinstance(action, dict):
        return None
    start = 0
    while True:
        try:
            index = legal.index(action, start)
        except ValueError:
            return None
        if _same_types(legal[index], action):
            return index
        start = index + 1


def _same_types(a: Any, b: Any) -> bool:
    # A shared action or list is the plain dict or list JSON writes.
    if type(a) is not type(b) and not (
        (isinstance(a, dict) and isinstance(b, dict))
        or (isinstance(a, list) and isinstance(b, list))
    ):
        return False
    if isinstance(a, dict):
        return all(_same_types(value, b[key]) for key, value in a.items())
    if isinstance(a, list):
        return all(_same_types(x, y) for x, y in zip(a, b, strict=True))
    return True


class EventShape(tuple):
    """The keys of one kind of compact log entry ("event" first), able to make its dict.

    `make(entry)` turns an entry `(shape, kind, *values)` into `{"event": kind, ...}`
    with a dict display written for these keys, some three times as quick as
    `dict(zip(keys, values))`: a bot's greedy rollout asks for a view, and so for
    the events since a seat's last decision, at every step. A tuple to everything
    else (equality, JSON, copies share it: it never changes).
    """

    make: Callable[[tuple], dict]

    def __new__(cls, keys: tuple[str, ...]) -> EventShape:
        shape = super().__new__(cls, keys)
        if not shape or shape[0] != "event" or not all(k.isidentifier() for k in shape):
            raise ValueError(f"an event shape is 'event' and field names, not {keys!r}")
        fields = ", ".join(f"{key!r}: entry[{i}]" for i, key in enumerate(shape, start=1))
        shape.make = eval(f"lambda entry: {{{fields}}}")  # names checked just above
        return shape

    def __copy__(self) -> EventShape:
        return self

    def __deepcopy__(self, memo: dict) -> EventShape:
        return self

    def __reduce__(self) -> tuple:
        return (EventShape, (tuple(self),))


def event_dict(entry: tuple) -> dict:
    """A compact entry's dict (its values shared, not copied), quickest for a shaped one."""
    keys = entry[0]
    if type(keys) is EventShape:
        return keys.make(entry)
    return dict(zip(keys, entry[1:], strict=True))


def fresh_event_dict(entry: tuple) -> dict:
    """`event_dict` with its lists and dicts (shared ones too) copied plain all the way down."""
    return _copy_dict(event_dict(entry))


class CompactLog:
    """`State.log` kept compact, for a state that plays many events a playout never reads.

    An entry is `(keys, kind, *values)`, `keys` a shared tuple ("event" first, then
    the fields in the order the dict shows them; an `EventShape` for the entries
    the rules log, a plain tuple for `emit`'s); it becomes a dict only when the
    log is read (`log` keeps each made dict, so it is made once) or a view asks for
    the events since a seat's last decision. A game names how an entry becomes a
    dict for the log (`_event_dict`), a fresh one a caller may edit
    (`_fresh_event_dict`), and how a logged dict is kept (`_event_entry`, for the
    events `determinize` takes from a view). Put it before `State` in the bases.
    """

    _events: list
    _log_dicts: list[dict]
    _seen: list[int]

    _event_dict = staticmethod(event_dict)
    _fresh_event_dict = staticmethod(fresh_event_dict)

    @staticmethod
    def _event_entry(event: dict) -> Any:
        return (tuple(event), *event.values())

    @property
    def log(self) -> list[dict]:
        """The public events so far, as dicts (the same list object while it grows)."""
        made, entries = self._log_dicts, self._events
        if len(made) < len(entries):
            made.extend(map(self._event_dict, entries[len(made) :]))
        return made

    @log.setter
    def log(self, events: list[dict]) -> None:
        self._events = [self._event_entry(e) for e in events]
        self._log_dicts = []

    def emit(self, kind: str, **fields: Any) -> None:
        """Log one public event (a game's rules may append entries to `_events` directly).

        The replay viewer watches this method for the game's `pause_after` event, so
        that event is always logged through it.
        """
        self._events.append((("event", *fields), kind, *fields.values()))

    def events_since_last_decision(self, seat: int) -> list[dict]:
        """Public events logged since `seat` last acted: fresh dicts a caller may edit."""
        return list(map(self._fresh_event_dict, self._events[self._seen[seat] :]))


class StateFactory(Protocol):
    """What makes a game's states: its State class (`version` only for an older one)."""

    def __call__(
        self, num_players: int, seed: int, options: dict, version: str | None = None
    ) -> State: ...


class Capabilities(NamedTuple):
    """What a game declares it supports, so callers read it instead of probing.

    As OpenSpiel's `GameType`: the service asks `game.capabilities` whether a
    game has a spectator view or where its replay pauses, never catches
    NotImplementedError or names a game. A named tuple: fixed once made, cheap
    to import (no `dataclasses`, see `Game`).
    """

    # `State.spectate()` works: the all-seeing view with every seat's secrets
    # (it needs the state's `private_view_keys`).
    spectate: bool = False
    # The event logged when a move settles a voyage or round whose board the same
    # move then clears (Manila: "prices"; Meuterer: "sail"); a replay viewer
    # pauses there to show it, watching `State.emit`, so the game logs this event
    # through `emit` (not straight into its log). None: no move clears a board
    # worth showing.
    pause_after: str | None = None


# A game that declares nothing beyond the fixed API.
NO_CAPABILITIES = Capabilities()


class Game:
    """A registered game: its name, player range, how to start and draw one, what it supports.

    A plain class, not a dataclass: `dataclasses` imports `inspect` and `re`, which
    would cost every bot sandbox that preloads the engine some 15 ms at its start.
    Its fields are fixed once made (setting one raises AttributeError).
    """

    FIELDS = (
        "name", "min_players", "max_players", "version", "factory", "option_defaults",
        "replays", "drawing", "determinizer", "capabilities", "schema",
    )  # fmt: skip
    __slots__ = FIELDS

    name: str
    min_players: int
    max_players: int
    version: str
    factory: StateFactory
    option_defaults: dict
    # Older engine versions whose records this one still replays: `new_game(...,
    # version=v)` starts a state that plays version v's rules (the game branches on
    # its state's `version` where a correction changed them), or plays them
    # unchanged when no recorded game could have reached the change.
    replays: tuple[str, ...]
    # Optional: the static data a replay viewer needs to draw this game beyond its
    # frames (a map, say), as plain JSON; None when the frames are enough. The same
    # every call, so callers may cache it; games are free of any viewer's code.
    drawing: Callable[[], dict] | None
    # Builds a full state from one seat's view (`determinize`): called with the view,
    # the seed, the merged options and the seat's legal list (or None).
    determinizer: Callable[[dict, int, dict, list | None], State] | None
    # What the game supports beyond the fixed API (a spectator view, replay pauses).
    capabilities: Capabilities
    # Optional: the shapes of this game's views and legal actions, per phase, as a
    # JSON Schema document (its package's `schema.json`, see `engine.schema`); a
    # fresh dict every call. The contract test checks every view and action with it.
    schema: Callable[[], dict] | None

    def __init__(
        self,
        name: str,
        min_players: int,
        max_players: int,
        version: str,
        factory: StateFactory,
        option_defaults: dict,
        replays: tuple[str, ...] = (),
        drawing: Callable[[], dict] | None = None,
        determinizer: Callable[[dict, int, dict, list | None], State] | None = None,
        capabilities: Capabilities = NO_CAPABILITIES,
        schema: Callable[[], dict] | None = None,
    ) -> None:
        given = (name, min_players, max_players, version, factory, option_defaults,
                 replays, drawing, determinizer, capabilities, schema)  # fmt: skip
        for slot, value in zip(self.FIELDS, given, strict=True):
            object.__setattr__(self, slot, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"a Game is fixed once made: cannot set {name!r}")

    def __repr__(self) -> str:
        return f"Game({self.name!r}, {self.min_players}-{self.max_players} players, {self.version})"

    def new_game(
        self,
        num_players: int,
        seed: int = 0,
        options: dict | None = None,
        *,
        version: str | None = None,
    ) -> State:
        """Start a game; rejects a bad player count, an unknown option or version.

        `version` (keyword only) is the rules version to play: None or the
        current `version` for a new game, one of `replays` to rebuild an old
        record with the rules it was played under.
        """
        if version is not None and version != self.version and version not in self.replays:
            raise ValueError(self.version_error(version))
        if not isinstance(num_players, int) or not (
            self.min_players <= num_players <= self.max_players
        ):
            raise ValueError(
                f"{self.name} takes {self.min_players} to {self.max_players} players,"
                f" not {num_players!r}"
            )
        if not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, not {seed!r}")
        merged = self.merged_options(options)
        if version is None or version == self.version:
            return self.factory(num_players, seed, merged)
        return self.factory(num_players, seed, merged, version=version)

    def merged_options(self, options: dict | None) -> dict:
        """The defaults overridden by `options`; rejects an unknown option or a wrong type."""
        merged = dict(self.option_defaults)
        for key, value in (options or {}).items():
            if key not in merged:
                known = ", ".join(sorted(merged)) or "none"
                raise ValueError(f"unknown {self.name} option {key!r} (known: {known})")
            if type(value) is not type(merged[key]):
                raise ValueError(
                    f"option {key!r} must be {type(merged[key]).__name__}, not {value!r}"
                )
            merged[key] = value
        return merged

    def determinize(
        self,
        view: dict,
        seed: int,
        *,
        options: dict | None = None,
        legal: list[Action] | None = None,
    ) -> State:
        """A full state consistent with one seat's `view`, every hidden thing drawn from `seed`.

        Other hands, face-down shares, unrevealed characters, deck order and the
        future (a fresh generator) are sampled uniformly among what the view
        allows; each game's RULES.md says what (section "Determinization"). The
        state plays the current rules from the view's position, its history is
        empty and its log holds the view's events, so `record()` does not replay
        the match. `options` are the match's (a bot's `setup` info has them; a
        view does not). `legal`, the list the seat was given, settles the few
        facts a view leaves out; without it they are inferred from the events.
        """
        if self.determinizer is None:
            raise NotImplementedError(f"{self.name} has no determinization")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"seed must be an integer, not {seed!r}")
        if not isinstance(view, dict):
            raise ValueError(f"a view is a dict, not {type(view).__name__}")
        return self.determinizer(view, seed, self.merged_options(options), legal)

    def version_error(self, version: object) -> str:
        """Why a record of `version` cannot be replayed by this engine."""
        older = ", ".join(self.replays) if self.replays else "no older version"
        return (
            f"cannot replay a {self.name} record of engine version {version!r}:"
            f" this engine plays {self.version} and replays {older}"
        )
