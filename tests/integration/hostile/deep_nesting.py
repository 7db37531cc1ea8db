"""Hostile: a reply nested thousands of levels deep (expect: invalid, the match goes on).

Decoding `[[[[...]]]]` recursively blows the decoder's stack: the runner must
treat that like any other unreadable reply, as this bot's fault. WHEN says
where the deep line goes: `setup` (as the `ready` reply) or `act` (as the action).
"""

import contextlib
import os
import time

WHEN = "@@WHEN@@"
DEPTH = 5000


def protocol_fd():
    """The SDK's copy of the original stdout: the one pipe that is not fd 0, 1 or 2."""
    known = set()
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            known.add(os.readlink(f"/proc/self/fd/{fd}"))
    for name in sorted(os.listdir("/proc/self/fd"), key=int):
        fd = int(name)
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if fd > 2 and link not in known and link.startswith(("pipe:", "socket:")):
            return fd
    return 3  # where today's SDK puts it


def send_deep(prefix: bytes, suffix: bytes) -> None:
    # Built by hand: json.dumps itself refuses to encode this deep a value.
    line = prefix + b"[" * DEPTH + b"]" * DEPTH + suffix + b"\n"
    os.write(protocol_fd(), line)
    time.sleep(10)  # no second reply: the runner must judge this one


def setup(info):
    if WHEN == "setup":
        send_deep(b'{"type":"ready","deep":', b"}")


def act(view, legal):
    if WHEN == "act":
        send_deep(b'{"type":"action","action":{"a":', b"}}")
    return legal[0]
