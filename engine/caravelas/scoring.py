"""Caravelas' end-of-game arithmetic (rule 11) as pure functions of plain data.

Points won in play (discoveries, deliveries) are added by the state as they
happen; this module holds the final adjustments and the tie-breaks.
"""

from __future__ import annotations

from engine.caravelas import data


def final_scores(
    score: list[int], secret: list[list[str]], pos: list[str], cargo: list[list[str]]
) -> list[int]:
    """Rule 11: +2 per cube carried away from Lisboa, -2 per card not discovered."""
    scores = []
    for seat, points in enumerate(score):
        s = points - 2 * len(secret[seat])
        if pos[seat] != data.LISBOA_ID:
            s += 2 * len(cargo[seat])
        scores.append(s)
    return scores


def rank_keys(scores: list[int], found: list[list[str]]) -> list[tuple[int, int, int]]:
    """Rule 11: ties go to most discoveries, then most green ones."""
    return [
        (
            scores[s],
            len(found[s]),
            sum(data.DISCOVERIES[p][0] == data.GREEN for p in found[s]),
        )
        for s in range(len(scores))
    ]
