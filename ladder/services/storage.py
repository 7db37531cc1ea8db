"""Files the ladder keeps outside the database: uploaded bots and replays."""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from pathlib import Path


def _write_atomic(path: Path, data: bytes) -> None:
    """Write by rename, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def resolve(base: str | Path, relative: str) -> Path:
    """`relative` under `base`, refusing anything that climbs out."""
    root = Path(base).resolve()
    path = (root / relative).resolve()
    if not path.is_relative_to(root):
        raise ValueError(f"{relative!r} is outside {root}")
    return path


def save_bot_file(
    upload_dir: str, bot_id: int, number: int, sha256: str, kind: str, data: bytes
) -> str:
    """Store a version's file; returns its path relative to `upload_dir`.

    The hash in the name keeps two racing uploads from overwriting each other.
    """
    relative = f"{bot_id}/v{number}-{sha256[:12]}.{kind}"
    _write_atomic(resolve(upload_dir, relative), data)
    return relative


def save_replay(replay_dir: str, game: str, match_id: int, replay: dict) -> str:
    """Store a replay as gzipped JSON; returns its path relative to `replay_dir`."""
    relative = f"{game}/{match_id // 1000}/{match_id}.json.gz"
    raw = json.dumps(replay, separators=(",", ":"), sort_keys=True).encode()
    _write_atomic(resolve(replay_dir, relative), gzip.compress(raw, mtime=0))
    return relative


def load_replay(replay_dir: str, relative: str) -> dict:
    """Read a stored replay back."""
    return json.loads(gzip.decompress(resolve(replay_dir, relative).read_bytes()))
