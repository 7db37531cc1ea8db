"""Hostile: holds 928 MiB in memfds, which the address-space limit does not count.

The file-size limit (16 MiB) applies to each memfd, so it takes 58 of them,
each written 1 MiB at a time to 16 MiB, every descriptor kept open. Reports
`HELD n MiB` after each memfd, `REFUSED at n MiB: why` when a call fails
(expect: killed for memory long before 928 MiB).
"""

import os
import sys

TOTAL_MB = 928
PER_FD_MB = 16  # at most the file-size limit


def setup(info):
    chunk = b"\xa5" * (1 << 20)
    held, fds = 0, []
    try:
        while held < TOTAL_MB:
            fd = os.memfd_create(f"hog{len(fds)}")
            fds.append(fd)
            for _ in range(PER_FD_MB):
                os.write(fd, chunk)
                held += 1
            print(f"HELD {held} MiB", file=sys.stderr, flush=True)
    except OSError as exc:
        print(f"REFUSED at {held} MiB: {exc}", file=sys.stderr, flush=True)
    globals()["kept"] = fds  # never closed while the bot lives


def act(view, legal):
    return legal[0]
