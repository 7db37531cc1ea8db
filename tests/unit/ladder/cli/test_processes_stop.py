"""`ladder run` stops what uses Redis before Redis itself (no errors at Ctrl-C)."""

from __future__ import annotations

import subprocess
import sys
import time

from ladder.cli.processes import stop

# Writes when it got SIGTERM ("term"), then, a moment later, that it ended ("end").
RECORDER = """
import signal, sys, time
def on_term(*_):
    print("term", time.monotonic(), flush=True)
    time.sleep(float(sys.argv[1]))
    print("end", time.monotonic(), flush=True)
    sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
print("ready", flush=True)
while True:
    time.sleep(1)
"""


def recorder(linger_s: float) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", RECORDER, str(linger_s)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout.readline().strip() == "ready"
    return proc


def events(proc: subprocess.Popen) -> dict[str, float]:
    with proc.stdout:
        return {kind: float(at) for kind, at in (line.split() for line in proc.stdout)}


def test_redis_gets_its_sigterm_only_after_the_workers_have_ended():
    procs = {"redis": recorder(0.0), "worker": recorder(0.3), "beat": recorder(0.1)}
    began = time.monotonic()
    stop(procs)
    seen = {name: events(proc) for name, proc in procs.items()}
    assert all(proc.returncode == 0 for proc in procs.values())
    assert seen["redis"]["term"] >= max(seen["worker"]["end"], seen["beat"]["end"])
    assert time.monotonic() - began < 5
