"""Hostile: floods stderr, and prints (which the SDK sends to stderr) (expect: killed)."""

import sys


def act(view, legal):
    line = "y" * 1000
    while True:
        print(line)
        sys.stderr.write(line)
