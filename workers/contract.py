"""The contract between the ladder and the match runner: a job in, an outcome out.

`Job` is what a match needs (the game, the seed, the options and each seat's
bot), `Outcome` what it gave (every seat's status, score, rank, error and
stderr, with the replay). Both are frozen and checked when built, so a job the
runner cannot play or an outcome the ladder cannot record is refused where it
is made, with a message that says why. `SeatStatus` is the one list of the
statuses a seat can end with; a StrEnum, so a status is still the plain
string the replays, the JSON and the database hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any


class SeatStatus(StrEnum):
    """How a seat ended its match (ARCHITECTURE.md, "Match outcome")."""

    OK = "ok"
    TIMEOUT = "timeout"  # no move (or no `ready`) in time, or its time bank ran out
    CRASH = "crash"  # exited, raised, or could not be started
    INVALID = "invalid"  # unparsable or off-protocol output
    ILLEGAL = "illegal"  # an action not among the legal ones
    KILLED = "killed"  # past a memory, CPU, file size or stderr limit

    @property
    def faulted(self) -> bool:
        return self is not SeatStatus.OK


class BadBotFile(ValueError):
    """A bot's file cannot be staged for a sandbox (a bad zip, no `bot.py`, damaged bytes):
    the fault of the upload, not of the ladder."""


class BadJob(ValueError):
    """A job the runner cannot play as given (seats missing or doubled, no file for one)."""


class BadOutcome(ValueError):
    """An outcome that does not hold together (a list too short, an unknown status, ...)."""


KINDS = ("py", "zip")  # what a stored bot file is


@dataclass(frozen=True, slots=True)
class JobSeat:
    """One seat of a job: the label it plays under in the replay, who it is, and its code.

    The code is a `path` on this host (a house bot, a local file) or, for a bot
    the ladder stores, its artifact `key` with its `sha256` and `kind`, which
    the worker turns into a path (`located`) before the match is played.
    `name`, `owner` and `version` are what every bot sees of this seat in
    `setup(info)["seats"]`; `version_id` is the ladder's row, for its own use.
    """

    seat: int
    label: str
    name: str | None = None
    owner: str | None = None
    version: int | None = None
    path: Path | None = None
    key: str | None = None
    sha256: str | None = None
    kind: str | None = None
    version_id: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.seat, bool) or not isinstance(self.seat, int) or self.seat < 0:
            raise BadJob(f"a seat number is an integer from 0, not {self.seat!r}")
        if not isinstance(self.label, str) or not self.label:
            raise BadJob(f"seat {self.seat}'s label is a non-empty string, not {self.label!r}")
        if self.path is not None and not isinstance(self.path, Path):
            object.__setattr__(self, "path", Path(self.path))
        if self.key is not None and (not self.sha256 or self.kind not in KINDS):
            raise BadJob(f"seat {self.seat}'s stored bot needs its sha256 and a kind in {KINDS}")
        if self.path is None and self.key is None:
            raise BadJob(f"seat {self.seat} has neither a path nor a stored bot's key")

    @property
    def stored(self) -> bool:
        """Whether the code is a stored artifact (fetched by key) rather than a file here."""
        return self.key is not None

    def located(self, path: Path | str) -> JobSeat:
        """This seat with its code at `path` on this host."""
        return replace(self, path=Path(path))


@dataclass(frozen=True, slots=True)
class Job:
    """A match to play: `game`, `seed`, `options` and the seats, held in seat order.

    `match_id` and `ranked` are the ladder's (None and False for validation).
    """

    game: str
    seed: int
    seats: tuple[JobSeat, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    match_id: int | None = None
    ranked: bool = False

    def __post_init__(self) -> None:
        seats = tuple(sorted(self.seats, key=lambda s: s.seat))
        numbers = [s.seat for s in seats]
        if numbers != list(range(len(seats))):
            raise BadJob(f"job seats must be 0..{len(seats) - 1}, not {numbers}")
        object.__setattr__(self, "seats", seats)
        object.__setattr__(self, "options", dict(self.options or {}))
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise BadJob(f"a job's seed is an integer, not {self.seed!r}")

    @property
    def players(self) -> int:
        return len(self.seats)

    def with_seats(self, seats: Sequence[JobSeat]) -> Job:
        """The same match with these seats (say, each located on this host)."""
        return replace(self, seats=tuple(seats))


# Keys an outcome must have; the others default (errors and stderr: None per seat).
REQUIRED = ("game", "seed", "players", "statuses", "scores", "ranks", "replay")
PER_SEAT = ("statuses", "scores", "ranks", "errors", "stderr")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a match gave, per seat in seat order, and its replay record.

    Ranks are after the fault rule: every faulted seat ranks below every `ok`
    seat. `rated` is False (with `unrated_reason`) for a match whose result
    should move no rating (every seat faulted at once, say). The `replay` is
    the record as the runner made it, JSON-able, and is not copied.
    """

    game: str
    seed: int
    players: int
    options: Mapping[str, Any]
    statuses: tuple[SeatStatus, ...]
    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    errors: tuple[str | None, ...]
    stderr: tuple[str | None, ...]
    replay: dict[str, Any]
    rated: bool = True
    unrated_reason: str | None = None

    def __post_init__(self) -> None:
        n = self.players
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise BadOutcome(f"the outcome's 'players' is a positive integer, not {n!r}")
        for key in PER_SEAT:
            value = getattr(self, key)
            if not isinstance(value, list | tuple) or len(value) != n:
                raise BadOutcome(f"the outcome has {n} players; its {key!r} is not a list of {n}")
            object.__setattr__(self, key, tuple(value))
        object.__setattr__(self, "statuses", tuple(_status(s) for s in self.statuses))
        self._check_ranks()
        if not isinstance(self.game, str):
            raise BadOutcome(f"the outcome's 'game' is a string, not {self.game!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise BadOutcome(f"the outcome's 'seed' is an integer, not {self.seed!r}")
        if not isinstance(self.options, Mapping):
            raise BadOutcome("the outcome's 'options' is not a dict")
        object.__setattr__(self, "options", dict(self.options))
        for key in ("errors", "stderr"):
            if any(v is not None and not isinstance(v, str) for v in getattr(self, key)):
                raise BadOutcome(f"the outcome's {key!r} holds something not a string")
        if not isinstance(self.replay, Mapping):
            raise BadOutcome("the outcome's replay is not a dict")
        if not isinstance(self.rated, bool):
            raise BadOutcome("the outcome's 'rated' is not a bool")
        if self.unrated_reason is not None and not isinstance(self.unrated_reason, str):
            raise BadOutcome("the outcome's 'unrated_reason' is not a string")

    def _check_ranks(self) -> None:
        n = self.players
        if any(
            isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= n for r in self.ranks
        ):
            raise BadOutcome(f"ranks are integers from 1 to {n}")
        ok = [r for r, s in zip(self.ranks, self.statuses, strict=True) if not s.faulted]
        faulted = [r for r, s in zip(self.ranks, self.statuses, strict=True) if s.faulted]
        if ok and faulted and max(ok) >= min(faulted):
            raise BadOutcome("every faulted seat must rank below every ok seat")

    @property
    def labels(self) -> tuple[str, ...]:
        """Each seat's label, as the replay records it."""
        return tuple(self.replay.get("seats") or ())

    def to_dict(self) -> dict[str, Any]:
        """The outcome as the plain dict the runner has always given (lists, strings)."""
        return {
            "rated": self.rated,
            "unrated_reason": self.unrated_reason,
            "game": self.game,
            "seed": self.seed,
            "players": self.players,
            "options": dict(self.options),
            "statuses": [status.value for status in self.statuses],
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "errors": list(self.errors),
            "stderr": list(self.stderr),
            "replay": self.replay,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        """An outcome from its dict form (`to_dict`); BadOutcome says what does not fit."""
        if not isinstance(data, Mapping):
            raise BadOutcome("an outcome is a dict")
        for key in REQUIRED:
            if key not in data:
                raise BadOutcome(f"the outcome has no {key!r}")
        players = data["players"]
        blank = [None] * players if isinstance(players, int) and players > 0 else []
        return cls(
            game=data["game"],
            seed=data["seed"],
            players=players,
            options=data.get("options") or {},
            statuses=data["statuses"],
            scores=data["scores"],
            ranks=data["ranks"],
            errors=data.get("errors", blank),
            stderr=data.get("stderr", blank),
            replay=data["replay"],
            rated=data.get("rated", True),
            unrated_reason=data.get("unrated_reason"),
        )


def _status(value: Any) -> SeatStatus:
    try:
        return SeatStatus(value)
    except ValueError:
        raise BadOutcome(f"unknown seat status {value!r}") from None
