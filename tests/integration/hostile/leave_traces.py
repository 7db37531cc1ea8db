"""Hostile: leaves files, a locked folder and a detached process behind for the next bot."""

import os
import random
import subprocess
import sys

MARKER = "@@MARKER@@"


def setup(info):
    with open("/tmp/leftover.txt", "w") as handle:
        handle.write("for the next bot")
    os.mkdir("/tmp/locked")
    with open("/tmp/locked/inside", "w") as handle:
        handle.write("hidden")
    os.chmod("/tmp/locked", 0)
    subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)", MARKER], start_new_session=True
    )
    print(f"RANDOM {random.random()}", file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]
