"""Reports its /proc/self/mountinfo whole: the host's folder names must not show in it."""

import sys


def setup(info):
    with open("/proc/self/mountinfo") as handle:
        text = handle.read()
    print(f"MOUNTINFO BEGIN\n{text}MOUNTINFO END", file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]
