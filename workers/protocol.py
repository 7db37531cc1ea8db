"""The fixed wire protocol, runner side: one JSON object a line, UTF-8.

Building messages and judging a bot's replies live here so that the match
runner only decides what to do with them.
"""

from __future__ import annotations

import json

from workers.sandbox import BotFault

PROTOCOL = 1
_encode = json.JSONEncoder(separators=(",", ":")).encode


def line(message: dict) -> bytes:
    """One message as a protocol line."""
    return (_encode(message) + "\n").encode()


def start(game: str, seat: int, players: int, options: dict, limits: dict) -> bytes:
    return line(
        {
            "type": "start",
            "protocol": PROTOCOL,
            "game": game,
            "seat": seat,
            "players": players,
            "options": options,
            "limits": limits,
        }
    )


def act(view: dict, legal: list, time_left_ms: int) -> bytes:
    return line({"type": "act", "view": view, "legal": legal, "time_left_ms": time_left_ms})


def end(result: dict) -> bytes:
    return line({"type": "end", "result": result})


def _parse(raw: bytes, expected: str) -> dict:
    try:
        message = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise BotFault("invalid", f"unparsable output: {clip(raw)}") from None
    if not isinstance(message, dict) or message.get("type") != expected:
        raise BotFault("invalid", f"expected a {expected!r} message, got {clip(raw)}")
    return message


def ready(raw: bytes) -> None:
    """Accept a `ready` reply or raise BotFault(invalid)."""
    _parse(raw, "ready")


def action(raw: bytes) -> dict:
    """The action of an `action` reply; BotFault(invalid) when there is none."""
    message = _parse(raw, "action")
    chosen = message.get("action")
    if not isinstance(chosen, dict):
        raise BotFault("invalid", f"an action must be a JSON object, got {clip(raw)}")
    return chosen


def clip(raw: bytes, keep: int = 120) -> str:
    """A bot's output, shortened and quoted for an error message."""
    text = raw[:keep].decode("utf-8", "replace")
    return repr(text + ("…" if len(raw) > keep else ""))
