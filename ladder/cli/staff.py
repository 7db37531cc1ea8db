"""`ladder staff grant|revoke USERNAME`: who may see the staff status page.

There is no web page for this on purpose: becoming staff needs a shell on
the server.
"""

from __future__ import annotations

import click

from ladder.services.accounts import set_staff


def _change(username: str, flag: bool) -> None:
    from ladder import create_app
    from ladder.extensions import db

    app = create_app()
    with app.app_context():
        try:
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
