"""The `ladder` command imports a subcommand's module only when it runs: `ladder play`
and `ladder --help` start without Flask, SQLAlchemy or Alembic (`ladder/cli/lazy.py`)."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from ladder.cli import LAZY_COMMANDS, main
from ladder.cli.lazy import LazyGroup

HEAVY = ("flask", "sqlalchemy", "alembic", "celery")


def modules_after(args: list[str]) -> set[str]:
    """The modules a fresh interpreter has loaded once `ladder ARGS` ran."""
    code = (
        "import json, sys\n"
        "from ladder.cli import main\n"
        f"try:\n    main({args!r})\n"
        "except SystemExit:\n    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_play_starts_without_the_web_and_database_stack():
    loaded = modules_after(["play", "--help"])
    assert "ladder.cli" in loaded and "engine" in loaded
    assert not {name.split(".")[0] for name in loaded} & set(HEAVY), sorted(
        name for name in loaded if name.split(".")[0] in HEAVY
    )[:5]


def test_help_lists_every_command_without_the_web_and_database_stack():
    loaded = modules_after(["--help"])
    assert not {name.split(".")[0] for name in loaded} & set(HEAVY), sorted(
        name for name in loaded if name.split(".")[0] in HEAVY
    )[:5]
    assert not any(path.split(":")[0] in loaded for path, _summary in LAZY_COMMANDS.values())


@pytest.mark.parametrize("name", sorted(LAZY_COMMANDS))
def test_a_lazy_commands_summary_is_its_own(name):
    """The table's summary, listed by `ladder --help`, is what the command itself says."""
    path, summary = LAZY_COMMANDS[name]
    command = LazyGroup("g", lazy_commands={name: (path, summary)}).get_command(
        click.Context(main), name
    )
    assert command is not None
    assert click.Command(name, help=summary).get_short_help_str(500) == command.get_short_help_str(
        500
    )


def test_a_lazy_group_is_loaded_when_it_runs():
    loaded = modules_after(["db", "--help"])
    assert "ladder.cli.db" in loaded and "alembic" in loaded


def test_help_lists_every_command_with_its_summary():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    for name in [*LAZY_COMMANDS, "play", "run", "worker", "beat", "demo"]:
        assert f"\n  {name} " in result.output, name
    assert "Run Celery beat" in result.output


def test_tournament_holds_the_local_run_and_the_service_commands():
    result = CliRunner().invoke(main, ["tournament", "--help"])
    assert result.exit_code == 0, result.output
    for name in ("run", "create", "open", "start", "status"):
        assert f"\n  {name} " in result.output, name


def test_an_entry_that_is_no_command_is_refused_by_name():
    group = LazyGroup("g", lazy_commands={"oops": ("ladder.cli.lazy:LazyGroup", "Not one.")})
    with pytest.raises(TypeError, match=r"ladder\.cli\.lazy:LazyGroup is not a click command"):
        group.get_command(click.Context(group), "oops")


def test_a_lazy_command_is_imported_once():
    group = LazyGroup("g", lazy_commands={"db": LAZY_COMMANDS["db"]})
    ctx = click.Context(group)
    first = group.get_command(ctx, "db")
    assert first is not None and group.commands["db"] is first
    assert group.get_command(ctx, "db") is first


def test_an_unknown_command_is_refused_as_before():
    result = CliRunner().invoke(main, ["nonsense"])
    assert result.exit_code == 2 and "No such command 'nonsense'" in result.output
