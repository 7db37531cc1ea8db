"""Hostile: never answers, without using CPU (expect: timeout)."""

import time


def act(view, legal):
    time.sleep(10**6)
