"""What the benchmarks run against: a fresh database of either kind, always cleaned up.

A benchmark's figures should not depend on what else the machine holds, so each
run gets its own SQLite file or its own private PostgreSQL cluster (from
`tests/pgcluster.py`: Unix socket only, no TCP, data thrown away), and
everything is removed at the end, on Ctrl-C, SIGTERM or an error alike.
"""

from __future__ import annotations

import contextlib
import math
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

DATABASES = ("sqlite", "postgresql")


@contextlib.contextmanager
def databases(kind: str, folder: Path) -> Iterator[Callable[[str], str]]:
    """Yields `new(name) -> url`, a fresh empty database per call, on one server.

    SQLite: a file under `folder`. PostgreSQL: one private cluster for the
    whole block (so its start-up is paid once), stopped and removed on leaving.
    """
    if kind == "sqlite":
        yield lambda name: f"sqlite:///{folder / f'{name}.sqlite3'}"
        return
    if kind != "postgresql":
        raise ValueError(f"unknown database kind {kind!r}; expected one of {DATABASES}")
    from tests.pgcluster import start_cluster

    cluster = start_cluster()
    try:
        yield cluster.create_database
    finally:
        cluster.stop()


def stop_cleanly_on_sigterm() -> None:
    """Make SIGTERM unwind like Ctrl-C, so every `finally` stops what it started."""

    def _exit(signo: int, _frame) -> None:
        raise SystemExit(128 + signo)

    signal.signal(signal.SIGTERM, _exit)


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (`fraction` 0.95 is p95): a value that was measured."""
    ordered = sorted(values)
    rank = math.ceil(round(len(ordered) * fraction, 6))  # round: 20 * 0.95 is not quite 19
    return ordered[max(1, rank) - 1]
