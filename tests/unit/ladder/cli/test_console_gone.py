"""`ladder run`'s console lines when the console is gone: no exception, nothing lost but them."""

from __future__ import annotations

import subprocess
import sys

import pytest

# Prints through a pipe whose reader has gone, as `make run | tee` after Ctrl-C ended
# tee; then writes to the file named by argv[2] that it got to its end.
GONE = """
import os, sys
from pathlib import Path
from ladder.cli.processes import say
read, write = os.pipe()
os.close(read)
os.dup2(write, sys.stdout.fileno())
if sys.argv[1] == "both":
    os.dup2(write, sys.stderr.fileno())
os.close(write)
say("first line")
say("an alarm", err=True)
say("stopped")
Path(sys.argv[2]).write_text("reached the end")
"""


@pytest.mark.parametrize("gone", ["stdout", "both"])
def test_a_closed_console_neither_raises_nor_complains_at_exit(tmp_path, gone):
    mark = tmp_path / "end"
    done = subprocess.run(
        [sys.executable, "-c", GONE, gone, str(mark)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert mark.exists() and mark.read_text() == "reached the end", done.stderr
    assert done.returncode == 0, done.stderr
    if gone == "stdout":
        # The alarm still reaches a live stderr, and the exit flush is silent.
        assert done.stderr == "an alarm\n"
