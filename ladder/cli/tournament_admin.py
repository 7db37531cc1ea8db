"""`ladder tournament create|open|add|start|status|cancel`: tournaments on the service.

For operators with a shell on the server (at DATABASE_URL); each command acts as
the staff account named by `--by`, through `services.tournaments`, as the staff
pages do. `status --json` prints one JSON object: the tournament's state and
settings, its standings and its match counts by state.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import click
from sqlalchemy import select

from ladder.cli.tournament import tournament
from ladder.queries import tournaments as tournament_queries
from ladder.tournaments.model import FORMATS


def _in_app(work: Callable):
    """Run `work(session, settings)` inside the app as one unit of work (committed at its
    end, rolled back if it raises), service errors as clean CLI errors."""
    from ladder import create_app
    from ladder.errors import ServiceError
    from ladder.extensions import app_settings, db
    from ladder.transactions import unit_of_work

    app = create_app()
    with app.app_context():
        try:
            with unit_of_work(db.session):
                return work(db.session, app_settings(app))
        except ServiceError as exc:
            raise click.ClickException(str(exc)) from None


def _staff(session, username: str):
    from ladder.models import User

    user = session.scalars(select(User).where(User.username == username)).one_or_none()
    if user is None or not user.is_staff:
        raise click.ClickException(f"{username} is not a staff account (ladder staff grant NAME)")
    return user


BY = click.option("--by", "by", required=True, help="the staff account acting")


@tournament.command("create")
@click.argument("name")
@click.argument("game")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=FORMATS[0], show_default=True)
@click.option("--table-size", type=click.IntRange(2, 5))
@click.option("--rounds", type=click.IntRange(min=1))
@click.option("--duplicate", is_flag=True)
@click.option("--advance", type=click.IntRange(min=1))
@click.option("--seed", type=click.IntRange(0, 2**31 - 1))
@BY
def create(name, game, fmt, table_size, rounds, duplicate, advance, seed, by):
    """Create a tournament in draft on the service; prints its id."""
    from ladder.services import tournaments

    made = _in_app(
        lambda s, _c: tournaments.create_tournament(
            s, _staff(s, by), name, game, fmt, table_size=table_size, rounds=rounds,
            duplicate=duplicate, advance=advance, seed=seed,
        ).id
    )  # fmt: skip
    click.echo(f"tournament {made} created (draft)")


@tournament.command("open")
@click.argument("tournament_id", type=int)
@BY
def open_(tournament_id: int, by: str):
    """Open a draft tournament for entries."""
    from ladder.services import tournaments

    _in_app(lambda s, _c: tournaments.open_tournament(s, _staff(s, by), tournament_id))
    click.echo(f"tournament {tournament_id} is open for entries")


@tournament.command("add")
@click.argument("tournament_id", type=int)
@click.argument("version_ids", type=int, nargs=-1, required=True)
@BY
def add(tournament_id: int, version_ids: tuple[int, ...], by: str):
    """Enter house bot versions (owned by HOUSE_USER)."""
    from ladder.services import tournaments

    def work(s, settings):
        for version_id in version_ids:
            tournaments.add_house_bot(s, settings, _staff(s, by), tournament_id, version_id)

    _in_app(work)
    click.echo(f"added {len(version_ids)} house bot(s) to tournament {tournament_id}")


@tournament.command("start")
@click.argument("tournament_id", type=int)
@BY
def start(tournament_id: int, by: str):
    """Start an open tournament: its first round is queued for the workers."""
    from ladder.services import tournaments

    _in_app(lambda s, c: tournaments.start(s, c, _staff(s, by), tournament_id))
    click.echo(f"tournament {tournament_id} started")


@tournament.command("cancel")
@click.argument("tournament_id", type=int)
@BY
def cancel(tournament_id: int, by: str):
    """Cancel a tournament not yet finished (its unplayed matches fail, unrated)."""
    from ladder.services import tournaments

    _in_app(lambda s, _c: tournaments.cancel(s, _staff(s, by), tournament_id))
    click.echo(f"tournament {tournament_id} cancelled")


@tournament.command("status")
@click.argument("tournament_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="one JSON object: state, standings, counts")
def status(tournament_id: int, as_json: bool):
    """A tournament's state, standings and match counts."""

    def work(s, _c):
        info = tournament_queries.detail(s, tournament_queries.get_tournament(s, tournament_id))
        return {k: v for k, v in info.items() if k not in ("schedule", "bracket", "entrant_list")}

    info = _in_app(work)
    if as_json:
        click.echo(json.dumps(info, sort_keys=True))
        return
    counts = info["match_counts"]
    click.echo(
        f"{info['name']} ({info['game']}, {info['format']}): {info['state']};"
        f" {info['entrants']} entrants; matches {counts['finished']} finished,"
        f" {counts['queued'] + counts['running']} in flight, {counts['failed']} failed"
    )
    for line in info["standings"]:
        click.echo(
            f"{line['rank']:>3}  {line['bot']:<24} {line['points']:>6.1f} pts"
            f"  {line['matches']} matches  {line['faults']} faults"
        )
