"""The bot SDK: the stdin/stdout loop around a bot author's `bot.py`.

Run as `python -m bots.sdk path/to/bot.py` (or a directory or `.zip` holding
`bot.py`); the sandbox runs this very file as its entry point. It speaks the
fixed wire protocol (one JSON object a line) so that bot authors only write
`act(view, legal)` and, if they like, `setup(info)`.

This module imports nothing of ours: it runs alone inside the sandbox.
"""

import errno
import posix  # the C core of `os`: importing `os` itself costs a millisecond per start
import sys

PROTOCOL = 1

# Exit codes the runner reads to name a fault; anything else non-zero is a crash.
EXIT_LOAD = 2  # bot.py missing, unloadable or without act()
EXIT_MEMORY = 3  # MemoryError: the address-space limit was reached
EXIT_FILE_LIMIT = 4  # the file-size or tmpfs limit was reached
EXIT_PROTOCOL = 5  # the runner sent something this SDK does not understand


# What `setup(info)` receives: the start message's fields of these names.
INFO_KEYS = ("game", "seat", "players", "options", "limits", "seed", "seats")


# What the sandbox refuses between seats, named before the kernel is asked, so a bot's
# stderr says which call and why (bots/README.md, "What a bot cannot do"). The zygote
# installs the hook with the system-call filter, which refuses the same underneath (with
# a bare PermissionError) whatever makes the call.
WHY_LOCKS = "file locks on files every seat can open would pass bits between seats"
REFUSED_EVENTS = {"fcntl.flock": WHY_LOCKS, "fcntl.lockf": WHY_LOCKS}
# fcntl commands: the record and open-file-description locks, leases and F_NOTIFY.
REFUSED_FCNTL = {5: WHY_LOCKS, 6: WHY_LOCKS, 7: WHY_LOCKS, 36: WHY_LOCKS, 37: WHY_LOCKS,
                 38: WHY_LOCKS, 1024: "file leases", 1025: "file leases",
                 1026: "change notifications on shared folders"}  # fmt: skip
AF_UNIX = 1
SEE_DOCS = "(what a bot cannot do: bots/README.md)"


def refuse_what_the_sandbox_refuses(event: str, args: tuple) -> None:
    """An audit hook: a PermissionError naming the call, for calls the sandbox refuses."""
    why = REFUSED_EVENTS.get(event)
    if why is None and event == "fcntl.fcntl":
        why = REFUSED_FCNTL.get(args[1])
    elif why is None and event == "socket.__new__" and args[1] not in (AF_UNIX, -1):
        why = "only Unix sockets: the sandbox has no network"
    if why is not None:
        raise PermissionError(errno.EPERM, f"{event} is refused in the sandbox: {why} {SEE_DOCS}")


class LoadError(Exception):
    """The bot module could not be loaded; the message says why, for its author."""


_DIR, _FILE = 0o040000, 0o100000


def _kind(path: str) -> int | None:
    """The file-type bits of `path` (_DIR, _FILE, ...), or None when it does not exist."""
    try:
        return posix.stat(path).st_mode & 0o170000
    except OSError:
        return None


def load_bot(path: str):
    """Import the bot module at `path` (a `bot.py`, a directory or a `.zip` with `bot.py`)."""
    if _kind(path) == _DIR:
        folder, filename = path, path.rstrip("/") + "/bot.py"
        if _kind(filename) != _FILE:
            raise LoadError(f"no bot.py in directory {path}")
    elif path.endswith(".zip"):
        return _load_zip(path)
    elif _kind(path) == _FILE:
        absolute = path if path.startswith("/") else posix.getcwd() + "/" + path
        folder, filename = absolute.rpartition("/")[0] or "/", path
    else:
        raise LoadError(f"no such bot file: {path}")
    # The bot's own folder first, so `import helper` finds its helper modules.
    sys.path.insert(0, folder)
    module = type(sys)("bot")
    module.__file__ = filename
    sys.modules["bot"] = module
    try:
        with open(filename, "rb") as handle:
            source = handle.read()
        exec(compile(source, filename, "exec"), module.__dict__)
    except BaseException as exc:
        raise LoadError(f"importing {filename} failed:\n{_traceback()}") from exc
    return _checked(module, filename)


def _load_zip(path: str):
    import zipimport

    try:
        importer = zipimport.zipimporter(path)
    except zipimport.ZipImportError as exc:
        raise LoadError(f"{path} is not a readable zip: {exc}") from exc
    if importer.find_spec("bot") is None:
        raise LoadError(f"no bot.py at the root of {path}")
    sys.path.insert(0, path)
    sys.modules.pop("bot", None)
    try:
        module = __import__("bot")
    except BaseException as exc:
        raise LoadError(f"importing bot from {path} failed:\n{_traceback()}") from exc
    return _checked(module, path)


def _traceback() -> str:
    """The current exception's traceback from the bot's first frame on: the SDK's own
    frames above it (main, serve) are noise to a bot author."""
    # Imported only on failure: `traceback` costs milliseconds at every bot's start.
    import traceback

    kind, exc, tb = sys.exc_info()
    inner = tb
    while inner is not None and inner.tb_frame.f_code.co_filename == __file__:
        inner = inner.tb_next
    text = "".join(traceback.format_exception(kind, exc, inner or tb))
    if isinstance(exc, PermissionError) and "refused in the sandbox" not in str(exc):
        text += f"tradewinds sdk: the sandbox refused a system call here {SEE_DOCS}\n"
    return text


def _checked(module, where: str):
    if not callable(getattr(module, "act", None)):
        raise LoadError(f"{where} defines no act(view, legal) function")
    setup = getattr(module, "setup", None)
    if setup is not None and not callable(setup):
        raise LoadError(f"{where}: setup is not a function")
    return module


class _ScanContext:
    """The settings the C JSON scanner reads (those of `json.loads` with no hooks)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float


def _not_serialisable(obj):
    raise TypeError(f"an action must be plain JSON; {type(obj).__name__} is not")


def _codec():
    """(loads, dumps) for protocol lines.

    Uses the C accelerator `_json` directly: importing `json` pulls in `re` and
    `enum`, which would more than double a bot's start-up time. Falls back to
    `json` on an interpreter whose accelerator differs.
    """
    try:
        import _json

        scanner = _json.make_scanner(_ScanContext())
        encoder = _json.make_encoder(
            {}, _not_serialisable, _json.encode_basestring_ascii, None, ":", ",",
            False, False, True,
        )  # fmt: skip
        encoder({"probe": [1, 2.5, "x", None]}, 0)
    except (ImportError, AttributeError, TypeError):
        import json

        return json.loads, lambda obj: json.dumps(obj, separators=(",", ":"))

    def loads(text: str):
        try:
            value, end = scanner(text, 0)
        except StopIteration:
            raise ValueError("not JSON") from None
        if end != len(text):
            raise ValueError("data after the JSON value")
        return value

    def dumps(obj) -> str:
        return "".join(encoder(obj, 0))

    return loads, dumps


_loads, _dumps = _codec()


def _write(out, message: dict) -> None:
    out.write(_dumps(message) + "\n")
    out.flush()


def serve(bot, inp, out) -> int:
    """Answer runner messages from `inp` on `out` until `end` or end of input; the exit code."""
    for line in inp:
        try:
            message = _loads(line.rstrip("\n"))
            kind = message["type"]
        except (ValueError, TypeError, KeyError):
            print(
                f"tradewinds sdk: unreadable message from the runner: {line[:200]!r}",
                file=sys.stderr,
            )
            return EXIT_PROTOCOL
        if kind == "start":
            info = {k: message.get(k) for k in INFO_KEYS}
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


def seed_random(line: str) -> None:
    """Seed `random` from a start message's `seed`, before the bot module is imported.

    So a bot that uses `random` (even at import time) makes the same choices
    when it is given the same match seed and the same views: `ladder replay`
    relies on it. Anything unreadable is left for `serve` to report.
    """
    try:
        message = _loads(line.rstrip("\n"))
    except ValueError:
        return
    if not isinstance(message, dict) or message.get("type") != "start":
        return
    seed = message.get("seed")
    if type(seed) is int:
        import random

        random.seed(seed)


def _lines(first: str, rest):
    """The first line, read before the bot loaded, then the rest of the input."""
    if first:
        yield first
    yield from rest


def set_rlimits(spec: str) -> None:
    """Cap this process and all it starts, before any bot code runs (`as=536870912,cpu=60`).

    The sandbox passes its limits this way rather than setting them before
    exec: that would force a full fork of the (large) runner for every bot.
    """
    import resource

    names = {
        "as": resource.RLIMIT_AS,
        "cpu": resource.RLIMIT_CPU,
        "nproc": resource.RLIMIT_NPROC,
        "nofile": resource.RLIMIT_NOFILE,
        "fsize": resource.RLIMIT_FSIZE,
        "core": resource.RLIMIT_CORE,
    }
    for item in spec.split(","):
        name, _, value = item.partition("=")
        if name not in names:
            raise ValueError(f"unknown limit {name!r}")
        resource.setrlimit(names[name], (int(value), int(value)))


def far_below_the_memory_limit() -> bool:
    """Whether this process uses under half its address-space limit: a MemoryError then
    came from one huge request or from something refused (executable memory for a ctypes
    callback), not from filling the limit."""
    import resource

    cap = resource.getrlimit(resource.RLIMIT_AS)[0]
    if cap == resource.RLIM_INFINITY:
        return False
    try:
        with open("/proc/self/status") as status:
            size = next(int(line.split()[1]) << 10 for line in status if line.startswith("VmSize"))
    except (OSError, StopIteration, ValueError):
        return False
    return size < cap // 2


def main(argv: list[str] | None = None) -> int:
    """Load the bot named on the command line and serve the protocol on stdin/stdout."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 3 and argv[0] == "--rlimits":
        try:
            set_rlimits(argv[1])
        except (ValueError, OSError) as exc:
            print(f"tradewinds sdk: bad --rlimits {argv[1]!r}: {exc}", file=sys.stderr)
            return EXIT_LOAD
        argv = argv[2:]
    if len(argv) != 1:
        print(
            "usage: python -m bots.sdk [--rlimits as=B,cpu=S,...] path/to/bot.py|dir|bot.zip",
            file=sys.stderr,
        )
        return EXIT_LOAD
    # Keep the real stdout for the protocol and send everything else a bot
    # prints (Python or C level) to stderr, where it cannot break the protocol.
    out = open(posix.dup(1), "w", encoding="utf-8")  # noqa: SIM115 - lives for the process
    posix.dup2(2, 1)
    sys.stdout = sys.stderr
    inp = sys.stdin
    first = inp.readline()  # the runner's start message comes first
    seed_random(first)
    try:
        bot = load_bot(argv[0])
    except LoadError as exc:
        print(f"tradewinds sdk: {exc}", file=sys.stderr)
        return EXIT_LOAD
    try:
        return serve(bot, _lines(first, inp), out)
    except MemoryError:
        if far_below_the_memory_limit():  # one request too big, or one the sandbox refuses
            print(_traceback(), file=sys.stderr)
            print(
                "tradewinds sdk: out of memory far below the address-space limit: one request"
                " larger than the limit, or memory the sandbox refuses (a ctypes callback needs"
                f" executable memory) {SEE_DOCS}",
                file=sys.stderr,
            )
        else:
            print("tradewinds sdk: out of memory (address-space limit)", file=sys.stderr)
        return EXIT_MEMORY
    except BrokenPipeError:
        return 1  # the runner hung up (it ended the match)
    except OSError as exc:
        print(_traceback(), file=sys.stderr)
        if exc.errno in (errno.EFBIG, errno.ENOSPC, errno.EDQUOT):
            return EXIT_FILE_LIMIT
        return 1
    except BaseException:
        print(_traceback(), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
