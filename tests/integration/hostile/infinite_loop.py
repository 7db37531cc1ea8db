"""Hostile: spins the CPU forever on its first move (expect: timeout)."""


def act(view, legal):
    while True:
        pass
