"""Hostile: forks sleeping children without end, then plays on (expect: few forks, all gone)."""

import os
import sys
import time


def act(view, legal):
    born = 0
    for _ in range(1000):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        born += 1
    print(f"FORKED {born}", file=sys.stderr, flush=True)
    return legal[0]
