"""What the ladder keeps in the artifact store, and under which keys.

Bot files are content-addressed (`bots/<sha256>.<kind>`): identical uploads share
one artifact, and a worker caches them by the same hash. A replay is kept as
gzipped compact JSON under `replays/<game>/<match id>.json.gz`, the bytes the
download serves as they are. (Migration d41c7e2b9f58 writes the same keys in SQL.)
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from datetime import datetime
from typing import Protocol

from ladder.artifacts import ArtifactStore

BOT_KINDS = ("py", "zip")


def bot_key(sha256: str, kind: str) -> str:
    if kind not in BOT_KINDS:
        raise ValueError(f"a bot file is .py or .zip, not {kind!r}")
    return f"bots/{sha256}.{kind}"


def replay_key(game: str, match_id: int) -> str:
    return f"replays/{game}/{match_id}.json.gz"


def save_bot_file(store: ArtifactStore, sha256: str, kind: str, data: bytes) -> str:
    """Keep a bot file (once per content); returns its key."""
    key = bot_key(sha256, kind)
    if not store.exists(key):
        store.put(key, data)
    return key


def encode_replay(replay: Mapping) -> bytes:
    """A replay as stored: compact, sorted JSON, gzipped without a timestamp."""
    raw = json.dumps(replay, separators=(",", ":"), sort_keys=True).encode()
    return gzip.compress(raw, mtime=0)


def save_replay(store: ArtifactStore, game: str, match_id: int, replay: Mapping) -> str:
    """Keep a match's replay; returns its key."""
    key = replay_key(game, match_id)
    store.put(key, encode_replay(replay))
    return key


def load_replay(store: ArtifactStore, key: str) -> dict:
    """A stored replay's record (ArtifactMissing if it is not there)."""
    return json.loads(gzip.decompress(store.get(key)))


class _Pruned(Protocol):
    id: int
    replay_pruned_at: datetime | None


def replay_expired(match: _Pruned, keep_days: int) -> str | None:
    """Why `match` has no replay if the retention policy dropped it (`services.retention`),
    in words for a page, an API error and `ladder replay`; None while it is kept.

    The one test of "expired": the match page, the downloads and the viewer ask here."""
    when = match.replay_pruned_at
    if when is None:
        return None
    return (
        f"The replay of match {match.id} expired on {when:%Y-%m-%d}"
        f" (replays of ladder matches are kept {keep_days} days);"
        " its result, seats and ratings are kept."
    )
