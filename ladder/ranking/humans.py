"""TrueSkill for people at live tables: their own pool, bots held fixed.

A live table seats people and bots. People are rated in a pool of their own
(`human_ratings`); bots keep their ladder ratings, which a table never moves.
So a table is rated as one free-for-all of every seat, with each bot's current
ladder rating standing in as a known opponent, and only the people's new
ratings are kept: the bots' come back from the update unchanged. Two people at
one table rate each other as any two seats do. Pure functions, no database.
"""

from __future__ import annotations

from collections.abc import Collection

from ladder.ranking.ratings import OPEN_PLAY_TAU, Skill, rate


def rate_people(
    skills: list[Skill], ranks: list[int], people: Collection[int], tau: float = OPEN_PLAY_TAU
) -> list[Skill]:
    """New skills after a table with 1-based `ranks`: the seats in `people` updated as
    in a free-for-all of every seat, every other seat (a bot) returned as given."""
    if not people:
        return list(skills)
    for seat in people:
        if not 0 <= seat < len(skills):
            raise ValueError(f"seat {seat} is not one of the {len(skills)} seats")
    after = rate(skills, ranks, tau=tau)
    return [after[i] if i in people else skills[i] for i in range(len(skills))]
