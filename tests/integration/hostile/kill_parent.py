"""Hostile: tries to kill its parent, every process it can see, and the runner (expect: ok).

Inside the sandbox's pid namespace the parent is the namespace's init, which
ignores such signals; the runner's pid is not visible at all.
"""

import os
import signal
import sys

RUNNER_PID = int("@@RUNNER_PID@@")


def act(view, legal):
    for target in (os.getppid(), 1, RUNNER_PID):
        try:
            os.kill(target, signal.SIGKILL)
            print(f"SIGNALLED {target}", file=sys.stderr, flush=True)
        except OSError as exc:
            print(f"REFUSED {target}: {exc}", file=sys.stderr, flush=True)
    return legal[0]
