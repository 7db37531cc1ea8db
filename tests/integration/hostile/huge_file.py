"""Hostile: fills the disk, first where it should not write, then its /tmp (expect: killed)."""

import sys

for target in (
    "/stolen",
    "/bot/stolen",
    "/sdk/stolen",
    "/usr/stolen",
    "/dev/stolen",
    "/dev/shm/stolen",
    "@@HOST_DIR@@/stolen",
):
    try:
        with open(target, "wb") as handle:
            handle.write(b"x")
        print(f"WROTE {target}", file=sys.stderr, flush=True)
    except OSError:
        print(f"DENIED {target}", file=sys.stderr, flush=True)


def act(view, legal):
    chunk = b"x" * (1 << 20)
    with open("/tmp/huge", "wb") as handle:
        while True:
            handle.write(chunk)
            handle.flush()
