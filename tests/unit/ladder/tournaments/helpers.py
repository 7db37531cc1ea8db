"""Simulated matches for tournament tests: results from known strengths, no sandbox."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping

from ladder.tournaments import Match, Result

GAME_FOR_SIZE = {2: "caravelas", 3: "manila", 4: "manila", 5: "manila"}


def by_strength(
    strength: Mapping, noise: float = 0.0, faulty: Iterable = ()
) -> Callable[[list[Match]], Iterable[tuple[Match, Result]]]:
    """A `play_matches` for `tournament.play`: each seat performs its strength plus Gaussian
    noise drawn from the match's seed and rotation; higher ranks first (ties share).
    Entrants in `faulty` crash every match and rank below every ok seat."""
    faulty = set(faulty)

    def play_matches(batch: list[Match]) -> Iterable[tuple[Match, Result]]:
        for match in batch:
            rng = random.Random(match.seed * 7 + match.rotation)
            perf = [
                strength[e] + rng.gauss(0, noise) if noise else strength[e] for e in match.seats
            ]
            statuses = ["crash" if e in faulty else "ok" for e in match.seats]
            ok = [i for i, s in enumerate(statuses) if s == "ok"]
            ranks = [len(ok) + 1] * len(perf)
            for i in ok:
                ranks[i] = 1 + sum(perf[j] > perf[i] for j in ok)
            scores = tuple(
                0.0 if e in faulty else round(p, 3) for e, p in zip(match.seats, perf, strict=True)
            )
            yield match, Result(tuple(ranks), scores, tuple(statuses))

    return play_matches
