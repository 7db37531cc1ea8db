"""`ladder staff grant|revoke USERNAME`: who may see the staff status page; and
`ladder staff collusion GAME`: the collusion check of the staff pages, in a terminal.

There is no web page for granting on purpose: becoming staff needs a shell on
the server.
"""

from __future__ import annotations

import json

import click

from ladder.ranking.collusion import ALPHA
from ladder.services.accounts import set_staff


def _change(username: str, flag: bool) -> None:
    from ladder import create_app
    from ladder.extensions import db
    from ladder.transactions import unit_of_work

    app = create_app()
    with app.app_context():
        try:
            with unit_of_work(db.session):
                set_staff(db.session, username, flag)
        except LookupError as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"{username} is {'now' if flag else 'no longer'} staff")


@click.group("staff")
def staff() -> None:
    """Staff accounts (they see /staff, the ladder's status page)."""


@staff.command()
@click.argument("username")
def grant(username: str) -> None:
    """Make USERNAME staff (at DATABASE_URL)."""
    _change(username, True)


@staff.command()
@click.argument("username")
def revoke(username: str) -> None:
    """Make USERNAME an ordinary user again."""
    _change(username, False)


@staff.command()
@click.argument("game")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=ALPHA, show_default=True,
              help="chance of flagging any honest pair (Holm-corrected)")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="one JSON object: every pair examined")
def collusion(game: str, alpha: float, as_json: bool) -> None:
    """Pairs of owners whose results together beat their ratings in GAME's rated matches."""
    from ladder import create_app
    from ladder.cli.options import check_game
    from ladder.extensions import app_settings, db
    from ladder.queries import collusion as check

    check_game(game)
    app = create_app()
    with app.app_context():
        report = check.examine(db.session, app_settings(app), game, alpha=alpha)
    if as_json:
        click.echo(json.dumps(check.as_json(report)))
        return
    click.echo(
        f"{game}: {report.matches} rated matches, {len(report.pairs)} pairs examined"
        f" (at least {report.min_matches} shared matches; {report.untested} with fewer),"
        f" {len(report.flagged)} flagged at alpha {alpha} (Holm)"
    )
    for p in report.flagged:
        e = p.evidence
        click.echo(
            f"\n{p.helper} -> {p.beneficiary} ({p.kind}): {e.matches} shared matches,"
            f" z {e.z:+.2f}, p {e.p:.2g}, corrected p {e.adjusted:.2g}"
        )
        for s in p.shared:
            click.echo(
                f"  match {s.match_id}: {s.first.label} rank {s.first.rank},"
                f" {s.second.label} rank {s.second.rank} of {s.players}"
                f" (surprise {s.surprise:+.2f})"
            )
