"""Hostile: starts detached background processes meant to outlive the match (expect: all gone)."""

import os
import subprocess
import sys

MARKER = "@@MARKER@@"
started = False


def act(view, legal):
    global started
    if not started:
        started = True
        # One in a new session (escapes the process group), one double-forked orphan.
        subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(600)", MARKER],
            start_new_session=True,
        )
        if os.fork() == 0:
            if os.fork() == 0:
                os.execv(sys.executable, [sys.executable, "-c", "while True: pass", MARKER])
            os._exit(0)
    return legal[0]
