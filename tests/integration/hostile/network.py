"""Hostile: connects to a server on the host's loopback, like Redis (expect: ok, no connection)."""

import socket
import sys

PORT = int("@@PORT@@")

for host in ("127.0.0.1", "::1", "localhost"):
    try:
        socket.create_connection((host, PORT), timeout=1).close()
        print(f"CONNECTED {host}", file=sys.stderr, flush=True)
    except OSError as exc:
        print(f"BLOCKED {host}: {exc}", file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]
