"""Helpers shared by the integration tests of the `ladder` command (fixtures live in
conftest.py, the live ladder in live.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# The console script installed beside this interpreter, as a user runs it.
LADDER = str(Path(sys.executable).parent / "ladder")


def ladder(*args: str) -> subprocess.CompletedProcess:
    """Run `ladder ARGS...` to the end (two minutes at most), its output captured as text."""
    return subprocess.run([LADDER, *args], capture_output=True, text=True, timeout=120)
