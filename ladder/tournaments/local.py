"""A tournament played on this machine: the core's schedule, matches through `workers`.

What `ladder tournament run` uses. Entrants are the bots as given on the command
line; a bot given twice is two entrants, told apart in the standings by `#1`,
`#2` after the name, while the matches keep the names as given. Every match
that can be played now (the whole round robin, or the current round of a
Swiss or an elimination) goes to a pool of `jobs` processes.
"""

from __future__ import annotations

import json
import multiprocessing.util
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from typing import cast

from ladder.tournaments.model import Match, MatchKey, Result
from ladder.tournaments.standings import Standing
from ladder.tournaments.tournament import Tournament, play
from workers import BotSource, Limits, close_pools, resolve, retry_stalled, run_match
from workers.info import HOUSE_OWNER


@dataclass(frozen=True)
class Entry:
    """A bot as given (`spec`), its entrant label, and its files."""

    spec: str
    label: str
    source: BotSource


def entries(specs: Sequence[str], house_owner: str = HOUSE_OWNER) -> list[Entry]:
    """The entrants for bots given as paths or house names (ValueError for an unknown bot).

    A name given more than once gets `#1`, `#2`, ... in the order given (its label
    only: the other seats see it by the same name as in `ladder play`).
    """
    counts = {spec: specs.count(spec) for spec in specs}
    seen: dict[str, int] = {}
    found = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        label = f"{spec}#{seen[spec]}" if counts[spec] > 1 else spec
        found.append(Entry(spec, label, replace(resolve(spec, house_owner), label=label)))
    return found


@dataclass(frozen=True)
class Runner:
    """How matches are played here: the game, the bots by label, limits and sandbox."""

    game: str
    bots: dict[str, BotSource]
    limits: Limits
    unsafe: bool = False

    def job(self, match: Match) -> tuple:
        return (self.game, [self.bots[cast(str, label)] for label in match.seats], match.seed, self)


def play_one(job: tuple) -> Result:
    game, bots, seed, runner = job
    # A stall of this machine is nobody's fault: the same match again, as the ladder does.
    outcome = retry_stalled(
        lambda: run_match(game, bots, seed, limits=runner.limits, unsafe=runner.unsafe)
    )
    return Result.from_outcome(outcome)


def end_sandboxes_at_exit() -> None:
    """In a pool process: end its bot sandboxes when it exits (pool processes skip atexit)."""
    multiprocessing.util.Finalize(None, close_pools, exitpriority=10)


def run(
    tournament: Tournament,
    runner: Runner,
    jobs: int = 1,
    on_result: Callable[[Match, Result], None] | None = None,
) -> dict[MatchKey, Result]:
    """Play the whole tournament on `jobs` processes (one pool for all its rounds);
    `on_result` hears of every match as it finishes."""

    def told(played: Iterator[tuple[Match, Result]]) -> Iterator[tuple[Match, Result]]:
        for match, result in played:
            if on_result is not None:
                on_result(match, result)
            yield match, result

    if jobs <= 1:
        return play(tournament, lambda batch: told((m, play_one(runner.job(m))) for m in batch))
    with ProcessPoolExecutor(max_workers=jobs, initializer=end_sandboxes_at_exit) as pool:

        def in_pool(batch: list[Match]) -> Iterator[tuple[Match, Result]]:
            futures = {pool.submit(play_one, runner.job(match)): match for match in batch}
            for future in as_completed(futures):
                yield futures[future], future.result()

        return play(tournament, lambda batch: told(in_pool(batch)))


def report(tournament: Tournament, found: Sequence[Entry], results: dict[MatchKey, Result]) -> dict:
    """The `--json` object: format, game, standings by label, matches with seats as given."""
    spec = {entry.label: entry.spec for entry in found}
    lines = tournament.standings(results)
    matches = []
    for r in tournament.schedule(results):
        for match in r.matches:
            result = results[match.key]
            matches.append(
                {
                    "round": match.round,
                    "table": match.table,
                    "seed": match.seed,
                    "seats": [spec[cast(str, label)] for label in match.seats],
                    "ranks": list(result.ranks),
                    "statuses": [status.value for status in result.statuses],
                }
            )
    return {
        "format": tournament.format,
        "game": tournament.game,
        "standings": [_standing(line) for line in lines],
        "matches": matches,
    }


def _standing(line: Standing) -> dict:
    points = line.points
    return {
        "bot": line.entrant,
        "rank": line.rank,
        "points": int(points) if points.denominator == 1 else float(points),
        "matches": line.matches,
        "faults": line.faults,
    }


def json_line(payload: dict) -> str:
    return json.dumps(payload, separators=(",", ":"))
