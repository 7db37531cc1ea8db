"""The fixed wire protocol, runner side: one JSON object a line, UTF-8.

Building messages and judging a bot's replies live here so that the match
runner only decides what to do with them.
"""

from __future__ import annotations

import json
import re

from engine.core import find_legal
from workers.bot_process import BotFault
from workers.contract import SeatStatus

PROTOCOL = 1
MAX_DEPTH = 32  # nesting a reply may have; actions are flat, a reply is three deep
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_encode = json.JSONEncoder(separators=(",", ":")).encode


def line(message: dict) -> bytes:
    """One message as a protocol line."""
    return (_encode(message) + "\n").encode()


def start(
    game: str,
    seat: int,
    players: int,
    options: dict,
    limits: dict,
    seed: int | None = None,
    seats: list[dict] | None = None,
) -> bytes:
    """The start message; `seed` (the bot's own) and `seats` (who plays where) when known."""
    message = {
        "type": "start",
        "protocol": PROTOCOL,
        "game": game,
        "seat": seat,
        "players": players,
        "options": options,
        "limits": limits,
    }
    if seed is not None:
        message["seed"] = seed
    if seats is not None:
        message["seats"] = seats
    return line(message)


def start_from(info: dict) -> bytes:
    """The start message of a bot whose `setup(info)` is `info` (`workers.info`): the
    SDK hands the bot these very fields."""
    return start(
        info["game"], info["seat"], info["players"], info["options"], info["limits"],
        seed=info["seed"], seats=info["seats"],
    )  # fmt: skip


def act(view: dict, legal: list, time_left_ms: int) -> bytes:
    return line({"type": "act", "view": view, "legal": legal, "time_left_ms": time_left_ms})


def end(result: dict) -> bytes:
    return line({"type": "end", "result": result})


def depth(raw: bytes) -> int:
    """How deeply the arrays and objects of a JSON text nest (strings skipped).

    Checked before decoding: a reply nested thousands deep would make the
    decoder recurse until it fails, and that failure is the bot's, not ours.
    """
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:
        return 0  # too few brackets to nest too deep: the common case, at C speed
    deepest = level = 0
    for bracket in _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS):
        level += 1 if bracket in b"[{" else -1
        deepest = max(deepest, level)
    return deepest


def _parse(raw: bytes, expected: str) -> dict:
    if depth(raw) > MAX_DEPTH:
        raise BotFault(
            SeatStatus.INVALID, f"output nested deeper than {MAX_DEPTH} levels: {clip(raw)}"
        )
    try:
        message = json.loads(raw)
    except Exception:  # whatever decoding a bot's bytes raises is its fault
        raise BotFault(SeatStatus.INVALID, f"unparsable output: {clip(raw)}") from None
    if not isinstance(message, dict) or message.get("type") != expected:
        raise BotFault(SeatStatus.INVALID, f"expected a {expected!r} message, got {clip(raw)}")
    return message


def ready(raw: bytes) -> None:
    """Accept a `ready` reply or raise BotFault(invalid)."""
    _parse(raw, "ready")


def action(raw: bytes, legal: list[dict]) -> dict:
    """The legal action an `action` reply names: the engine's own dict from `legal`.

    BotFault(invalid) when the reply has no action, BotFault(illegal) when it
    is not one of `legal` exactly: equal values of equal types, as JSON writes
    them (41.0 is not 41, true is not 1). Applying `legal`'s own dict means a
    bot's copy never reaches the engine or the replay.
    """
    message = _parse(raw, "action")
    chosen = message.get("action")
    if not isinstance(chosen, dict):
        raise BotFault(SeatStatus.INVALID, f"an action must be a JSON object, got {clip(raw)}")
    index = find_legal(legal, chosen)
    if index is None:
        hint = " (values must have the legal action's types)" if chosen in legal else ""
        raise BotFault(SeatStatus.ILLEGAL, f"not a legal action{hint}: {clip(raw)}")
    return legal[index]


def clip(raw: bytes, keep: int = 120) -> str:
    """A bot's output, shortened and quoted for an error message."""
    text = raw[:keep].decode("utf-8", "replace")
    return repr(text + ("…" if len(raw) > keep else ""))
