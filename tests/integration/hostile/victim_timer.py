"""Victim: computes ~20 ms of CPU a move and compares its wall clock with its own CPU time.

After every move it writes `TIMES wall_ms cpu_ms moves` (totals so far) to
stderr; the last such line sums the match. On a fair CPU wall ≈ CPU: any
excess is time some other process took while this bot was meant to think.
"""

import sys
import time

WORK_S = 0.020
wall_total = 0.0
cpu_total = 0.0
moves = 0


def act(view, legal):
    global wall_total, cpu_total, moves
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while time.process_time() - cpu0 < WORK_S:
        sum(range(1000))
    wall_total += time.perf_counter() - wall0
    cpu_total += time.process_time() - cpu0
    moves += 1
    print(f"TIMES {wall_total * 1000:.1f} {cpu_total * 1000:.1f} {moves}", file=sys.stderr)
    sys.stderr.flush()
    return legal[0]
