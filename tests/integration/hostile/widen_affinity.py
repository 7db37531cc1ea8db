"""Hostile: widens its CPU affinity to every CPU of the machine, then computes on several.

It reports what it then has (`AFFINITY [cpus]`) from setup and from its first
move; two busy children compute beside it.
"""

import os
import sys

reported = False


def report(where):
    print(f"AFFINITY {where} {sorted(os.sched_getaffinity(0))}", file=sys.stderr, flush=True)


def setup(info):
    try:
        os.sched_setaffinity(0, range(os.cpu_count()))
        print("WIDENED", file=sys.stderr)
    except OSError as exc:
        print(f"REFUSED {exc}", file=sys.stderr)
    for _ in range(2):
        try:
            if os.fork() == 0:
                while True:
                    pass
        except OSError as exc:
            print(f"NOFORK {exc}", file=sys.stderr)
    report("setup")


def act(view, legal):
    global reported
    if not reported:
        reported = True
        report("act")
    return legal[0]
