"""Hostile: hangs in setup() far beyond init_ms (expect: this seat `timeout`, nobody else)."""

import time


def setup(info):
    time.sleep(30)


def act(view, legal):
    return legal[0]
