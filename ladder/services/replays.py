"""Replays made watchable: rebuild a record with the engine and hand out frames.

A frame is one step of a game seen from one perspective: a seat's `view` or
the all-seeing `spectate()`, which is offered for finished games only. Step 0
is the state before any move; step K the state after the K-th move. Frames come
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
from dataclasses import dataclass
from typing import Any

import engine
from engine.core import IllegalAction, State
from ladder.services.errors import ServiceError
from ladder.services.inputs import whole_number

SPECTATOR = "spectator"
DEFAULT_CHUNK = 200
MAX_CHUNK = 500
MAX_FILE_BYTES = 512 * 1024  # an uploaded file, gzipped or not (the browser gzips it)
MAX_JSON_BYTES = 32 * 1024 * 1024  # the JSON inside, once unzipped
MAX_ACTIONS = 100_000


class ReplayError(ServiceError):
    """A replay file or request the viewer cannot use (400, with the reason)."""


@dataclass
class Replay:
    """A record checked against the engine: every recorded action was legal."""

    record: dict
    final: State

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
        if not self.finished:
            return False
        try:
            self.final.spectate()
        except NotImplementedError:
            return False
        return True


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
    for i, move in enumerate(actions):
        _apply_recorded(state, i, move)
    result = record.get("result")
    if result is not None and (not state.is_over() or result != state.result()):
        raise ReplayError("the replay's result is not what its moves produce")
    return Replay(record=record, final=state)


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
    """A short human reading of an action: its type, then its other fields."""
    if not isinstance(action, dict):
        return json.dumps(action)
    parts = [str(action.get("type", ""))] if "type" in action else []
    for key, value in action.items():
        if key != "type":
            shown = value if isinstance(value, str | int) else json.dumps(value)
            parts.append(f"{key}={shown}")
    return " ".join(parts)


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
    """
    record = replay.record
    labels = record.get("seats")
    if not (isinstance(labels, list) and len(labels) == replay.players):
        labels = [f"seat {s}" for s in range(replay.players)]
    wall = timings(record, "decision_ms", replay.steps)
    cpu = timings(record, "decision_cpu_ms", replay.steps)
    return {
        "game": replay.game,
        "players": replay.players,
        "seats": [str(label) for label in labels],
        "statuses": record.get("statuses"),
        "steps": replay.steps,
        "finished": replay.finished,
        "result": replay.final.result() if replay.finished else None,
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


def parse_perspective(raw: str | None, replay: Replay) -> str | int:
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


def parse_window(start: str | None, count: str | None, replay: Replay) -> tuple[int, int]:
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
    """Frames for steps start .. start+count-1 (fewer at the end), rebuilt by the engine."""
    record = replay.record
    actions = record["actions"]
    state = engine.get_game(replay.game).new_game(
        replay.players,
        seed=record["seed"],
        options=record.get("options") or {},
        version=record.get("engine_version"),
    )
    stop = min(start + count, replay.steps + 1)
    out = []
    for step in range(stop):
        logged = len(state.log)
        if step > 0:
            state.apply(actions[step - 1][1])
        if step < start:
            continue
        seat, action = actions[step - 1] if step > 0 else (None, None)
        seen = state.spectate() if perspective == SPECTATOR else state.view(perspective)
        out.append(
            {
                "step": step,
                "seat": seat,
                "action": action,
                "to_move": state.current_player(),
                "events": [dict(e) for e in state.log[logged:]] if step > 0 else [],
                "state": seen,
            }
        )
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
