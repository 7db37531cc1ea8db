"""Reports what it finds in its sandbox: /tmp, other processes, randomness, its CPUs."""

import contextlib
import os
import random
import signal
import sys


def setup(info):
    others = sorted(
        int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid())
    )
    print(f"TMP {sorted(os.listdir('/tmp'))}", file=sys.stderr)
    print(f"PIDS {others}", file=sys.stderr)
    print(f"RANDOM {random.random()}", file=sys.stderr)
    print(f"CPUS {sorted(os.sched_getaffinity(0))}", file=sys.stderr)
    print(f"SIGINT {signal.getsignal(signal.SIGINT).__name__}", file=sys.stderr)
    links = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own descriptor is closed by now
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
    sockets = [link for link in links if link.startswith("socket:")]
    print(f"SOCKETS {len(sockets)} of {len(links)} descriptors", file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]
