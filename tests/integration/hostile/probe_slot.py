"""Reports what it inherited from its slot, one `PROBE name value` line each on stderr.

Its own rlimits, nice value and scheduling policy; the SysV IPC objects it can
see; whether the user keyring holds the key a bot of an earlier match left there.
"""

import ctypes
import json
import os
import resource
import sys

SYS_KEYCTL = 250  # x86_64
KEYCTL_SEARCH = 10
KEY_SPEC_USER_KEYRING = -4
KEY_DESCRIPTION = b"tradewinds-leftover"


def say(name, value):
    print(f"PROBE {name} {json.dumps(value)}", file=sys.stderr, flush=True)


def ipc_entries(kind):
    """Lines of /proc/sysvipc/<kind> beyond its header, "hidden" where the sandbox covers
    /proc's machine-wide tables (or why it cannot be read)."""
    try:
        with open(f"/proc/sysvipc/{kind}") as handle:
            return [line.strip() for line in handle.readlines()[1:] if line.strip()]
    except FileNotFoundError:
        return "hidden"
    except OSError as exc:
        return f"unreadable: {exc}"


def keyring_search():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    found = libc.syscall(
        SYS_KEYCTL,
        ctypes.c_long(KEYCTL_SEARCH),
        ctypes.c_long(KEY_SPEC_USER_KEYRING),
        ctypes.c_char_p(b"user"),
        ctypes.c_char_p(KEY_DESCRIPTION),
        ctypes.c_long(0),
    )
    if found == -1:
        return f"error: {os.strerror(ctypes.get_errno())}"
    return f"found {found}"


def setup(info):
    say("nofile", resource.getrlimit(resource.RLIMIT_NOFILE))
    say("stack", resource.getrlimit(resource.RLIMIT_STACK))
    say("nice", os.getpriority(os.PRIO_PROCESS, 0))
    say("policy", os.sched_getscheduler(0))
    for kind in ("shm", "msg", "sem"):
        say(kind, ipc_entries(kind))
    say("key", keyring_search())


def act(view, legal):
    return legal[0]
