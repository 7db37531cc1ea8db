"""`ladder tournament`: tournaments from the command line.

`run` plays a whole tournament on this machine through the same sandbox and the
same scheduling core as the service (`ladder.tournaments`), with a progress bar,
and prints the standings; with `--json` its last line is the fixed JSON object
(see `ladder.tournaments.local.report`).
"""

from __future__ import annotations

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ladder.cli.options import (
    check_game,
    fail_if_faulted,
    fail_on_fault_option,
    house_owner,
    sandbox_options,
)
from ladder.cli.options import limits as sandbox_limits
from ladder.tournaments import FORMATS, Standing, Tournament, rules


@click.group()
def tournament() -> None:
    """Tournaments: round robin, Swiss and elimination for tables of 2 to 5."""


@tournament.command("run", epilog=rules.help_text())
@click.argument("game")
@click.argument("bots", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True)
@click.option(
    "--rounds",
    type=click.IntRange(min=1),
    help="round robin: tables each bot plays; Swiss: rounds (default: see below)",
)
@click.option(
    "--table-size",
    type=click.IntRange(2, 5),
    help="seats per table (default 4, or the nearest size the game and the bots allow)",
)
@click.option("--duplicate", is_flag=True, help="play each table with one seed in every rotation")
@click.option("--advance", type=click.IntRange(min=1), help="elimination: top K of a table advance")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="end with one JSON line of the results")
@fail_on_fault_option
@sandbox_options
def run(
    game, bots, fmt, rounds, table_size, duplicate, advance, seed, jobs, as_json, fail_on_fault,
    move_ms, bank_ms, unsafe_no_sandbox,
):  # fmt: skip
    """Play a tournament of GAME between BOTS: paths to bot.py, .zip or folder, or house
    names (manila/random); a bot named twice plays as two entrants.

    How rounds, points, byes and tie-breaks work is below the options.

    Exits 0 when the tournament was played; with --fail-on-fault, 1 when a seat of a bot
    given as a path faulted; 2 on bad arguments.
    """
    from ladder.tournaments.local import Runner, entries, json_line, report
    from ladder.tournaments.local import run as play_all
    from workers import SandboxUnavailable

    check_game(game)
    try:
        found = entries(bots, house_owner())
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="BOTS") from None
    try:
        planned = Tournament(
            game,
            tuple(entry.label for entry in found),
            fmt,
            table_size=table_size,
            rounds=rounds,
            seed=seed,
            duplicate=duplicate,
            advance=advance,
        )
        total = planned.total_matches()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    limits = sandbox_limits(move_ms, bank_ms)
    runner = Runner(game, {e.label: e.source for e in found}, limits, unsafe_no_sandbox)
    columns = (TextColumn(f"{game} {fmt}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=as_json) as progress:
        task = progress.add_task("matches", total=total)
        try:
            results = play_all(planned, runner, jobs, lambda *_: progress.advance(task))
        except SandboxUnavailable as exc:
            raise click.ClickException(str(exc)) from None
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
    lines = planned.standings(results)
    if as_json:
        click.echo(json_line(report(planned, found, results)))
    else:
        Console().print(standings_table(planned, lines))
    if fail_on_fault:
        spec = {entry.label: entry.spec for entry in found}
        fail_if_faulted(spec[str(line.entrant)] for line in lines if line.faults)


def standings_table(planned: Tournament, lines: list[Standing]) -> Table:
    """Rank, bot, points, matches, wins, mean rank, mean score, byes (if any) and faults."""
    kind = "duplicate " if planned.duplicate else ""
    table = Table(
        title=f"{planned.game}: {kind}{planned.format}, tables of {planned.table_size}",
        caption="score: mean game score a match",
    )
    byes = any(line.byes for line in lines)
    columns = ["rank", "bot", "points", "matches", "wins", "mean rank", "score"]
    columns += ["byes"] * byes + ["faults"]
    widest = max((len(str(line.entrant)) for line in lines), default=3)
    for column in columns:
        if column == "bot":  # names whole, even in 80 columns; the numbers give way
            table.add_column(column, min_width=widest, no_wrap=True)
        else:
            table.add_column(column, justify="left" if column == "faults" else "right")
    for line in lines:
        cells = [
            str(line.rank),
            str(line.entrant),
            _number(line.points),
            str(line.matches),
            str(line.wins),
            "-" if line.mean_rank is None else f"{line.mean_rank:.2f}",
            f"{line.mean_score:.1f}",
        ]
        cells += [str(line.byes)] * byes
        faults = ", ".join(f"{status} {count}" for status, count in line.fault_kinds)
        table.add_row(*cells, faults or "-")
    return table


def _number(value) -> str:
    return str(int(value)) if value == int(value) else f"{float(value):.2f}"
