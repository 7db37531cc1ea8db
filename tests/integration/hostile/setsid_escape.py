"""Hostile: burns the CPU its opponents think on, from processes that leave its process group.

In setup() it starts busy children that `setsid()` (a little later, once the
runner may have looked for them), and re-forkers: processes that fork every
few milliseconds, the child taking a new session and the parent exiting, so
no pid the runner noted stays the one that runs. Its own moves are instant.
"""

import contextlib
import os
import time

SPINNERS = 3
REFORKERS = 2
REFORK_S = 0.003


def spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def spinner():
    spin(0.05)  # leave the group only after the runner's first look
    os.setsid()
    while True:
        spin(1)


def reforker():
    while True:
        # Out of processes for a moment (or already a session leader): spin on as we are.
        with contextlib.suppress(OSError):
            if os.fork() != 0:
                os._exit(0)  # the parent goes; its child carries on as a new pid
        with contextlib.suppress(OSError):
            os.setsid()
        spin(REFORK_S)


def setup(info):
    for body in [spinner] * SPINNERS + [reforker] * REFORKERS:
        if os.fork() == 0:
            try:
                body()
            finally:
                os._exit(0)


def act(view, legal):
    return legal[0]
