"""Hostile: valid JSON that is not an action (expect: invalid)."""


def act(view, legal):
    return [legal[0], "and more"]
