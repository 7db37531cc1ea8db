"""Hostile: plays well for a while, then answers an illegal action (expect: illegal, late)."""

moves = 0


def act(view, legal):
    global moves
    moves += 1
    if moves > 5:
        return {"late": "surprise"}
    return legal[0]
