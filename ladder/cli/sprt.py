"""`ladder test`: is NEW better than OLD? A sequential test over duplicate sets.

Plays sets (one seed, every seat rotation, NEW, OLD and the opponents at the table)
through the same sandbox as `ladder play` until the test can say `better` or
`not better`, or `--max-sets` were played (`inconclusive`); the statistic is
`ladder.tournaments.sprt`'s. A live line shows the sets, the LLR between its bounds
and the score with its interval; with `--json` the last line is the fixed object.
Exit code 0 whatever the verdict (a measurement, not a failure), 2 on bad arguments;
with `--fail-on-fault`, 1 when a seat of NEW or OLD (given as a path) faulted.
"""

from __future__ import annotations

import json

import click
from rich.console import Console

import engine
from ladder.cli.options import (
    check_game,
    fail_if_faulted,
    fail_on_fault_option,
    house_owner,
    sandbox_options,
)
from ladder.cli.options import limits as sandbox_limits


@click.command("test")
@click.argument("game")
@click.argument("new")
@click.argument("old")
@click.option(
    "--opponents", "opponent_specs", multiple=True, metavar="BOT",
    help="cycled through the sets (default: the game's house greedy and search)",
)  # fmt: skip
@click.option("--table-size", type=click.IntRange(2, 5), help="seats (default 4, or fewer)")
@click.option("--s0", type=float, default=0.5, show_default=True, help="H0's set score")
@click.option("--s1", type=float, default=0.55, show_default=True, help="H1's set score")
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--beta", type=float, default=0.05, show_default=True)
@click.option("--max-sets", type=click.IntRange(min=2), default=200, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True, help="set k uses seed + k")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="end with one JSON line of the result")
@fail_on_fault_option
@sandbox_options
def test(
    game, new, old, opponent_specs, table_size, s0, s1, alpha, beta, max_sets, seed, jobs,
    as_json, fail_on_fault, move_ms, bank_ms, unsafe_no_sandbox,
):  # fmt: skip
    """Test whether NEW plays GAME better than OLD (paths to bot.py, .zip or folder, or
    house names such as manila/greedy), over duplicate sets against opponents.

    Exits 0 whatever the verdict; with --fail-on-fault, 1 when a seat of NEW or OLD
    (given as a path) faulted; 2 on bad arguments.
    """
    from ladder.tournaments.local_sprt import default_opponents, default_table, run_test, setup
    from ladder.tournaments.sprt import Hypotheses
    from workers import SandboxUnavailable

    check_game(game)
    spec = engine.get_game(game)
    size = table_size or default_table(spec.min_players, spec.max_players)
    if not spec.min_players <= size <= spec.max_players:
        raise click.BadParameter(
            f"{game} takes {spec.min_players} to {spec.max_players} seats, not {size}",
            param_hint="--table-size",
        )
    opponents = list(opponent_specs) or default_opponents(game)
    try:
        who = setup(new, old, opponents, house_owner())
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="NEW, OLD or --opponents") from None
    try:
        hypotheses = Hypotheses(s0=s0, s1=s1, alpha=alpha, beta=beta, max_sets=max_sets)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    err = Console(stderr=True)
    lower, upper = hypotheses.bounds

    def live(test) -> None:
        r = test.report()
        low, high = r["interval"]
        err.print(
            f"set {r['sets']:>3} · {r['matches']:>4} matches · LLR {r['llr']:+.2f}"
            f" in ({lower:.2f}, {upper:.2f}) · score {r['score']:.3f}"
            f" [{low:.3f}, {high:.3f}] · {r['verdict']}",
            highlight=False,
            soft_wrap=True,
        )

    try:
        done = run_test(
            game, who, size, hypotheses, seed, sandbox_limits(move_ms, bank_ms), jobs,
            unsafe_no_sandbox, live,
        )  # fmt: skip
    except SandboxUnavailable as exc:
        raise click.ClickException(str(exc)) from None
    report = done.report()
    if as_json:
        line = {
            "game": game,
            "new": new,
            "old": old,
            **{k: report[k] for k in ("verdict", "llr", "bounds", "sets", "matches", "score")},
            "interval": report["interval"],
            "faults": report["faults"],
        }
        click.echo(json.dumps(line, separators=(",", ":")))
    else:
        ranks = report["mean_rank"]
        click.echo(
            f"{new} against {old} in {game}: {report['verdict']} after {report['sets']} sets"
            f" ({report['matches']} matches); score {report['score']:.3f}"
            f" [{report['interval'][0]:.3f}, {report['interval'][1]:.3f}],"
            f" LLR {report['llr']:+.2f} in ({lower:.2f}, {upper:.2f});"
            f" mean rank {ranks['new']} against {ranks['old']};"
            f" faults {report['faults']['new']} against {report['faults']['old']}"
        )
    if fail_on_fault:
        faults = report["faults"]
        fail_if_faulted(spec for spec, side in ((new, "new"), (old, "old")) if faults[side])
