"""Replays made watchable: rebuild a record with the engine and hand out frames.

A frame is one step of a game seen from one perspective: a seat's `view` or
the all-seeing `spectate()`, which is offered for finished games only. Step 0
is the state before any move; step K the state after the K-th move. A move that
ends a Manila voyage or a Meuterer round also clears the board for the next
one, so its frame carries a `pause`: the board as it stood when the voyage or
round was settled, before it was cleared. Frames come
in bounded chunks so a 4,000-move game never turns into one huge response; the
move list is served on its own. No rule is implemented here: every state comes
from the engine re-applying the recorded actions.
"""

from __future__ import annotations

import functools
import gzip
import json
import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import engine
from engine.core import IllegalAction, State
from ladder.errors import ServiceError
from ladder.inputs import whole_number

SPECTATOR = "spectator"
DEFAULT_CHUNK = 200
MAX_CHUNK = 500
MAX_FILE_BYTES = 512 * 1024  # an uploaded file, gzipped or not (the browser gzips it)
MAX_JSON_BYTES = 32 * 1024 * 1024  # the JSON inside, once unzipped
MAX_ACTIONS = 100_000
# Keys of a view naming the seat on move: mid-move, nobody is.
ON_MOVE = ("to_move", "current_player")


class ReplayError(ServiceError):
    """A replay file or request the viewer cannot use (400, with the reason)."""


@dataclass
class Replay:
    """A record checked against the engine: every recorded action was legal."""

    record: dict
    final: State
    # The steps whose move ends a voyage or round (the game's `pause_after`), in order; not
    # the last move when the board it settled is the final one anyway.
    pauses: list[int] = field(default_factory=list)

    @property
    def game(self) -> str:
        return self.record["game"]

    @property
    def players(self) -> int:
        return self.record["players"]

    @property
    def steps(self) -> int:
        return len(self.record["actions"])

    @property
    def finished(self) -> bool:
        return self.final.is_over()

    def perspectives(self) -> list[str]:
        """The views a viewer may pick: the spectator (finished games only) and each seat."""
        seats = [str(s) for s in range(self.players)]
        return [SPECTATOR, *seats] if self.spectator_allowed() else seats

    def spectator_allowed(self) -> bool:
        return self.finished and engine.get_game(self.game).capabilities.spectate


class Shape(Protocol):
    """What checking a viewer request needs of a replay (a Replay, or a kept summary)."""

    @property
    def players(self) -> int: ...

    @property
    def steps(self) -> int: ...

    def spectator_allowed(self) -> bool: ...


# -- reading a file --------------------------------------------------------------
def parse_file(data: bytes) -> dict:
    """The record inside a replay file: plain JSON or gzipped JSON, size-limited."""
    if not data:
        raise ReplayError("the replay file is empty")
    if len(data) > MAX_FILE_BYTES:
        raise ReplayError(f"a replay file may be at most {MAX_FILE_BYTES // 1024} KB gzipped")
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data)
    if len(data) > MAX_JSON_BYTES:
        raise ReplayError("the replay is too big once unzipped")
    try:
        record = json.loads(data)
    except (UnicodeDecodeError, ValueError):
        raise ReplayError("the file is not a replay: it is not JSON") from None
    return record


def _gunzip(data: bytes) -> bytes:
    """Unzip at most MAX_JSON_BYTES + 1 bytes, so a zip bomb costs nothing."""
    unzip = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        out = unzip.decompress(data, MAX_JSON_BYTES + 1)
    except zlib.error:
        raise ReplayError("the file looks gzipped but does not unzip") from None
    if len(out) > MAX_JSON_BYTES:
        raise ReplayError("the replay is too big once unzipped")
    if not unzip.eof:
        raise ReplayError("the file looks gzipped but does not unzip (cut short?)")
    return out


def load(record: Any, *, game: str | None = None) -> Replay:
    """Check a record's shape, then rebuild it with the engine; ReplayError says what is wrong."""
    if not isinstance(record, dict):
        raise ReplayError("a replay is a JSON object")
    for key in ("game", "seed", "players", "actions"):
        if key not in record:
            raise ReplayError(f"the replay has no {key!r}")
    if game is not None and record["game"] != game:
        raise ReplayError(f"this replay is of {record['game']!r}, not {game!r}")
    try:
        spec = engine.get_game(record["game"])
    except ValueError as exc:
        raise ReplayError(str(exc)) from None
    version = record.get("engine_version")
    if version is not None and version != spec.version and version not in spec.replays:
        raise ReplayError(
            f"the replay was made by engine {version!r}; this site runs {spec.version!r}"
        )
    actions = record["actions"]
    if not isinstance(actions, list) or len(actions) > MAX_ACTIONS:
        raise ReplayError(f"'actions' must be a list of at most {MAX_ACTIONS} moves")
    options = record.get("options")
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise ReplayError("'options' must be an object")
    try:
        # An old record keeps the rules of its own engine version.
        state = spec.new_game(
            record["players"], seed=record["seed"], options=options, version=version
        )
    except ValueError as exc:
        raise ReplayError(f"the replay's game cannot start: {exc}") from None
    pauses: list[int] = []
    settled: list[dict | None] = [None]  # the board at the last pause of the last move
    step = 0

    def pause() -> None:
        pauses.append(step)
        if step == len(actions):
            settled[0] = _board(state, settling=True)

    _watch(state, record["game"], pause)
    for i, move in enumerate(actions):
        step = i + 1
        _apply_recorded(state, i, move)
    result = record.get("result")
    if result is not None and (not state.is_over() or result != state.result()):
        raise ReplayError("the replay's result is not what its moves produce")
    if pauses and settled[0] is not None and settled[0] == _board(state):
        pauses.pop()  # the game ended there: the final board is the settled one
    return Replay(record=record, final=state, pauses=pauses)


def _board(state: State, settling: bool = False) -> dict | None:
    """The all-seeing board, to compare two moments of a game; None where a game has none."""
    if not engine.get_game(state.game_name).capabilities.spectate:
        return None
    board = state.spectate()
    return _settling(board) if settling else board


def _settling(seen: dict) -> dict:
    """A view taken mid-move, when the voyage or round was settled: nobody is on move."""
    return {**seen, **{key: None for key in ON_MOVE if key in seen}}


def _watch(state: State, game: str, seen: Callable[[], None]) -> None:
    """Call `seen()` right after `state` logs its game's `pause_after` event, mid-move.

    The engine logs but keeps no intermediate states; shadowing `emit` on this
    one instance (a state the replay owns) is how the viewer sees a board the
    same move goes on to clear. Nothing of the rules changes.
    """
    pause_after = engine.get_game(game).capabilities.pause_after
    if pause_after is None:
        return
    emit = state.emit

    def watched(kind: str, **fields: Any) -> None:
        emit(kind, **fields)
        if kind == pause_after:
            seen()

    state.emit = watched  # type: ignore[method-assign]


def _apply_recorded(state: State, i: int, move: Any) -> None:
    if not (isinstance(move, list) and len(move) == 2 and isinstance(move[0], int)):
        raise ReplayError(f"move {i} is not a [seat, action] pair")
    seat, action = move
    if seat != state.current_player():
        raise ReplayError(
            f"move {i} is recorded for seat {seat}, but seat {state.current_player()} was on move"
        )
    try:
        state.apply(action)
    except IllegalAction as exc:
        raise ReplayError(f"move {i} is illegal: {exc}") from None


def load_stored(data: bytes, game: str) -> Replay:
    """A replay the ladder stored (gzipped JSON, as `services.storage` keeps it)."""
    return load(json.loads(gzip.decompress(data)), game=game)


# -- what the viewer is served -------------------------------------------------
def action_text(action: dict) -> str:
    """A short plain reading of an action: its type, then its other fields by name.

    Fields in one order whatever the record's (the viewer's fallback reads them
    the same way): a bot may send its keys in any order.
    """
    if not isinstance(action, dict):
        return json.dumps(action)
    parts = [str(action.get("type", ""))] if "type" in action else []
    for key in sorted(k for k in action if k != "type"):
        value = action[key]
        shown = value if isinstance(value, str | int) else json.dumps(value, sort_keys=True)
        parts.append(f"{key}={shown}")
    return " ".join(parts)


def final_ranks(replay: Replay) -> list[int] | None:
    """The ranks the ladder gave (faulted seats below every ok seat), else the engine's."""
    if not replay.finished:
        return None
    ranks = replay.record.get("ranks")
    players = replay.players
    if (
        isinstance(ranks, list)
        and len(ranks) == players
        and all(type(r) is int and 1 <= r <= players for r in ranks)
    ):
        return ranks
    return replay.final.result()["ranks"]


def timings(record: dict, key: str, steps: int) -> list[float | None] | None:
    """Milliseconds per move under `key` (decision_ms: wall clock; decision_cpu_ms: the
    bot's CPU), None per move where unknown; None for a record without them."""
    values = record.get(key)
    if not (isinstance(values, list) and len(values) == steps):
        return None  # an older replay, or a file someone edited
    return [
        float(v)
        if isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v < math.inf
        else None
        for v in values
    ]


def summary(replay: Replay) -> dict:
    """Everything but the frames: game, seats, result, perspectives and the move list.

    A move carries `ms` and `cpu_ms` (None when unknown, e.g. a fallback move);
    `timed` says whether the record has times at all (older replays do not).
    `ranks` are the final ranks as the ladder recorded them (a faulted seat
    ranks below every ok seat), `pauses` the steps that end a voyage or round.
    """
    record = replay.record
    labels = record.get("seats")
    if labels is None or not _seat_list(labels, replay.players):
        labels = [f"seat {s}" for s in range(replay.players)]
    statuses = record.get("statuses")
    wall = timings(record, "decision_ms", replay.steps)
    cpu = timings(record, "decision_cpu_ms", replay.steps)
    return {
        "game": replay.game,
        "players": replay.players,
        "seats": [str(label) for label in labels],
        "statuses": statuses if _seat_list(statuses, replay.players) else None,
        "steps": replay.steps,
        "finished": replay.finished,
        "result": replay.final.result() if replay.finished else None,
        "ranks": final_ranks(replay),
        "pauses": list(replay.pauses),
        "perspectives": replay.perspectives(),
        "board": board_for(replay.game),
        "timed": wall is not None,
        "moves": [
            {
                "step": i + 1,
                "seat": seat,
                "action": action,
                "text": action_text(action),
                "ms": wall[i] if wall else None,
                "cpu_ms": cpu[i] if cpu else None,
            }
            for i, (seat, action) in enumerate(record["actions"])
        ],
    }


def _seat_list(value: Any, players: int) -> bool:
    """Whether a record's per-seat field is a list of short strings, one per seat."""
    return (
        isinstance(value, list)
        and len(value) == players
        and all(isinstance(v, str) and len(v) <= 200 for v in value)
    )


def parse_perspective(raw: str | None, replay: Shape) -> str | int:
    """'spectator' or a seat number, checked against what this replay allows."""
    raw = SPECTATOR if raw in (None, "") else raw
    if raw == SPECTATOR:
        if not replay.spectator_allowed():
            raise ReplayError("the spectator view is shown for finished games only")
        return SPECTATOR
    seat = whole_number(raw)
    if seat is None or seat >= replay.players:
        raise ReplayError(f"view must be 'spectator' or a seat from 0 to {replay.players - 1}")
    return seat


def parse_window(start: str | None, count: str | None, replay: Shape) -> tuple[int, int]:
    """The first step and how many frames: start in 0..steps, count in 1..MAX_CHUNK."""
    first = whole_number(start) if start not in (None, "") else 0
    size = whole_number(count) if count not in (None, "") else DEFAULT_CHUNK
    if first is None or size is None:
        # Whole numbers in ASCII digits only; a sign (even '-1') is no whole number.
        raise ReplayError(
            f"start and count must be whole numbers: start from 0 to {replay.steps},"
            f" count from 1 to {MAX_CHUNK}"
        )
    if not 0 <= first <= replay.steps:
        raise ReplayError(f"start must be from 0 to {replay.steps}")
    if not 1 <= size <= MAX_CHUNK:
        raise ReplayError(f"count must be from 1 to {MAX_CHUNK}")
    return first, size


def frames(replay: Replay, perspective: str | int, start: int, count: int) -> dict:
    """Frames for steps start .. start+count-1 (fewer at the end), rebuilt by the engine.

    A step in `replay.pauses` also has `pause`: `state`, the board seen when its
    voyage or round was settled, and `events`, how many of the step's events
    had been logged by then.
    """
    record = replay.record
    actions = record["actions"]
    state = engine.get_game(replay.game).new_game(
        replay.players,
        seed=record["seed"],
        options=record.get("options") or {},
        version=record.get("engine_version"),
    )
    stop = min(start + count, replay.steps + 1)

    def seen() -> dict:
        return state.spectate() if isinstance(perspective, str) else state.view(perspective)

    pause: dict | None = None
    logged = 0
    step = 0

    def settled() -> None:
        nonlocal pause
        if step >= start and step in replay.pauses and pause is None:
            pause = {"events": len(state.log) - logged, "state": _settling(seen())}

    _watch(state, replay.game, settled)
    out = []
    for step in range(stop):
        logged, pause = len(state.log), None
        if step > 0:
            state.apply(actions[step - 1][1])
        if step < start:
            continue
        seat, action = actions[step - 1] if step > 0 else (None, None)
        frame = {
            "step": step,
            "seat": seat,
            "action": action,
            "to_move": state.current_player(),
            "events": [dict(e) for e in state.log[logged:]] if step > 0 else [],
            "state": seen(),
        }
        if pause is not None:
            frame["pause"] = pause
        out.append(frame)
    return {
        "game": replay.game,
        "view": perspective,
        "start": start,
        "steps": replay.steps,
        "frames": out,
    }


# -- static drawing data ---------------------------------------------------------
@functools.cache
def board_for(game: str) -> dict | None:
    """The static data a game's drawer needs beyond the frames (`Game.drawing`), or None."""
    drawing = engine.get_game(game).drawing
    return None if drawing is None else drawing()
