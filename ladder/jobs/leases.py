"""Leases in Redis: proof that a live worker is busy with a piece of work.

A worker holds a lease key (`broker.lease_key`) while it validates a version
or plays a match, refreshing it from a thread. If the worker dies (even by
SIGKILL) the key expires, and the scheduler hands the work to another worker.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Iterator

from ladder.broker import store as broker


class Leases:
    """Take, refresh and look up leases with a time-to-live of `ttl_s` seconds."""

    def __init__(self, client: broker.Client, ttl_s: int) -> None:
        self.client = client
        self.ttl_s = max(int(ttl_s), 2)
        self.owner = f"{socket.gethostname()}:{os.getpid()}"

    def held(self, kind: str, ident: int) -> bool:
        return bool(self.client.exists(broker.lease_key(kind, ident)))

    @contextlib.contextmanager
    def hold(self, kind: str, ident: int) -> Iterator[None]:
        """Hold the lease for the duration of the block, refreshed every third of its life."""
        key = broker.lease_key(kind, ident)
        self.client.set(key, self.owner, ex=self.ttl_s)
        stop = threading.Event()

        def refresh() -> None:
            while not stop.wait(self.ttl_s / 3):
                with contextlib.suppress(broker.RedisError):
                    self.client.set(key, self.owner, ex=self.ttl_s)

        thread = threading.Thread(target=refresh, name=f"lease-{kind}-{ident}", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
            with contextlib.suppress(broker.RedisError):
                self.client.delete(key)
