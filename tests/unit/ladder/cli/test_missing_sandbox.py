"""The local runners on a machine without bubblewrap: one line naming the package, no traceback."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ladder.cli import main
from workers import sandbox


@pytest.mark.parametrize(
    "command",
    [
        ["play", "manila", "manila/random", "manila/random", "manila/random"],
        ["tournament", "run", "meuterer", "meuterer/random", "meuterer/greedy", "meuterer/search",
         "--format", "round-robin", "--table-size", "3"],
        ["test", "caravelas", "caravelas/random", "caravelas/greedy"],
    ],
    ids=["play", "tournament", "test"],
)  # fmt: skip
def test_without_bwrap_a_local_run_says_what_to_install(monkeypatch, command):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    done = CliRunner().invoke(main, command)
    assert done.exit_code == 1, done.output
    assert "apt install bubblewrap" in done.output
    assert isinstance(done.exception, SystemExit)  # a ClickException's exit, not a crash
    assert "Traceback" not in done.output
