"""A sequential test played on this machine: `sprt`'s sets, matches through `workers`.

What `ladder test` uses. Sets are played in order, their matches on a pool of `jobs`
processes; a few sets are under way at once so the pool stays busy, and they are
counted strictly in set order, so the test stops where it would have one set at a
time (the matches of sets begun past that point are dropped).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass

from ladder.tournaments.local import Entry, Runner, end_sandboxes_at_exit, entries, play_one
from ladder.tournaments.model import Result
from ladder.tournaments.sprt import NEW, OLD, Hypotheses, SequentialTest, SetPlan, plan_set
from workers import Limits
from workers.info import HOUSE_OWNER

DEFAULT_TABLE = 4  # seats, or the game's most if fewer (see `default_table`)


def default_table(min_players: int, max_players: int) -> int:
    """The default table: the ladder draws its sizes evenly from a game's smallest to its
    largest table, so no size is the most common; four is in every game's range."""
    return max(min_players, min(DEFAULT_TABLE, max_players))


def default_opponents(game: str) -> list[str]:
    """The game's house `greedy` and `search` bots, cycled through the sets."""
    return [f"{game}/greedy", f"{game}/search"]


@dataclass(frozen=True)
class Setup:
    """Who plays: NEW, OLD and the opponents as entries, and the labels of their seats."""

    new: Entry
    old: Entry
    opponents: tuple[Entry, ...]

    @property
    def by_label(self) -> dict[str, Entry]:
        """Entries by the label a set's tables use (NEW, OLD, then each opponent's)."""
        return {NEW: self.new, OLD: self.old, **{e.label: e for e in self.opponents}}


def setup(new: str, old: str, opponents: Sequence[str], house_owner: str = HOUSE_OWNER) -> Setup:
    """The entries for bots given as paths or house names (ValueError for an unknown
    bot); NEW and OLD given alike (a bot against itself) are told apart as `#1`, `#2`."""
    found = entries([new, old, *opponents], house_owner)
    return Setup(found[0], found[1], tuple(found[2:]))


def run_test(
    game: str,
    who: Setup,
    size: int,
    hypotheses: Hypotheses,
    seed: int,
    limits: Limits,
    jobs: int = 1,
    unsafe: bool = False,
    on_set: Callable[[SequentialTest], None] | None = None,
) -> SequentialTest:
    """Play sets until the test ends (a bound crossed, or `max_sets`); `on_set` hears
    of the test after each set is counted."""
    labels = [e.label for e in who.opponents]
    runner = Runner(game, {label: e.source for label, e in who.by_label.items()}, limits, unsafe)
    test = SequentialTest(hypotheses)

    def jobs_of(plan: SetPlan) -> list[tuple]:
        return [
            (game, [runner.bots[label] for label in seats], plan.seed, runner)
            for seats in plan.tables
        ]

    def count(plan: SetPlan, results: list[Result]) -> None:
        test.add(plan, results)
        if on_set is not None:
            on_set(test)

    plans = (plan_set(i, seed, size, labels) for i in range(hypotheses.max_sets))
    if jobs <= 1:
        for plan in plans:
            count(plan, [play_one(job) for job in jobs_of(plan)])
            if test.done:
                break
        return test
    ahead = max(2, -(-jobs // size) + 1)  # sets under way at once: enough to fill the pool
    with ProcessPoolExecutor(max_workers=jobs, initializer=end_sandboxes_at_exit) as pool:
        pending: list[tuple[SetPlan, list[Future]]] = []
        for plan in plans:
            pending.append((plan, [pool.submit(play_one, job) for job in jobs_of(plan)]))
            if len(pending) < ahead:
                continue
            first, futures = pending.pop(0)
            count(first, [f.result() for f in futures])
            if test.done:
                break
        while pending and not test.done:
            first, futures = pending.pop(0)
            count(first, [f.result() for f in futures])
        for _, futures in pending:  # begun past the end: not counted
            for future in futures:
                future.cancel()
    return test
