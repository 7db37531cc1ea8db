"""What every artifact store is: the protocol, its one error, and the key rules.

Kept apart from the backends so they and the factory import it without a cycle.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

MAX_KEY = 200
# Lower-case path segments joined by "/", none starting with a dot: a key means the
# same to a table, a folder and an object store, and never climbs out of a root.
KEY = re.compile(r"[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*")


class ArtifactMissing(LookupError):
    """No artifact under that key (a page answers 404; a worker fails the work)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"no artifact {key!r} in the store")
        self.key = key


def check_key(key: str) -> str:
    """`key` if it is a valid artifact key, else a ValueError that says why."""
    if not isinstance(key, str) or not 0 < len(key) <= MAX_KEY or not KEY.fullmatch(key):
        raise ValueError(
            f"{key!r} is not an artifact key: lower-case segments of a-z, 0-9, '.', '_', '-'"
            f" joined by '/', none starting with '.', at most {MAX_KEY} characters"
        )
    return key


class ArtifactStore(Protocol):
    """Bytes by key. Callers name keys (`ladder.services.storage`); a store only keeps them.

    `put` replaces what the key held. A store that works in a database session takes
    part in the caller's transaction: nothing is kept until the caller commits.
    """

    def put(self, key: str, data: bytes) -> None: ...

    def get(self, key: str) -> bytes:
        """The bytes as put; ArtifactMissing if there are none."""
        ...

    def exists(self, key: str) -> bool: ...

    def size(self, key: str) -> int | None:
        """The length of the bytes as put; None if there are none."""
        ...

    def delete(self, key: str) -> bool:
        """Forget the key; False if it held nothing."""
        ...

    def stored_bytes(self, keys: Sequence[str]) -> int:
        """The bytes the keys take in the store (after any compression); 0 for none held."""
        ...

    def delete_many(self, keys: Sequence[str]) -> int:
        """Forget the keys at once (keys that hold nothing are skipped); the bytes freed."""
        ...
