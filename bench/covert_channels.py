"""What the channels between seats that cannot be closed outright carry, in bits per move.

Run by hand: `.venv/bin/python bench/covert_channels.py [--matches N]`.

1. Think time. A sender seat chooses how long to think (symbol s of K, s·Δ ms);
   the receiver, on its next move, reads the wall clock since its own last
   reply. The runner hides nothing here: a seat's thinking time is part of
   any timed game. Measured end to end through the real sandbox, for several
   Δ: the mutual information between symbol and decoded symbol, per sender
   move (plug-in estimate from the confusion counts).
2. Negative directory entries. A name looked up once and not found is
   remembered by the kernel, per folder, and the next lookup is faster. A
   sender seat looks up half of 4,000 fresh names in the standard library's
   folder; the receiver seat, in its own sandbox, times the first lookup of
   every name. Reported: the best threshold's error rate (0.5 is no
   information), the bits a probe carries, and what a seat could send in one
   move of `move_ms` spent probing. Each slot has folders of its own
   (`workers.runtime_files.build_tree`), so this should be nothing.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workers.limits import Limits
from workers.match import run_match
from workers.runtime_files import interpreter_paths
from workers.sandbox import sandbox_python

THINK_BOT = """
import os, sys, time
K, STEP_MS = {k}, {step}
LAST = [None]
ROLE = [None]
def setup(info):
    ROLE[0] = info["seat"]
def act(view, legal):
    now = time.monotonic_ns()
    if ROLE[0] == 0:
        symbol = os.urandom(1)[0] % K
        print(f"SENT {{now}} {{symbol}}", file=sys.stderr)
        end = now + symbol * STEP_MS * 1_000_000
        while time.monotonic_ns() < end:
            pass
    elif ROLE[0] == 1 and LAST[0] is not None:
        print(f"SEEN {{LAST[0]}} {{now}}", file=sys.stderr)
    LAST[0] = time.monotonic_ns()
    return legal[0]
"""

DENTRY_BOT = """
import os, sys, time
FOLDER, TAG = {folder!r}, {tag!r}
N = 4000
NAMES = [f"{{FOLDER}}/tw-{{TAG}}-{{i}}" for i in range(N)]
def stat_ns(path):
    began = time.perf_counter_ns()
    try:
        os.stat(path)
    except FileNotFoundError:
        pass
    return time.perf_counter_ns() - began
def setup(info):
    if info["seat"] == 0:  # the sender, started first: half the names looked up once
        for path in NAMES[::2]:
            stat_ns(path)
    elif info["seat"] == 1:  # the receiver, in another sandbox: the first lookup of each
        for i, path in enumerate(NAMES):
            print(f"PROBE {{i % 2 == 0:d}} {{stat_ns(path)}}", file=sys.stderr)
def act(view, legal):
    return legal[0]
"""


def mutual_information(pairs: list[tuple[int, int]]) -> float:
    """Plug-in mutual information in bits between the two sides of `pairs`."""
    joint = Counter(pairs)
    xs = Counter(x for x, _ in pairs)
    ys = Counter(y for _, y in pairs)
    n = len(pairs)
    return sum(c / n * math.log2(c * n / (xs[x] * ys[y])) for (x, y), c in joint.items())


def think_time(step_ms: float, k: int, matches: int, folder: Path) -> tuple[float, int, float]:
    """Bits per sender move (plug-in mutual information), moves paired, share decoded exactly."""
    bot = folder / f"think-{step_ms}.py"
    bot.write_text(THINK_BOT.format(k=k, step=step_ms))
    pairs: list[tuple[int, int]] = []
    limits = Limits(stderr_tail_kb=1024)
    for seed in range(matches):
        out = run_match(
            "manila", [str(bot), str(bot), "manila/random"], seed=seed, limits=limits
        ).to_dict()
        sent = [
            tuple(map(int, m)) for m in re.findall(r"^SENT (\d+) (\d+)$", out["stderr"][0], re.M)
        ]
        seen = [
            tuple(map(int, m)) for m in re.findall(r"^SEEN (\d+) (\d+)$", out["stderr"][1], re.M)
        ]
        gaps = []
        for since, now in seen:
            between = [s for t, s in sent if since < t < now]
            if len(between) == 1:  # exactly one sender move between two of the receiver's
                gaps.append((between[0], (now - since) / 1e6))
        if not gaps:
            continue
        floor = min(gap for _s, gap in gaps)
        pairs += [(s, max(0, round((gap - floor) / step_ms))) for s, gap in gaps]
    if not pairs:
        return 0.0, 0, 0.0
    exact = sum(sent == read for sent, read in pairs) / len(pairs)
    return mutual_information(pairs), len(pairs), exact


def dentries(folder: str, move_ms: int, workdir: Path) -> dict:
    bot = workdir / "dentry.py"
    bot.write_text(DENTRY_BOT.format(folder=folder, tag=os.urandom(6).hex()))
    seats = [str(bot), str(bot), "manila/random"]
    out = run_match("manila", seats, seed=1, limits=Limits(stderr_tail_kb=1024)).to_dict()
    probes = [
        (int(a), int(b)) for a, b in re.findall(r"^PROBE (\d) (\d+)$", out["stderr"][1], re.M)
    ]
    best = (1.0, 0)
    for threshold in sorted({t for _bit, t in probes}):
        wrong = sum((t < threshold) != bool(bit) for bit, t in probes) / len(probes)
        best = min(best, (wrong, threshold))
    error = min(best[0], 0.5)
    capacity = (
        1.0 if error == 0 else 1 + error * math.log2(error) + (1 - error) * math.log2(1 - error)
    )
    mean_ns = sum(t for _b, t in probes) / len(probes)
    # Each bit costs the sender one lookup and the receiver one: both inside their moves.
    per_move = capacity * move_ms * 1e6 / mean_ns
    return {
        "probes": len(probes),
        "error": best[0],
        "threshold_ns": best[1],
        "capacity_per_probe": capacity,
        "mean_ns": mean_ns,
        "bits_per_move": per_move,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--symbols", type=int, default=16)
    args = parser.parse_args()
    limits = Limits()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"think time, {args.symbols} symbols, {args.matches} Manila matches each:")
        for step in (0.25, 0.5, 1.0, 2.0, 5.0):
            bits, n, exact = think_time(step, args.symbols, args.matches, folder)
            print(
                f"  step {step:>4} ms: {bits:.2f} bits per sender move, {exact:.0%} decoded"
                f" exactly ({n} moves paired; few moves overstate the bits)"
            )
        print(
            f"  (at most log2(move_ms / step): {math.log2(limits.move_ms / 0.25):.1f} bits"
            f" a move at move_ms={limits.move_ms}, 0.25 ms steps)"
        )
        stdlib = interpreter_paths(sandbox_python())[0]  # a folder every sandbox binds
        found = dentries(stdlib, limits.move_ms, folder)
        print("negative directory entries, first lookups in a shared folder:")
        print(
            f"  {found['probes']} probes, best threshold {found['threshold_ns']} ns,"
            f" error {found['error']:.3f}, {found['capacity_per_probe']:.3f} bits a probe,"
            f" {found['mean_ns']:.0f} ns a probe"
        )
        print(
            f"  at best {found['bits_per_move']:.0f} bits in a {limits.move_ms} ms move"
            " spent probing"
        )


if __name__ == "__main__":
    main()
