"""A tournament: its settings, its schedule round by round, its standings and bracket.

Everything is a pure function of the settings and the results handed in, so
the service (which stores the settings, the matches and their results as rows)
and `ladder tournament run` (which keeps them in memory) drive the same code:

    t = Tournament("manila", [7, 9, 12, 15], "swiss", table_size=4, seed=3)
    results = {}
    while not t.finished(results):
        for match in t.pending(results):        # the matches that can be played now
            results[match.key] = play(match)    # a Result per match
    t.standings(results)

`schedule(results)` gives every round that can be known: all of them for round
robin, and for Swiss and elimination each next round once every match before
it has a result. The same settings and results always give the same rounds,
tables, seats and seeds, so a service may rebuild them at any time; the order
of the entrants is part of the settings.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import engine
from ladder.tournaments import elimination, roundrobin, swiss
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
from ladder.tournaments.scoring import Points, check_scoring, default_scoring, mean_points
from ladder.tournaments.seating import rotations, seat_table
from ladder.tournaments.standings import (
    Played,
    Standing,
    Tally,
    coins,
    order,
    standings,
    tally,
)

DEFAULT_TABLE_SIZE = 4  # when the game allows it; else the nearest size it allows


def default_table_size(low: int, high: int, entrants: int) -> int:
    """Seats per table when none is given: DEFAULT_TABLE_SIZE, or the nearest size the
    game's player range (`low`..`high`) and the number of entrants allow."""
    return max(low, min(DEFAULT_TABLE_SIZE, high, entrants))


@dataclass(frozen=True)
class Tournament:
    """The settings of a tournament; entrants are opaque hashable ids or `Entrant`s.

    - `table_size`: seats per table (2..5, inside the game's range); by default 4,
      or the nearest size the game and the number of entrants allow.
    - `rounds`: round robin: tables each entrant plays (default: every pair can
      meet; see `roundrobin`); Swiss: rounds (default `swiss.default_rounds`);
      elimination: not a setting (the bracket decides).
    - `scoring`: points per rank at a table of `table_size` (default
      `scoring.default_scoring`; other sizes always use the default).
    - `duplicate`: each table is a set of one match per seat rotation, one seed.
    - `matches_per_table`: without `duplicate`, each table may still be a set of
      this many matches, seats rotated, each with its own seed (default 1).
    - `advance`: elimination: the top k of each table advance (default half the
      table, rounded down, at least 1).
    - `bye_points`: Swiss: what a bye scores (default the mean points of a table's
      set: what an average result would score, so a bye neither helps nor hurts).
    """

    game: str
    entrants: tuple
    format: str = "round-robin"
    table_size: int | None = None
    rounds: int | None = None
    scoring: tuple | None = None
    seed: int = 1
    duplicate: bool = False
    matches_per_table: int | None = None
    advance: int | None = None
    bye_points: Fraction | None = None

    def __post_init__(self) -> None:
        entrants = tuple(e if isinstance(e, Entrant) else Entrant(e) for e in self.entrants)
        object.__setattr__(self, "entrants", entrants)
        ids = [e.id for e in entrants]
        if len(set(ids)) != len(ids):
            raise ValueError(f"entrant ids must be distinct: {ids}")
        if self.format not in FORMATS:
            raise ValueError(f"format is one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.game not in engine.game_names():
            raise ValueError(f"unknown game {self.game!r}; known: {', '.join(engine.game_names())}")
        low, high = self.player_range
        n = len(entrants)
        if n < 2:
            raise ValueError("a tournament needs at least two entrants")
        size = self.table_size
        if size is None:
            size = default_table_size(low, high, n)
            object.__setattr__(self, "table_size", size)
        if not (2 <= size <= 5 and low <= size <= high):
            raise ValueError(
                f"{self.game} tables seat {max(low, 2)} to {min(high, 5)} players, not {size}"
            )
        if self.format != "elimination" and n < size:
            raise ValueError(f"{n} entrants cannot fill a table of {size}")
        if self.scoring is not None:
            object.__setattr__(self, "scoring", check_scoring(self.scoring, size))
        if self.duplicate and self.matches_per_table not in (None, size):
            raise ValueError("duplicate sets play one match per seat rotation: as many as seats")
        if self.matches_per_table is not None and self.matches_per_table < 1:
            raise ValueError(f"matches per table must be positive, not {self.matches_per_table}")
        self._check_format_settings(n, size)

    def _check_format_settings(self, n: int, size: int) -> None:
        if self.format == "elimination":
            if self.rounds is not None:
                raise ValueError("an elimination's rounds follow from its bracket; give no rounds")
            if self.advance is not None and not 1 <= self.advance < size:
                raise ValueError(f"the top k of a table of {size} advance: 1 ≤ k < {size}")
            self.plan  # noqa: B018 - raises ValueError now when no bracket exists
            return
        if self.advance is not None:
            raise ValueError("only an elimination has a number advancing")
        if self.format == "round-robin" and self.rounds is not None:
            roundrobin.check_length(n, size, self.rounds)
        if self.format == "swiss" and self.rounds is not None and self.rounds < 1:
            raise ValueError(f"a Swiss needs at least one round, not {self.rounds}")

    # --- settings, resolved --------------------------------------------------------------

    @property
    def seats(self) -> int:
        """Seats per table: `table_size` as resolved when the tournament was made."""
        assert self.table_size is not None  # set by __post_init__
        return self.table_size

    @property
    def player_range(self) -> tuple[int, int]:
        game = engine.get_game(self.game)
        return game.min_players, game.max_players

    @property
    def ids(self) -> list[Hashable]:
        return [e.id for e in self.entrants]

    def scoring_for(self, size: int) -> Points:
        """Points per rank at a table of `size`."""
        if size == self.seats and self.scoring is not None:
            return self.scoring
        return default_scoring(size)

    def set_size(self, size: int) -> int:
        """Matches a table of `size` plays."""
        if self.duplicate:
            return size
        return self.matches_per_table or 1

    @property
    def bye_value(self) -> Fraction:
        """Points a Swiss bye scores."""
        if self.bye_points is not None:
            return Fraction(self.bye_points)
        return mean_points(self.scoring_for(self.seats)) * self.set_size(self.seats)

    @property
    def advancing(self) -> int:
        return self.advance or elimination.default_advance(self.seats)

    @cached_property
    def length(self) -> int:
        """Round robin: tables per entrant; Swiss and elimination: rounds."""
        n = len(self.entrants)
        if self.format == "round-robin":
            return self.rounds or roundrobin.default_length(n, self.seats)
        if self.format == "swiss":
            return self.rounds or swiss.default_rounds(n, self.seats)
        return len(self.plan)

    @cached_property
    def round_count(self) -> int:
        """How many rounds the tournament has."""
        if self.format == "round-robin":
            return len(self._round_robin)
        return self.length

    @cached_property
    def plan(self) -> list[elimination.Stage]:
        """Elimination: the shape of every round (table sizes, byes)."""
        low, high = self.player_range
        return elimination.plan(
            len(self.entrants), self.seats, self.advancing, max(low, 2), min(high, 5)
        )

    def total_matches(self) -> int:
        """Matches in the whole tournament (known from the start for every format)."""
        if self.format == "round-robin":
            return sum(len(tables) for tables in self._round_robin) * self.set_size(self.seats)
        if self.format == "swiss":
            per_round = len(self.entrants) // self.seats
            return self.length * per_round * self.set_size(self.seats)
        return sum(self.set_size(s) for stage in self.plan for s in stage.sizes)

    # --- the schedule --------------------------------------------------------------------

    def schedule(self, results: Mapping[MatchKey, Result] | None = None) -> tuple[Round, ...]:
        """Every round that can be known from these results."""
        results = results or {}
        if self.format == "round-robin":
            rounds = self._all_round_robin
        else:
            known: list[Round] = []
            while len(known) < self.round_count and all(
                m.key in results for r in known for m in r.matches
            ):
                known.append(self._known_round(known, results))
            rounds = tuple(known)
        self._check_results(rounds, results)
        return rounds

    def pending(self, results: Mapping[MatchKey, Result]) -> list[Match]:
        """Matches scheduled and not yet played."""
        return [m for r in self.schedule(results) for m in r.matches if m.key not in results]

    def finished(self, results: Mapping[MatchKey, Result]) -> bool:
        rounds = self.schedule(results)
        return len(rounds) == self.round_count and not any(
            m.key not in results for r in rounds for m in r.matches
        )

    @cached_property
    def _round_robin(self) -> list[list[tuple[int, ...]]]:
        """The round robin's rounds of seated tables, as entrant indices."""
        n, size = len(self.entrants), self.seats
        slots = roundrobin.schedule(n, size, self.length)
        # The schedule depends on n, t and k alone; the seed draws who takes which slot.
        draw = list(range(n))
        random.Random(derive_seed(self.seed, "draw")).shuffle(draw)
        return [[tuple(draw[slot] for slot in table) for table in tables] for tables in slots]

    @cached_property
    def _all_round_robin(self) -> tuple[Round, ...]:
        n = len(self.entrants)
        rounds = []
        for number, tables in enumerate(self._round_robin, start=1):
            seated = {e for table in tables for e in table}
            byes = [i for i in range(n) if i not in seated]
            rounds.append(self._round(number, tables, byes))
        return tuple(rounds)

    def _round(self, number: int, tables: Sequence[Sequence[int]], byes: Sequence[int]) -> Round:
        """A Round from seated tables of entrant indices."""
        ids = self.ids
        built = []
        for t, table in enumerate(tables, start=1):
            seats = tuple(ids[i] for i in table)
            count = self.set_size(len(seats))
            matches = tuple(
                Match(number, t, r, self._match_seed(number, t, r), order)
                for r, order in enumerate(rotations(seats, count))
            )
            built.append(Table(number, t, seats, matches))
        return Round(number, tuple(built), tuple(ids[i] for i in byes))

    def _match_seed(self, round_number: int, table: int, rotation: int) -> int:
        if self.duplicate:
            rotation = 0  # one seed for the whole set
        return derive_seed(self.seed, "match", round_number, table, rotation)

    @cached_property
    def _made(self) -> dict[tuple, Round]:
        """Rounds already made, by the results they were made from (a pure function's memo:
        a Swiss or an elimination is asked for the same rounds again and again)."""
        return {}

    def _known_round(self, rounds: Sequence[Round], results: Mapping[MatchKey, Result]) -> Round:
        key = tuple((m.key, results[m.key]) for r in rounds for m in r.matches)
        if key not in self._made:
            self._made[key] = self._next_round(rounds, results)
        return self._made[key]

    def _next_round(self, rounds: Sequence[Round], results: Mapping[MatchKey, Result]) -> Round:
        number = len(rounds) + 1
        rng = random.Random(derive_seed(self.seed, "seats", number))
        if self.format == "swiss":
            tables, byes = self._swiss_tables(rounds, results)
        else:
            tables, byes = self._elimination_tables(rounds, results)
        counts = self._seat_counts(rounds)
        seated = []
        for members in tables:
            members = list(members)
            rng.shuffle(members)  # a tie for the least-used seats is drawn
            seated.append(seat_table(members, counts))
        return self._round(number, seated, byes)

    def _seat_counts(self, rounds: Sequence[Round]) -> list[list[int]]:
        index = {e: i for i, e in enumerate(self.ids)}
        counts = [[0] * 6 for _ in self.ids]
        for r in rounds:
            for m in r.matches:
                for seat, e in enumerate(m.seats):
                    counts[index[e]][seat] += 1
        return counts

    def _swiss_tables(self, rounds, results) -> tuple[list[list[int]], list[int]]:
        n, size = len(self.entrants), self.seats
        index = {e: i for i, e in enumerate(self.ids)}
        if not rounds:
            skills = [e.skill for e in self.entrants]
            seeding = swiss.seeding_order(skills, random.Random(derive_seed(self.seed, "seeding")))
            return swiss.first_round(seeding, size, tiered=any(s is not None for s in skills))
        played = _played(rounds, results)
        totals = self._tally(rounds, played)
        standing = [index[e] for e in order(self.ids, totals, played, self._coins)]
        met = [[0] * n for _ in range(n)]
        for r in rounds:
            for table in r.tables:
                for i, a in enumerate(table.entrants):
                    for b in table.entrants[i + 1 :]:
                        met[index[a]][index[b]] += 1
                        met[index[b]][index[a]] += 1
        points = [totals[e].points for e in self.ids]
        byes_had = [totals[e].byes for e in self.ids]
        return swiss.pair_round(standing, points, met, byes_had, size)

    def _elimination_tables(self, rounds, results) -> tuple[list[list[int]], list[int]]:
        index = {e: i for i, e in enumerate(self.ids)}
        seed_place = {e: i for i, e in enumerate(self._seeding)}
        if not rounds:
            remaining = self._seeding
        else:
            last = rounds[-1]
            going = [index[e] for e in last.byes]
            for table in last.tables:
                places = self.table_places(table, results)
                going += [
                    index[e] for e in places[: elimination.advancing(len(places), self.advancing)]
                ]
            remaining = sorted(going, key=seed_place.__getitem__)
        return elimination.deal(remaining, self.plan[len(rounds)])

    @cached_property
    def _seeding(self) -> list[int]:
        """Elimination seeds (indices, best first): by ladder skill, the unrated drawn."""
        skills = [e.skill for e in self.entrants]
        return swiss.seeding_order(skills, random.Random(derive_seed(self.seed, "seeding")))

    def _check_results(self, rounds: Sequence[Round], results: Mapping[MatchKey, Result]) -> None:
        seats = {m.key: len(m.seats) for r in rounds for m in r.matches}
        for key, result in results.items():
            if key not in seats:
                raise ValueError(f"a result for match {key}, which is not in the schedule")
            if not isinstance(result, Result) or len(result.ranks) != seats[key]:
                raise ValueError(f"match {key} needs a Result with {seats[key]} seats")

    # --- standings -----------------------------------------------------------------------

    @cached_property
    def _coins(self) -> dict[Hashable, int]:
        return coins(self.ids, self.seed)

    def _tally(self, rounds: Sequence[Round], played: Sequence[Played]) -> dict[Hashable, Tally]:
        byes = [e for r in rounds for e in r.byes] if self.format == "swiss" else []
        return tally(self.ids, played, self.scoring_for, byes, self.bye_value)

    def table_places(self, table: Table, results: Mapping[MatchKey, Result]) -> list[Hashable]:
        """A table's entrants by their result there: points over its set, mean score,
        head to head, coin (matches without a result count nothing yet)."""
        played = [(m, results[m.key]) for m in table.matches if m.key in results]
        totals = tally(table.entrants, played, self.scoring_for)
        return order(table.entrants, totals, played, self._coins)

    def standings(self, results: Mapping[MatchKey, Result] | None = None) -> list[Standing]:
        """The standings so far (ranks 1..n; see `standings` for the order).

        Elimination ranks by the round reached first (entrants still in play count
        as reaching the round they are in), then the place at that round's table
        (a bye or a table still playing counts as first place), then that table's
        points, then the usual order.
        """
        results = results or {}
        rounds = self.schedule(results)
        played = _played(rounds, results)
        totals = self._tally(rounds, played)
        first = self._depth(rounds, results) if self.format == "elimination" else None
        return standings(self.ids, totals, played, self._coins, first)

    def _depth(self, rounds: Sequence[Round], results) -> dict[Hashable, tuple]:
        key: dict[Hashable, tuple] = {}
        for r in rounds:
            for e in r.byes:
                key[e] = (-r.number, 1, Fraction(0))
            for table in r.tables:
                done = all(m.key in results for m in table.matches)
                places = self.table_places(table, results) if done else None
                played = [(m, results[m.key]) for m in table.matches if m.key in results]
                points = tally(table.entrants, played, self.scoring_for)
                for e in table.entrants:
                    place = places.index(e) + 1 if places else 1
                    key[e] = (-r.number, place, -points[e].points)
        return key

    def bracket(self, results: Mapping[MatchKey, Result] | None = None) -> list[dict]:
        """Elimination: every round of the plan as plain data for drawing.

        Each round: `round`, `final`, `byes` (ids, or a count while unknown) and
        `tables`, each with `table`, `size`, `entrants` (empty while unknown),
        `places` (ids best first, once every match of the table has a result),
        `advancing` (ids) and `matches` (keys as [round, table, rotation]).
        """
        if self.format != "elimination":
            raise ValueError("only an elimination has a bracket")
        results = results or {}
        rounds = self.schedule(results)
        drawn = []
        for number, stage in enumerate(self.plan, start=1):
            known = rounds[number - 1] if number <= len(rounds) else None
            tables = []
            for t, size in enumerate(stage.sizes, start=1):
                table = known.tables[t - 1] if known else None
                entry = {"table": t, "size": size, "entrants": [], "places": None}
                entry["advancing"], entry["matches"] = [], []
                if table is not None:
                    entry["entrants"] = list(table.entrants)
                    entry["matches"] = [list(m.key) for m in table.matches]
                    if all(m.key in results for m in table.matches):
                        places = self.table_places(table, results)
                        entry["places"] = places
                        if number < len(self.plan):
                            k = elimination.advancing(size, self.advancing)
                            entry["advancing"] = places[:k]
                tables.append(entry)
            drawn.append(
                {
                    "round": number,
                    "final": number == len(self.plan),
                    "byes": list(known.byes) if known else stage.byes,
                    "tables": tables,
                }
            )
        return drawn


def _played(rounds: Iterable[Round], results: Mapping[MatchKey, Result]) -> list[Played]:
    return [(m, results[m.key]) for r in rounds for m in r.matches if m.key in results]


def play(
    tournament: Tournament,
    play_matches: Callable[[list[Match]], Iterable[tuple[Match, Result]]],
) -> dict[MatchKey, Result]:
    """Drive a whole tournament: hand every playable batch of matches to `play_matches`
    (which yields each match with its result, in any order) until it is finished."""
    results: dict[MatchKey, Result] = {}
    while not tournament.finished(results):
        pending = tournament.pending(results)
        for match, result in play_matches(pending):
            results[match.key] = result
        if any(match.key not in results for match in pending):
            raise RuntimeError("play_matches left matches without a result")
    return results
