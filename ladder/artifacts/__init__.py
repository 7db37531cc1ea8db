"""Artifacts: uploaded bot files and replays, kept by key in one store every host reaches.

Callers get a store from `store(settings, session)` and use only the
`ArtifactStore` protocol (put, get, exists, size, delete); which backend answers
is the ARTIFACT_STORE setting:

- `database` (default): `blobs` rows in the caller's session (`database.py`), so a
  worker host needs only DATABASE_URL and REDIS_URL, and a write is part of the
  caller's transaction;
- `directory`: files under ARTIFACT_DIR (`directory.py`), a folder every host shares.

An object store would be one more module and one more branch in `store`; callers
would not change. What keys look like is the callers' business
(`ladder.services.storage`); `legacy.py` copies the files of older installs in.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from ladder.artifacts.database import DatabaseStore
from ladder.artifacts.directory import DirectoryStore
from ladder.artifacts.interface import ArtifactMissing, ArtifactStore, check_key
from ladder.settings import ARTIFACT_STORES, Settings

__all__ = [
    "ARTIFACT_STORES",
    "ArtifactMissing",
    "ArtifactStore",
    "DatabaseStore",
    "DirectoryStore",
    "check_key",
    "store",
]


def store(settings: Settings, session: Session | None = None) -> ArtifactStore:
    """The store the settings name. The database store works in `session` (required then)."""
    kind = settings.artifact_store
    if kind == "database":
        if session is None:
            raise ValueError("the database artifact store needs a session")
        return DatabaseStore(session)
    if kind == "directory":
        return DirectoryStore(settings.artifact_dir)
    allowed = " or ".join(repr(k) for k in ARTIFACT_STORES)
    raise ValueError(f"ARTIFACT_STORE must be {allowed}, not {kind!r}")
