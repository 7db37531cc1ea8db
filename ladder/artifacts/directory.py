"""The artifact store for those who prefer files: one file per key under a root folder.

Every host that reads or writes artifacts must see the same folder (a shared
mount). Writes go to a temporary file that is renamed into place, so a reader
sees the old bytes or the new, never half; keys cannot climb out of the root.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ladder.artifacts.interface import ArtifactMissing, check_key


class DirectoryStore:
    """Artifacts as files: key `replays/manila/7.json.gz` is `root/replays/manila/7.json.gz`."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        """The file of `key`; a ValueError for a key that would leave the root."""
        path = self.root / check_key(key)
        # The key rules already forbid "..": this also catches a symlinked folder.
        if self.root.exists() and not path.resolve().is_relative_to(self.root.resolve()):
            raise ValueError(f"{key!r} leads outside {self.root}")
        return path

    def put(self, key: str, data: bytes) -> None:
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Temporary names start with a dot: no key can name one.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def get(self, key: str) -> bytes:
        try:
            return self.path(key).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            raise ArtifactMissing(key) from None

    def exists(self, key: str) -> bool:
        return self.path(key).is_file()

    def size(self, key: str) -> int | None:
        path = self.path(key)
        return path.stat().st_size if path.is_file() else None

    def delete(self, key: str) -> bool:
        path = self.path(key)
        if not path.is_file():
            return False
        try:
            path.unlink()
        except FileNotFoundError:  # deleted by someone else just now
            return False
        return True

    def stored_bytes(self, keys: Sequence[str]) -> int:
        return sum(self.size(key) or 0 for key in keys)

    def delete_many(self, keys: Sequence[str]) -> int:
        freed = 0
        for key in keys:
            size = self.size(key) or 0
            if self.delete(key):
                freed += size
        return freed
