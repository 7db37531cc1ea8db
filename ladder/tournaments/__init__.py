"""Tournaments, pure: schedules and standings for round robin, Swiss and elimination.

No Flask, no database, no I/O: the service stores the settings, matches and
results as rows and calls these; `ladder tournament run` keeps them in memory
and plays the matches through `workers` (`local`, the one module here that
plays anything).

- `tournament`: `Tournament`, the settings and the doors: `schedule`,
  `pending`, `finished`, `standings`, `bracket`; `play` drives one to the end;
- `model`: the plain data (`Entrant`, `Match`, `Table`, `Round`, `Result`) and
  how seeds are derived;
- `roundrobin`, `swiss`, `elimination`: who meets whom, per format;
- `seating`: seat balance and the rotations of a duplicate set;
- `scoring`, `standings`: points per rank, tie-breaks, the standings table;
- `rules`: all of the above in words, for the tournament pages and `--help`.
"""

from ladder.tournaments.model import (
    FORMATS,
    Entrant,
    Match,
    MatchKey,
    Result,
    Round,
    Table,
    derive_seed,
)
from ladder.tournaments.scoring import default_scoring
from ladder.tournaments.standings import Standing
from ladder.tournaments.tournament import Tournament, play

__all__ = [
    "FORMATS",
    "Entrant",
    "Match",
    "MatchKey",
    "Result",
    "Round",
    "Standing",
    "Table",
    "Tournament",
    "default_scoring",
    "derive_seed",
    "play",
]
