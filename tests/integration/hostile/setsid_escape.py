"""Hostile: burns the CPU its opponents think on, from processes that leave its process group.

In setup() it starts busy children that `setsid()` (a little later, once the
runner may have looked for them), and re-forkers: processes that fork every
few milliseconds, the child taking a new session and the parent exiting, so
no pid the runner noted stays the one that runs. Its own moves are instant.

Every escaper adds the time it actually runs to a counter in memory shared
with the bot (gaps over a millisecond between two clock readings are time it
was stopped or descheduled, and are not counted). At each move the bot
reports `STOLEN ms moves`: how long its escapers ran between the end of one of
its moves and the start of the next, that is, while the runner caught up and
while the opponents moved. A host busy with other work only lowers that
figure; pausing that works leaves only the runner's catching up in it.
"""

import contextlib
import mmap
import os
import struct
import sys
import time

SPINNERS = 3
REFORKERS = 2
REFORK_S = 0.003
SLOTS = SPINNERS + REFORKERS
shared = mmap.mmap(-1, 8 * SLOTS)  # anonymous and shared: every escaper writes its slot
ran_at_last_move = 0.0
stolen = 0.0
moves = 0


class Runner:
    """The running time of one escaper slot, kept across its forks."""

    def __init__(self, slot):
        self.slot = slot
        self.total = 0.0
        self.last = time.monotonic()

    def spin(self, seconds):
        end = self.last + seconds
        while True:
            now = time.monotonic()
            if now - self.last < 0.001:
                self.total += now - self.last
                struct.pack_into("d", shared, 8 * self.slot, self.total)
            self.last = now
            if now >= end:
                return


def spinner(slot):
    runner = Runner(slot)
    runner.spin(0.05)  # leave the group only after the runner's first look
    os.setsid()
    while True:
        runner.spin(1)


def reforker(slot):
    runner = Runner(slot)
    while True:
        # Out of processes for a moment (or already a session leader): spin on as we are.
        with contextlib.suppress(OSError):
            if os.fork() != 0:
                os._exit(0)  # the parent goes; its child carries on as a new pid
        with contextlib.suppress(OSError):
            os.setsid()
        runner.spin(REFORK_S)


def ran() -> float:
    return sum(struct.unpack_from(f"{SLOTS}d", shared))


def setup(info):
    global ran_at_last_move
    bodies = [spinner] * SPINNERS + [reforker] * REFORKERS
    for slot, body in enumerate(bodies):
        if os.fork() == 0:
            try:
                body(slot)
            finally:
                os._exit(0)
    ran_at_last_move = ran()


def act(view, legal):
    global ran_at_last_move, stolen, moves
    stolen += ran() - ran_at_last_move
    moves += 1
    print(f"STOLEN {stolen * 1000:.1f} {moves}", file=sys.stderr)
    sys.stderr.flush()
    ran_at_last_move = ran()
    return legal[0]
