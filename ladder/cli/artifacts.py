"""`ladder artifacts ...`: the artifact store where uploaded bots and replays live.

Upgrading an install made before the store is two commands, on the web host
that holds the old folders: `ladder db upgrade` (gives every row its key), then
`ladder artifacts import` (copies the files from UPLOAD_DIR and REPLAY_DIR into
the store ARTIFACT_STORE names). The import may run again at any time: it skips
what is stored, deletes nothing, and exits 1 while any file is missing.
"""

from __future__ import annotations

import click
from sqlalchemy.orm import Session

from ladder import artifacts
from ladder.artifacts.legacy import import_files
from ladder.extensions import make_engine
from ladder.settings import Settings

SHOWN = 20  # problems listed by name; the rest are counted


@click.group("artifacts")
def artifacts_group() -> None:
    """Uploaded bot files and replays (the artifact store)."""


@artifacts_group.command("import")
def import_command() -> None:
    """Copy an older install's files (UPLOAD_DIR, REPLAY_DIR) into the store.

    Run it once after `ladder db upgrade` has moved the database to artifact keys,
    on the host that holds those folders. It verifies each bot file's sha256,
    skips what is stored already (safe to run again), deletes nothing, and exits
    1 while any file is missing or damaged.
    """
    found = Settings.from_env()
    engine = make_engine(found.database_url)
    try:
        with Session(engine) as session:
            store = artifacts.store(found, session)
            report = import_files(session, store, found.upload_dir, found.replay_dir)
    finally:
        engine.dispose()
    click.echo(f"into the {found.artifact_store} store:")
    click.echo("  " + report.bots.line("bot files"))
    click.echo("  " + report.replays.line("replays"))
    problems = [
        *report.bots.missing,
        *report.bots.damaged,
        *report.replays.missing,
        *report.replays.damaged,
    ]
    for problem in problems[:SHOWN]:
        click.echo(f"  not imported: {problem}", err=True)
    if len(problems) > SHOWN:
        click.echo(f"  ... and {len(problems) - SHOWN} more", err=True)
    if not report.complete:
        raise click.ClickException(
            "some files were not found or did not verify (listed above); nothing was deleted,"
            " and running the import again copies only what is still missing"
        )
