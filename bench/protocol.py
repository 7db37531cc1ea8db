"""Sandbox and protocol cost: the three figures the match runner promises.

Run by hand: `.venv/bin/python bench/protocol.py [--decisions N] [--starts N] [--matches N]`.

1. Overhead per decision through the sandbox (SDK, bwrap, pause/resume per
   move) against a raw JSON-lines echo over a pipe, measured in the same run
   with the same interpreter and message. Target: at most 2x.
2. Sandboxed bot start (launch to `ready`, a minimal bot that imports
   nothing) against a bare `python3 -c pass` in the same run. Target: at most
   1.5x. What a bot imports itself is its own start-up time. Shown twice: in
   a warm slot (the zygote forks the bot: every match but a worker's first)
   and in a new slot (bwrap and the zygote start first). Beside it, in the
   same run, a bot that imports the engine (the zygote has it loaded: target
   a few ms over the minimal bot) and one that imports numpy, and the memory
   of one zygote (what every sandbox slot holds between matches).
3. A 4-player Manila match between house `random` bots, end to end in the
   sandbox (launch, every decision, teardown). Target: under 0.5 s.
4. The CPU such a match costs the whole machine (runner, bots, sandboxes and
   the kernel, from /proc/stat), which is what bounds a loaded worker's
   matches per minute. Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from workers import protocol
from workers.limits import Limits
from workers.match import run_match
from workers.pool import SlotPool, pool
from workers.sandbox import numpy_dir, runtime
from workers.slots import Slot
from workers.staging import BotSource, resolve

MINIMAL_BOT = "def act(view, legal):\n    return legal[0]\n"
ENGINE_BOT = "import engine\n\nGAME = engine.get_game('manila')\n\n" + MINIMAL_BOT
NUMPY_BOT = "import numpy\n\nZERO = numpy.zeros(4)\n\n" + MINIMAL_BOT

ECHO = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    sys.stdout.write(json.dumps({'type': 'action', 'action': m['legal'][0]}) + '\\n')\n"
    "    sys.stdout.flush()\n"
)


def sample_message() -> bytes:
    """A real `act` message: seat 0's view and legal actions early in a Manila game."""
    state = engine.get_game("manila").new_game(4, seed=3)
    for _ in range(12):
        state.apply(state.legal_actions()[0])
    seat = state.current_player()
    return protocol.act(state.view(seat), state.legal_actions(), 11_000)


def raw_echo_us(python: str, message: bytes, n: int) -> float:
    """Microseconds per round trip to an unsandboxed echo process over a pipe."""
    proc = subprocess.Popen(
        [python, "-I", "-S", "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        for _ in range(50):  # warm up
            proc.stdin.write(message)
            proc.stdin.flush()
            proc.stdout.readline()
        began = time.perf_counter()
        for _ in range(n):
            proc.stdin.write(message)
            proc.stdin.flush()
            json.loads(proc.stdout.readline())
        return (time.perf_counter() - began) / n * 1e6
    finally:
        proc.kill()
        proc.wait()


def sandboxed_us(slot: Slot, message: bytes, n: int) -> float:
    """Microseconds per decision through the sandbox, pausing the bot between moves."""
    legal = json.loads(message)["legal"]
    limits = Limits()
    slot.stage(resolve("manila/random"))
    bot = slot.spawn(limits)
    try:
        bot.send(protocol.start("manila", 0, 4, {}, limits.wire()))
        protocol.ready(bot.read_line(10))
        bot.pause()

        def decide() -> None:
            # The worst case: paused between every decision, as when seats alternate.
            protocol.action(bot.ask(message, 5)[0], legal)
            bot.pause()

        for _ in range(50):
            decide()
        began = time.perf_counter()
        for _ in range(n):
            decide()
        return (time.perf_counter() - began) / n * 1e6
    finally:
        bot.kill()


def bare_start_ms(python: str) -> float:
    began = time.perf_counter()
    subprocess.run([python, "-c", "pass"], check=True)
    return (time.perf_counter() - began) * 1000


def sandbox_start_ms(slots: SlotPool, minimal: BotSource, new_slot: bool) -> float:
    """Launch to `ready` of a minimal bot, in a warm slot or in one started for it."""
    limits = Limits()
    began = time.perf_counter()
    if new_slot:
        slots.close()  # the next lease starts a new sandbox
        slots = pool(runtime())
        began = time.perf_counter()
    with slots.lease(1) as [slot]:
        slot.stage(minimal)
        bot = slot.spawn(limits)
        try:
            bot.send(protocol.start("manila", 0, 4, {}, limits.wire()))
            protocol.ready(bot.read_line(10))
            return (time.perf_counter() - began) * 1000
        finally:
            bot.kill()


def zygote_memory_mib(slots: SlotPool) -> tuple[float, float]:
    """(resident, virtual) MiB of one warm slot's zygote, which every bot it forks inherits."""
    with slots.lease(1) as [slot]:
        status = Path(f"/proc/{slot.zygote}/status").read_text()
    sizes = {line.split(":")[0]: int(line.split()[1]) for line in status.splitlines()[1:]
             if line.endswith(" kB")}  # fmt: skip
    return sizes["VmRSS"] / 1024, sizes["VmSize"] / 1024


def bot_source(label: str, code: str) -> BotSource:
    source = BotSource(label, Path(tempfile.mkdtemp()) / f"{label}.py")
    source.path.write_text(code)
    return source


def match_s(seed: int) -> float:
    began = time.perf_counter()
    out = run_match("manila", ["manila/random"] * 4, seed=seed).to_dict()
    assert out["statuses"] == ["ok"] * 4, out["errors"]
    return time.perf_counter() - began


def machine_cpu_ms(matches: int) -> tuple[float, float]:
    """(CPU ms of the whole machine, wall ms) per 4-player Manila match of random bots."""

    def busy() -> float:
        with open("/proc/stat") as handle:
            ticks = [int(x) for x in handle.readline().split()[1:]]
        return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")

    match_s(0)  # the sandboxes start outside the measure, as in a running worker
    cpu, began = busy(), time.perf_counter()
    for seed in range(matches):
        match_s(seed)
    wall = time.perf_counter() - began
    return (busy() - cpu) / matches * 1000, wall / matches * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--decisions", type=int, default=3000)
    parser.add_argument("--starts", type=int, default=30)
    parser.add_argument("--matches", type=int, default=10)
    args = parser.parse_args()
    rt = runtime()
    message = sample_message()
    print(f"sandbox: {rt.bwrap} (unprivileged outer uid: {rt.unprivileged}), python {rt.python}")
    print(f"act message: {len(message)} bytes")
    slots = pool(rt)
    with slots.lease(1) as [slot]:
        # Interleaved, three of each, medians: the machine's load drifts.
        raws, boxes = [], []
        for _ in range(3):
            raws.append(raw_echo_us(rt.python, message, args.decisions))
            boxes.append(sandboxed_us(slot, message, args.decisions))
    raw, boxed = statistics.median(raws), statistics.median(boxes)
    print(f"1. per decision: raw echo {raw:.1f} us, sandboxed {boxed:.1f} us,"
          f" ratio {boxed / raw:.2f}x (target <= 2x)")  # fmt: skip
    minimal = bot_source("minimal", MINIMAL_BOT)
    importing = {"engine": bot_source("engine", ENGINE_BOT)}
    if numpy_dir(rt.python) is not None:
        importing["numpy"] = bot_source("numpy", NUMPY_BOT)
    bare, warm, new = [], [], []
    imports: dict[str, list[float]] = {name: [] for name in importing}
    for _ in range(args.starts):
        bare.append(bare_start_ms(rt.python))
        warm.append(sandbox_start_ms(slots, minimal, new_slot=False))
        for name, source in importing.items():
            imports[name].append(sandbox_start_ms(slots, source, new_slot=False))
    b, w = statistics.median(bare), statistics.median(warm)
    for _ in range(args.starts):
        new.append(sandbox_start_ms(pool(rt), minimal, new_slot=True))
    n = statistics.median(new)
    print(f"2. start: bare python3 -c pass {b:.1f} ms; sandboxed bot to ready:"
          f" warm slot {w:.1f} ms ({w / b:.2f}x), new slot {n:.1f} ms ({n / b:.2f}x)"
          " (target <= 1.5x)")  # fmt: skip
    for name, times in imports.items():
        m = statistics.median(times)
        print(f"   a bot importing {name}, warm slot: {m:.1f} ms ({m - w:+.1f} ms)")
    rss, size = zygote_memory_mib(pool(rt))
    print(f"   a zygote holds {rss:.1f} MiB resident, {size:.1f} MiB of address space")
    times = [match_s(seed) for seed in range(1, args.matches + 1)]
    median = statistics.median(times)
    print(f"3. 4-player Manila, house random bots, sandboxed: median {median:.3f} s,"
          f" max {max(times):.3f} s over {args.matches} matches (target < 0.5 s)")  # fmt: skip
    cpu, wall = machine_cpu_ms(10 * args.matches)
    print(f"4. the same match costs the machine {cpu:.1f} ms of CPU ({wall:.1f} ms wall)")


if __name__ == "__main__":
    main()
