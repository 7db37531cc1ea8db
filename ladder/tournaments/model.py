"""The plain data of a tournament: entrants, matches, tables, rounds, results, seeds.

Entrants are opaque hashable ids (bot version ids on the service, labels on the
command line). Rounds, tables and matches are numbered from 1 in the order the
schedule gives them; a table is a set of matches (one, or one per seat rotation),
and a match's key `(round, table, rotation)` is how results are handed back.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Hashable
from dataclasses import dataclass

from workers.contract import Outcome, SeatStatus

FORMATS = ("round-robin", "swiss", "elimination")

MatchKey = tuple[int, int, int]
"""(round, table, rotation): rounds and tables count from 1, rotations from 0."""


def derive_seed(*parts: object) -> int:
    """A seed in 0 .. 2**31 - 1 from its parts (the base seed, a purpose, numbers).

    A hash, so that seeds are stable across Python versions and platforms and
    nearby inputs give unrelated seeds.
    """
    text = "\x1f".join(str(part) for part in parts)
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % 2**31


@dataclass(frozen=True)
class Entrant:
    """One entrant: an opaque id and, when it has a ladder rating, its μ and σ."""

    id: Hashable
    mu: float | None = None
    sigma: float | None = None

    def __post_init__(self) -> None:
        if (self.mu is None) != (self.sigma is None):
            raise ValueError(f"entrant {self.id!r}: give both μ and σ, or neither")
        if (
            self.mu is not None
            and self.sigma is not None
            and not (math.isfinite(self.mu) and math.isfinite(self.sigma))
        ):
            raise ValueError(f"entrant {self.id!r}: μ and σ must be finite")
        if self.sigma is not None and self.sigma < 0:
            raise ValueError(f"entrant {self.id!r}: σ must not be negative")

    @property
    def skill(self) -> float | None:
        """The ladder's shown skill μ − 3σ, or None for an unrated entrant."""
        return None if self.mu is None or self.sigma is None else self.mu - 3 * self.sigma


@dataclass(frozen=True)
class Match:
    """One match: its place in the schedule, its seed and the entrant in each seat."""

    round: int
    table: int
    rotation: int
    seed: int
    seats: tuple[Hashable, ...]

    @property
    def key(self) -> MatchKey:
        return (self.round, self.table, self.rotation)

    def to_dict(self) -> dict:
        return {
            "round": self.round,
            "table": self.table,
            "rotation": self.rotation,
            "seed": self.seed,
            "seats": list(self.seats),
        }


@dataclass(frozen=True)
class Table:
    """Entrants at one table of a round (in the seats of its first match) and its matches.

    Match i of a table seats the entrants rotated by i (seat s holds `entrants[(s + i) % n]`);
    with duplicate sets every match of the table has the same seed.
    """

    round: int
    number: int
    entrants: tuple[Hashable, ...]
    matches: tuple[Match, ...]

    def to_dict(self) -> dict:
        return {
            "round": self.round,
            "table": self.number,
            "entrants": list(self.entrants),
            "matches": [match.to_dict() for match in self.matches],
        }


@dataclass(frozen=True)
class Round:
    """One round: its tables and the entrants who sit it out.

    In Swiss a bye scores points (see `Tournament.bye_points`); in round robin
    a sitting-out entrant simply plays its share in other rounds; in elimination
    a bye advances the entrant without a match.
    """

    number: int
    tables: tuple[Table, ...]
    byes: tuple[Hashable, ...] = ()

    @property
    def matches(self) -> tuple[Match, ...]:
        return tuple(match for table in self.tables for match in table.matches)

    def to_dict(self) -> dict:
        return {
            "round": self.number,
            "tables": [table.to_dict() for table in self.tables],
            "byes": list(self.byes),
        }


@dataclass(frozen=True)
class Result:
    """What a match gave each seat: 1-based ranks (ties share), game scores and statuses.

    Ranks are the ladder's: a faulted seat already ranks below every `ok` seat.
    """

    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    statuses: tuple[SeatStatus, ...] = ()  # empty (or None): every seat ok

    def __post_init__(self) -> None:
        object.__setattr__(self, "ranks", tuple(self.ranks))
        object.__setattr__(self, "scores", tuple(self.scores))
        given = self.statuses or (SeatStatus.OK,) * len(self.ranks)
        statuses = tuple(SeatStatus(status) for status in given)
        object.__setattr__(self, "statuses", statuses)
        n = len(self.ranks)
        if n < 1 or len(self.scores) != n or len(statuses) != n:
            raise ValueError(f"a result needs one rank, score and status per seat, not {self}")
        for rank in self.ranks:
            if isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= n:
                raise ValueError(f"ranks are integers from 1 to {n}, not {rank!r}")

    @classmethod
    def from_outcome(cls, outcome: Outcome) -> Result:
        """The result of a `workers.run_match` outcome."""
        return cls(outcome.ranks, outcome.scores, outcome.statuses)

    @property
    def faulted(self) -> tuple[bool, ...]:
        return tuple(status.faulted for status in self.statuses)
