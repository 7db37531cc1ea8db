"""`ladder play`: run matches locally through the same sandbox the ladder uses.

Seats rotate from one game to the next so that no bot keeps the same seat;
game k uses seed `seed + k`. Results are summed per bot label.
"""

from __future__ import annotations

import json
import multiprocessing.util
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ladder.cli.tracebacks import outcome_as_given
from workers import (
    BotSource,
    Limits,
    Outcome,
    SeatStatus,
    close_pools,
    retry_stalled,
    run_match,
)

SHOWN_FAULTS = 5  # faults printed in full after the results; --logs keeps them all
STDERR_LINES = 20  # lines of a faulted seat's stderr printed under it


@dataclass
class Tally:
    """One bot's totals over the games played."""

    games: int = 0
    wins: int = 0
    rank_sum: int = 0
    score_sum: float = 0.0
    faults: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """What to play: the game, the bots in seat order, and how many games from which seed."""

    game: str
    bots: tuple[BotSource, ...]
    seed: int
    games: int
    limits: Limits
    unsafe: bool = False

    def seating(self, k: int) -> list[BotSource]:
        """Game k's seats: the bots rotated by k."""
        shift = k % len(self.bots)
        return list(self.bots[shift:] + self.bots[:shift])


def _one(args: tuple) -> Outcome:
    plan, k = args
    seating = plan.seating(k)
    # A stall of this machine is nobody's fault: the same match again, as the ladder does.
    outcome = retry_stalled(
        lambda: run_match(plan.game, seating, plan.seed + k, limits=plan.limits, unsafe=plan.unsafe)
    )
    return outcome_as_given(outcome, seating)


def matches(plan: Plan, jobs: int):
    """Outcomes of every game of the plan, in seed order (run on `jobs` processes)."""
    work = [(plan, k) for k in range(plan.games)]
    if jobs <= 1:
        yield from map(_one, work)
        return
    with ProcessPoolExecutor(max_workers=jobs, initializer=_end_sandboxes_at_exit) as pool:
        yield from pool.map(_one, work)


def _end_sandboxes_at_exit() -> None:
    """In a pool process: end its bot sandboxes when it exits (pool processes skip atexit)."""
    multiprocessing.util.Finalize(None, close_pools, exitpriority=10)


def json_line(outcome: Outcome) -> str:
    """The `--json` line of one match: the fixed keys, then each seat's `errors` and `stderr`.

    `bots` is the bot argument in each seat, as given: seats rotate from game to game,
    so a script reading `ranks` needs it to know whose rank is whose."""
    keys = ("seed", "bots", "ranks", "scores", "statuses", "replay", "errors", "stderr")
    whole = outcome.to_dict() | {"bots": list(outcome.labels)}
    return json.dumps({key: whole[key] for key in keys}, separators=(",", ":"))


@dataclass(frozen=True)
class Fault:
    """One seat that faulted in one match: what a bot author needs to see first."""

    seed: int
    seat: int
    label: str
    status: SeatStatus
    reason: str | None
    stderr: str

    def heading(self) -> str:
        because = f": {self.reason}" if self.reason else ""
        return f"seed {self.seed}, seat {self.seat} ({self.label}): {self.status}{because}"


def faults(outcomes: list[Outcome]) -> list[Fault]:
    """Every faulted seat of every match, in seed and seat order."""
    found = []
    for outcome in outcomes:
        for seat, status in enumerate(outcome.statuses):
            if status.faulted:
                found.append(
                    Fault(
                        outcome.seed,
                        seat,
                        outcome.labels[seat],
                        status,
                        outcome.errors[seat],
                        outcome.stderr[seat] or "",
                    )
                )
    return found


def tail(text: str, lines: int) -> str:
    kept = text.rstrip("\n").splitlines()[-lines:]
    return "\n".join(kept)


def fault_report(found: list[Fault], shown: int = SHOWN_FAULTS, logs: Path | None = None) -> str:
    """The faults after the results: status, reason and the tail of stderr (the traceback)
    of the first `shown`, a count of the rest."""
    if not found:
        return ""
    parts = [f"{len(found)} seat{'s' if len(found) != 1 else ''} faulted:"]
    for fault in found[:shown]:
        parts.append(f"- {fault.heading()}")
        if fault.stderr.strip():
            parts.append("  stderr (tail):")
            parts.extend("    " + line for line in tail(fault.stderr, STDERR_LINES).splitlines())
        else:
            parts.append("  (nothing on stderr)")
    rest = len(found) - shown
    if rest > 0:
        parts.append(f"... and {rest} more.")
    if logs is not None:
        parts.append(f"Every seat's stderr is in {logs}/.")
    elif rest > 0:
        parts.append("Add --logs DIR to keep every seat's stderr in files.")
    return "\n".join(parts)


def save_logs(folder: Path, outcome: Outcome) -> None:
    """Every seat's stderr (as kept: the tail past its cap) in `seed-S-seat-N.log`."""
    folder.mkdir(parents=True, exist_ok=True)
    for seat, text in enumerate(outcome.stderr):
        label = outcome.labels[seat]
        status = outcome.statuses[seat]
        error = outcome.errors[seat]
        header = f"# seed {outcome.seed}, seat {seat}: {label} — {status}"
        header += f" ({error})\n" if error else "\n"
        path = folder / f"seed-{outcome.seed}-seat-{seat}.log"
        path.write_text(header + (text or ""), encoding="utf-8")


def tally(outcomes: list[Outcome]) -> dict[str, Tally]:
    """Wins (rank 1, shared or not), rank and score sums and faults, per bot label."""
    totals: dict[str, Tally] = {}
    for outcome in outcomes:
        for seat, label in enumerate(outcome.labels):
            t = totals.setdefault(label, Tally())
            t.games += 1
            t.wins += outcome.ranks[seat] == 1
            t.rank_sum += outcome.ranks[seat]
            t.score_sum += outcome.scores[seat]
            status = outcome.statuses[seat]
            if status.faulted:
                t.faults[status] = t.faults.get(status, 0) + 1
    return totals


def results_table(game: str, totals: dict[str, Tally]) -> Table:
    table = Table(title=f"{game}: results")
    for column in ("bot", "games", "wins", "mean rank", "mean score", "faults"):
        table.add_column(column, justify="left" if column in ("bot", "faults") else "right")
    for label, t in sorted(totals.items(), key=lambda item: item[1].rank_sum / item[1].games):
        faults = ", ".join(f"{k} {v}" for k, v in sorted(t.faults.items())) or "-"
        table.add_row(
            label,
            str(t.games),
            f"{t.wins} ({100 * t.wins / t.games:.0f}%)",
            f"{t.rank_sum / t.games:.2f}",
            f"{t.score_sum / t.games:.2f}",
            faults,
        )
    return table


def save_replay(path: Path, outcome: Outcome, several: bool) -> None:
    """One game: PATH is the replay file. Several: PATH is a directory of `seed-N.json`."""
    if several:
        path.mkdir(parents=True, exist_ok=True)
        path = path / f"seed-{outcome.seed}.json"
    path.write_text(json.dumps(outcome.replay, indent=1) + "\n", encoding="utf-8")


def play(
    plan: Plan, jobs: int, replay: Path | None, as_json: bool, logs: Path | None = None
) -> dict[str, Tally]:
    """Play the plan with a progress bar; JSON lines on stdout or a results table,
    then every fault's reason and stderr tail (on stderr with --json)."""
    out = Console()
    err = Console(stderr=True)
    outcomes = []
    columns = (
        TextColumn(f"{plan.game}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=as_json) as progress:
        task = progress.add_task("games", total=plan.games)
        for outcome in matches(plan, jobs):
            outcomes.append(outcome)
            if as_json:
                print(json_line(outcome), flush=True)
            if replay is not None:
                save_replay(replay, outcome, plan.games > 1)
            if logs is not None:
                save_logs(logs, outcome)
            progress.advance(task)
    totals = tally(outcomes)
    if not as_json:
        out.print(results_table(plan.game, totals))
    report = fault_report(faults(outcomes), logs=logs)
    if report:
        # Plain print: a traceback must not be re-wrapped to the terminal's width.
        print(report, file=sys.stderr if as_json else sys.stdout, flush=True)
    return totals
