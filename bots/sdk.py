"""The bot SDK: the stdin/stdout loop around a bot author's `bot.py`.

Run as `python -m bots.sdk path/to/bot.py` (or a directory or `.zip` holding
`bot.py`); the sandbox runs this very file as its entry point. It speaks the
fixed wire protocol (one JSON object a line) so that bot authors only write
`act(view, legal)` and, if they like, `setup(info)`.

This module imports nothing of ours: it runs alone inside the sandbox.
"""

from __future__ import annotations

import errno
import importlib.util
import json
import os
import sys
import traceback
import zipimport

PROTOCOL = 1

# Exit codes the runner reads to name a fault; anything else non-zero is a crash.
EXIT_LOAD = 2  # bot.py missing, unloadable or without act()
EXIT_MEMORY = 3  # MemoryError: the address-space limit was reached
EXIT_FILE_LIMIT = 4  # the file-size or tmpfs limit was reached
EXIT_PROTOCOL = 5  # the runner sent something this SDK does not understand


class LoadError(Exception):
    """The bot module could not be loaded; the message says why, for its author."""


def load_bot(path: str):
    """Import the bot module at `path` (a `bot.py`, a directory or a `.zip` with `bot.py`)."""
    if os.path.isdir(path):
        folder, filename = path, os.path.join(path, "bot.py")
        if not os.path.isfile(filename):
            raise LoadError(f"no bot.py in directory {path}")
    elif path.endswith(".zip"):
        return _load_zip(path)
    elif os.path.isfile(path):
        folder, filename = os.path.dirname(os.path.abspath(path)), path
    else:
        raise LoadError(f"no such bot file: {path}")
    # The bot's own folder first, so `import helper` finds its helper modules.
    sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("bot", filename)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bot"] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        raise LoadError(f"importing {filename} failed:\n{traceback.format_exc()}") from exc
    return _checked(module, filename)


def _load_zip(path: str):
    try:
        importer = zipimport.zipimporter(path)
    except zipimport.ZipImportError as exc:
        raise LoadError(f"{path} is not a readable zip: {exc}") from exc
    if importer.find_spec("bot") is None:
        raise LoadError(f"no bot.py at the root of {path}")
    sys.path.insert(0, path)
    try:
        module = importlib.import_module("bot")
    except BaseException as exc:
        raise LoadError(f"importing bot from {path} failed:\n{traceback.format_exc()}") from exc
    return _checked(module, path)


def _checked(module, where: str):
    if not callable(getattr(module, "act", None)):
        raise LoadError(f"{where} defines no act(view, legal) function")
    setup = getattr(module, "setup", None)
    if setup is not None and not callable(setup):
        raise LoadError(f"{where}: setup is not a function")
    return module


def _write(out, message: dict) -> None:
    out.write(json.dumps(message, separators=(",", ":")) + "\n")
    out.flush()


def serve(bot, inp, out) -> int:
    """Answer runner messages from `inp` on `out` until `end` or end of input; the exit code."""
    for line in inp:
        try:
            message = json.loads(line)
            kind = message["type"]
        except (ValueError, TypeError, KeyError):
            print(
                f"tradewinds sdk: unreadable message from the runner: {line[:200]!r}",
                file=sys.stderr,
            )
            return EXIT_PROTOCOL
        if kind == "start":
            info = {k: message.get(k) for k in ("game", "seat", "players", "options", "limits")}
            if getattr(bot, "setup", None) is not None:
                bot.setup(info)
            _write(out, {"type": "ready"})
        elif kind == "act":
            action = bot.act(message["view"], message["legal"])
            _write(out, {"type": "action", "action": action})
        elif kind == "end":
            return 0
        else:
            print(f"tradewinds sdk: unknown message type {kind!r}", file=sys.stderr)
            return EXIT_PROTOCOL
    return 0


def main(argv: list[str] | None = None) -> int:
    """Load the bot named on the command line and serve the protocol on stdin/stdout."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m bots.sdk path/to/bot.py|dir|bot.zip", file=sys.stderr)
        return EXIT_LOAD
    # Keep the real stdout for the protocol and send everything else a bot
    # prints (Python or C level) to stderr, where it cannot break the protocol.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    inp = sys.stdin
    try:
        bot = load_bot(argv[0])
    except LoadError as exc:
        print(f"tradewinds sdk: {exc}", file=sys.stderr)
        return EXIT_LOAD
    try:
        return serve(bot, inp, out)
    except MemoryError:
        print("tradewinds sdk: out of memory (address-space limit)", file=sys.stderr)
        return EXIT_MEMORY
    except BrokenPipeError:
        return 1  # the runner hung up (it ended the match)
    except OSError as exc:
        traceback.print_exc()
        if exc.errno in (errno.EFBIG, errno.ENOSPC, errno.EDQUOT):
            return EXIT_FILE_LIMIT
        return 1
    except BaseException:
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
