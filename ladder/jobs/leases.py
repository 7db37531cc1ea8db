"""Leases in Redis: proof that a live worker is busy with a piece of work.

A worker holds a lease key (`broker.lease_key`) while it validates a version
or plays a match, refreshing it from a thread. If the worker dies (even by
SIGKILL) the key expires, and the sweep hands the work to another worker.

Each hold writes a token of its own, and refreshes and removes the key only
while it is its own (or gone, as after Redis restarted empty: a live worker
takes its lease back on its next refresh). So a worker that was frozen past its
lease and then resumed never removes, nor keeps alive, the lease of the worker
that took the work over; what it then tries to record is refused by the
attempt it carries (`matches.record_match`).

A Redis that restarted empty holds no lease at all for a while: `age_s` tells
the sweep how long this Redis has been keeping them, so that it leaves running
work alone until live workers had one refresh to take their leases back.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator

from ladder.broker import store as broker

# Set the key to our token if it is ours or gone; another's is left alone.
_REFRESH = """
local held = redis.call('GET', KEYS[1])
if held == false or held == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
end
return false
"""
# Remove the key only if it is still ours.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class Leases:
    """Take, refresh and look up leases with a time-to-live of `ttl_s` seconds."""

    def __init__(self, client: broker.Client, ttl_s: int) -> None:
        self.client = client
        self.ttl_s = max(int(ttl_s), 2)
        self.owner = f"{socket.gethostname()}:{os.getpid()}"

    def held(self, kind: str, ident: int) -> bool:
        return bool(self.client.exists(broker.lease_key(kind, ident)))

    def age_s(self) -> float:
        """Seconds since this Redis first kept our keys (0 right after it restarted empty)."""
        now = time.time()
        self.client.set(broker.SINCE_KEY, repr(now), nx=True)
        since = self.client.get(broker.SINCE_KEY)
        return max(now - float(since), 0.0) if since else 0.0

    @contextlib.contextmanager
    def hold(self, kind: str, ident: int) -> Iterator[None]:
        """Hold the lease for the duration of the block, refreshed every third of its life."""
        key = broker.lease_key(kind, ident)
        token = f"{self.owner}:{secrets.token_hex(4)}"
        self.client.set(key, token, ex=self.ttl_s)
        stop = threading.Event()

        def refresh() -> None:
            while not stop.wait(self.ttl_s / 3):
                with contextlib.suppress(broker.RedisError):
                    self.client.eval(_REFRESH, 1, key, token, self.ttl_s)

        thread = threading.Thread(target=refresh, name=f"lease-{kind}-{ident}", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
            with contextlib.suppress(broker.RedisError):
                self.client.eval(_RELEASE, 1, key, token)
