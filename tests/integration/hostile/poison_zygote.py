"""Hostile: changes the zygote (pid 1 of its sandbox) so later bots in the slot inherit it.

Each attempt is reported on stderr (`POISONED what` or `REFUSED what: why`).
If any sticks, the next bot forked in this sandbox starts with 32 open files,
a small stack, nice 19 or the idle scheduler (or, for the file limit, fails to
start at all, as its SDK cannot raise the limit back to the match's own).
"""

import os
import resource
import sys

STACK = 1 << 20  # 1 MiB, far below any default


def attempt(what, call):
    try:
        call()
        print(f"POISONED {what}", file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError) as exc:
        print(f"REFUSED {what}: {exc}", file=sys.stderr, flush=True)


def setup(info):
    attempt("nofile", lambda: resource.prlimit(1, resource.RLIMIT_NOFILE, (32, 32)))
    attempt("stack", lambda: resource.prlimit(1, resource.RLIMIT_STACK, (STACK, STACK)))
    attempt("nice", lambda: os.setpriority(os.PRIO_PROCESS, 1, 19))
    attempt("idle", lambda: os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0)))


def act(view, legal):
    return legal[0]
