"""Hostile: burns CPU off its move, in a thread and in a child that left the process group."""

import os
import threading


def _spin():
    while True:
        pass


def setup(info):
    threading.Thread(target=_spin, daemon=True).start()
    if os.fork() == 0:
        os.setsid()
        _spin()


def act(view, legal):
    return legal[0]
