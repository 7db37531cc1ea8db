"""Meuterer's end-of-round arithmetic as pure functions of plain data.

Kept apart from the state machine so each scoring case can be checked from a
table without playing a round to reach it.
"""

from __future__ import annotations

from engine.meuterer.data import (
    BOATSWAIN_BONUS,
    BOATSWAIN_STRENGTH,
    CABIN_BOY_POINTS,
    ISLANDS,
)


def seat_of(characters: list[str | None], name: str) -> int | None:
    """The seat holding character `name`, or None when nobody took it."""
    return characters.index(name) if name in characters else None


def mutiny_strengths(
    captain: int, characters: list[str | None], conflicts: list[int]
) -> tuple[int, int]:
    """(captain's side, mutineer's side) strength from each seat's conflict cards.

    `conflicts[seat]` counts that seat's face-up conflicts (offer + mutiny).
    Merchant and stevedore take no part; the boatswain adds 1 to the captain.
    """
    # `seat_of` written out here and below: a playout scores every round.
    captain_side = conflicts[captain]
    if "boatswain" in characters:
        captain_side += conflicts[characters.index("boatswain")] + BOATSWAIN_STRENGTH
    mutineer_side = conflicts[characters.index("mutineer")] if "mutineer" in characters else 0
    if "cabin_boy" in characters:
        mutineer_side += conflicts[characters.index("cabin_boy")]
    return captain_side, mutineer_side


def mutiny_succeeds(captain_side: int, mutineer_side: int) -> bool:
    """Higher strength wins; a tie goes to the mutineer."""
    return mutineer_side >= captain_side


def role_scores(
    captain: int,
    characters: list[str | None],
    pay: int | None,
    captain_destination: int | None,
    mutineer_destination: int | None,
    mutiny_won: bool,
) -> list[int]:
    """Points each seat earns for its role this round (the captain may go negative).

    The destination of the side that won, and the pay when a boatswain is paid, are set.
    """
    scores = [0] * len(characters)
    if mutiny_won:
        assert mutineer_destination is not None  # he won: he has one
        scores[characters.index("mutineer")] += ISLANDS[mutineer_destination].navigation
        if "cabin_boy" in characters:
            scores[characters.index("cabin_boy")] += CABIN_BOY_POINTS
        return scores
    assert captain_destination is not None  # he set it when he passed
    scores[captain] += ISLANDS[captain_destination].navigation
    if "boatswain" in characters:
        assert pay is not None  # he promised before the offer began
        scores[captain] -= pay
        scores[characters.index("boatswain")] += pay + BOATSWAIN_BONUS
    return scores


def sale_scores(island: int, counts: list[int], merchant: int | None) -> list[int]:
    """Points each seat earns for its goods at one island.

    `counts[seat]` is how many accepted cards the seat placed there. The
    leaders score the sole value, or the tie value for their number; a
    merchant among tied leaders scores the full sole value.
    """
    scores = [0] * len(counts)
    for seat, points in sale_awards(island, counts, merchant):
        scores[seat] = points
    return scores


def sale_awards(island: int, counts: list[int], merchant: int | None) -> list[tuple[int, int]]:
    """`sale_scores` as (seat, points) in seat order, seats that score nothing left out.

    What the state adds up at the end of a round: only the leaders score.
    """
    best = max(counts)
    if best == 0:
        return []
    leaders = counts.count(best)
    sole, two, more = ISLANDS[island].sale
    share = sole if leaders == 1 else two if leaders == 2 else more
    awards = []
    seat = -1
    for _ in range(leaders):
        seat = counts.index(best, seat + 1)
        points = sole if seat == merchant else share
        if points:
            awards.append((seat, points))
    return awards
