"""Hostile: goes for the zygote that forked it, pid 1 of its sandbox (expect: nothing works).

It signals it, reads its memory and /proc files, and tries to trace it. If any
of this worked it could tamper with the bots the zygote forks in later matches.
"""

import ctypes
import os
import signal
import sys

PTRACE_ATTACH = 16


def say(text):
    print(text, file=sys.stderr, flush=True)


def setup(info):
    for signo in (signal.SIGKILL, signal.SIGSTOP, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        try:
            os.kill(1, signo)
            say(f"SENT {signo.name}")
        except OSError as exc:
            say(f"REFUSED {signo.name}: {exc}")
    for name in ("mem", "environ", "maps"):
        try:
            with open(f"/proc/1/{name}", "rb") as handle:
                data = handle.read(64)
            say(f"READ {name} {len(data)}" if data else f"EMPTY {name}")
        except OSError as exc:
            say(f"DENIED {name}: {exc.strerror}")
    try:
        os.listdir("/proc/1/fd")
        say("READ fd")
    except OSError as exc:
        say(f"DENIED fd: {exc.strerror}")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.ptrace(PTRACE_ATTACH, 1, None, None) == 0:
        say("TRACED 1")
    else:
        say(f"DENIED ptrace: {os.strerror(ctypes.get_errno())}")


def act(view, legal):
    return legal[0]
