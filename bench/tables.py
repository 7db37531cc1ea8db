"""Live tables (workers.table): what a person waits for, and what a waiting table holds.

Run by hand: `.venv/bin/python bench/tables.py [--tables N] [--memory-at K]`.

1. Runner latency through the real sandbox: from the moment a person's answer
   returns from `ask_human` to the moment the next decision of theirs is asked,
   with house `random` bots in the other seats of a 4-seat table (their own
   thinking is next to nothing, so the gap is almost all runner: applying the
   move, `on_step`, resuming, asking and pausing each bot in turn). Beside it the
   same gap split into the runner's work per human move (answer returned to its
   `on_step`) and per bot move (one bot step, less the bot's own decision_ms).
   `on_step` and `ask_human` do nothing here: the ladder's Redis and database
   round trips come on top (bench/web.py measures those).
2. Memory per live table, while it waits on a person (every bot paused): the
   resident memory of the runner and of every process of its three bots'
   sandboxes (bwrap, zygote, bot), and the sum of their PSS (shared pages split
   between the processes that map them) where /proc/<pid>/smaps_rollup is
   readable; for each game at 4 seats with 3 house bots (`random` and `greedy`);
   and how many such tables fit in a GiB (one runner process per table). The
   anonymous + shmem part of the PSS is what one more table adds (the file
   pages, the runtime above all, are shared by every table of the host).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from workers.pool import pool
from workers.procfs import descendants
from workers.sandbox import runtime
from workers.table import Move, Resign, run_table

GIB = 1 << 30


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


class Timed:
    """A person who answers at once (the first legal move) and the runner's clock around
    them: each answer's return, each next ask, each step."""

    def __init__(self) -> None:
        self.answered: float | None = None
        self.gaps: list[tuple[float, int]] = []  # (ms answer -> next ask, bot moves between)
        self.human_ms: list[float] = []  # answer returned -> its on_step
        self.steps: list[tuple[float, str, int]] = []  # (on_step time, by, seat)
        self.bots_between = 0

    def ask(self, seat: int, view: dict, legal: list[dict], time_left_ms: int) -> Move:
        now = time.perf_counter()
        if self.answered is not None:
            self.gaps.append(((now - self.answered) * 1000, self.bots_between))
        self.bots_between = 0
        self.answered = time.perf_counter()
        return Move(legal[0])

    def step(self, step: int, seat: int, action: dict, by: str) -> None:
        now = time.perf_counter()
        if by == "human" and self.answered is not None:
            self.human_ms.append((now - self.answered) * 1000)
        elif by == "bot":
            self.bots_between += 1
        self.steps.append((now, by, seat))


def latency(game: str, tables: int) -> None:
    gaps: list[float] = []
    humans: list[float] = []
    per_bot: dict[bool, list[float]] = {True: [], False: []}  # by: a new seat on move?
    bot_moves: list[int] = []
    bot_ms: list[float] = []
    for seed in range(tables):
        timed = Timed()
        out = run_table(game, [None, "random", "random", "random"], seed, timed.ask, timed.step)
        assert all(s == "ok" for s in out.statuses), out.errors
        # Only gaps with a bot's move in them: a person moving twice in a row waits for nobody.
        gaps += [ms for ms, n in timed.gaps if n]
        bot_moves += [n for _, n in timed.gaps if n]
        bot_ms += [ms for (_, by, _), ms in zip(timed.steps, out.replay["decision_ms"],
                   strict=True) if by == "bot"]  # fmt: skip
        humans += timed.human_ms
        decided = out.replay["decision_ms"]
        for k in range(1, len(timed.steps)):
            (before, _, was), (after, by, seat) = timed.steps[k - 1], timed.steps[k]
            if by == "bot":  # one bot step, less what the bot itself took
                per_bot[seat != was].append((after - before) * 1000 - decided[k])
    print(f"   {game}: answer -> next ask median {statistics.median(gaps):.2f} ms,"
          f" p95 {p95(gaps):.2f} ms ({len(gaps)} gaps, median"
          f" {statistics.median(bot_moves):.0f} bot moves between, each bot's decision_ms"
          f" median {statistics.median(bot_ms):.2f} ms);"
          f" per human move {statistics.median(humans):.3f} / {p95(humans):.3f} ms;"
          f" per bot move, the same bot again {statistics.median(per_bot[False]):.3f} /"
          f" {p95(per_bot[False]):.3f} ms, another seat's bot (pause one, wake the other)"
          f" {statistics.median(per_bot[True]):.3f} / {p95(per_bot[True]):.3f} ms"
          " (median / p95, the runner's part, engine included)")  # fmt: skip


def kib(pid: int, name: str, field: str) -> int | None:
    """A `field: N kB` line of /proc/<pid>/<name>, in KiB; None if unreadable."""
    try:
        text = Path(f"/proc/{pid}/{name}").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return None


def table_memory(game: str, bot: str, at: int) -> dict:
    """One table of `game` with 3 `bot`s, measured at the person's `at`-th decision (every
    bot paused): processes, and MiB of RSS, PSS and anonymous + shmem PSS (None where
    smaps_rollup is unreadable), summed over the runner and its sandboxes."""
    seen: list[dict] = []
    asked = [0]

    def ask(seat: int, view: dict, legal: list[dict], time_left_ms: int) -> Move | Resign:
        asked[0] += 1
        if asked[0] < at:
            return Move(legal[0])
        pids = [os.getpid(), *descendants(os.getpid())]

        def total(name: str, *fields: str) -> float | None:
            values = [kib(pid, name, field) for pid in pids for field in fields]
            return None if None in values else sum(v or 0 for v in values) / 1024

        seen.append({
            "processes": len(pids),
            "rss": total("status", "VmRSS"),
            "pss": total("smaps_rollup", "Pss"),
            "own": total("smaps_rollup", "Pss_Anon", "Pss_Shmem"),
        })  # fmt: skip
        return Resign()  # the fallback plays the rest out quickly

    run_table(game, [None, bot, bot, bot], 1, ask)
    pinned = pool(runtime()).pinned
    return {**seen[0], "pinned": (pinned.bytes if pinned else 0) / (1 << 20)}


def show(mib: float | None) -> str:
    return "?" if mib is None else f"{mib:.1f}"


def per_gib(mib: float | None) -> str:
    return "?" if not mib else f"{GIB / (mib * (1 << 20)):.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=5, help="tables per game for latency")
    parser.add_argument(
        "--memory-at", type=int, default=5, help="the person's decision to measure at"
    )
    args = parser.parse_args()
    rt = runtime()
    print(f"sandbox: {rt.bwrap} (unprivileged outer uid: {rt.unprivileged}), python {rt.python}")
    print("2. memory per live table, 4 seats (a person and 3 house bots), while it waits:")
    for game in engine.game_names():
        for bot in ("random", "greedy"):
            m = table_memory(game, bot, args.memory_at)
            print(f"   {game} with 3 {bot}: {m['processes']} processes, RSS {m['rss']:.1f},"
                  f" PSS {show(m['pss'])}, anonymous + shmem PSS {show(m['own'])} MiB;"
                  f" tables a GiB: {per_gib(m['own'])} by anonymous + shmem PSS,"
                  f" {per_gib(m['pss'])} by PSS, {per_gib(m['rss'])} by RSS")  # fmt: skip
    print(
        f"   (the runner maps and pins {m['pinned']:.0f} MiB of runtime files: page cache"
        " that every table on the host shares, so one table's PSS is an upper bound)"
    )
    print(f"1. a person's answer to their next decision, 3 house random bots, {args.tables}"
          " tables a game:")  # fmt: skip
    for game in engine.game_names():
        latency(game, args.tables)


if __name__ == "__main__":
    main()
