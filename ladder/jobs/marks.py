"""Marks beside the messages sent: which queued work has a message in the broker.

A message can be lost without anyone noticing: Redis restarts empty, or a worker
dies holding a message it took but had not started. The sweep cannot read the
broker's queues to find out, so each message sent leaves a mark in the same Redis
(`broker.announced_key`), and the task that takes the message removes it before
it starts the work. Queued work without a mark has no message known to be
waiting: the sweep sends one again. So a Redis that restarted empty (marks gone
with the messages) and a worker that died between taking a message and claiming
its work both cost one scheduler round, not a timeout. A mark expires after
REQUEUE_AFTER_S, for a message lost any other way; work that waits longer than
that in a long queue gets one spare message per REQUEUE_AFTER_S, which its
claim (`matches.start_match`) turns into a no-op.
"""

from __future__ import annotations

from collections.abc import Iterable

from ladder.broker import store as broker

# Work kinds whose marks are one: a match has one message at a time, whichever queue.
MARK_KIND = {
    "validate": "validate",
    "match": "match",
    "tournament": "match",
    "challenge": "match",
    "test": "match",
    "table": "table",  # id = LiveTable.id, not a match's
}
CHUNK = 1000  # ids per MGET: one round trip each, never one huge reply


class Marks:
    """Set and read the marks of sent messages, each living `ttl_s` seconds."""

    def __init__(self, client: broker.Client, ttl_s: int) -> None:
        self.client = client
        self.ttl_s = max(int(ttl_s), 1)

    def mark(self, kind: str, ident: int) -> None:
        self.client.set(broker.announced_key(MARK_KIND[kind], ident), b"1", ex=self.ttl_s)

    def unmark(self, kind: str, ident: int) -> None:
        """The message was taken: from now on the work itself (its state, its lease) tells."""
        self.client.delete(broker.announced_key(MARK_KIND[kind], ident))

    def unmarked(self, kind: str, ids: Iterable[int]) -> list[int]:
        """The ids among `ids` whose work has no live mark (no message known to wait)."""
        ids = list(ids)
        missing = []
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start : start + CHUNK]
            keys = [broker.announced_key(MARK_KIND[kind], ident) for ident in chunk]
            values = self.client.mget(keys)
            missing += [ident for ident, value in zip(chunk, values, strict=True) if value is None]
        return missing
