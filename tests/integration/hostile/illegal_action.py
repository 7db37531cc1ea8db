"""Hostile: an action that is not one of the legal ones (expect: illegal)."""


def act(view, legal):
    return {"type": "take_everything", "amount": 10**9}
