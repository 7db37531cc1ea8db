"""Hostile: plays two moves, then exits cleanly in the middle of the game (expect: crash)."""

import os

moves = 0


def act(view, legal):
    global moves
    moves += 1
    if moves > 2:
        os._exit(0)
    return legal[0]
