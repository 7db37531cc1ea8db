"""Hostile: leaves up to 600,000 empty directories in /tmp for whoever gets the slot next.

It just tries: a cap on inodes (or on memory) may stop it early, which it takes
in its stride, then plays on normally. Emptying /tmp after it must not cost
the next match in this sandbox its start.
"""

import os
import sys

COUNT = 600_000


def setup(info):
    made = 0
    try:
        os.mkdir("/tmp/flood")
        for i in range(COUNT):
            os.mkdir(f"/tmp/flood/{i}")
            made += 1
    except OSError as exc:
        print(f"STOPPED after {made}: {exc}", file=sys.stderr)
    print(f"MADE {made}", file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]
