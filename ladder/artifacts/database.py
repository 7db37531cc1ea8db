"""The default artifact store: rows of the `blobs` table, in the caller's session.

Because it writes in the caller's transaction, a replay is kept exactly when the
match that names it is recorded, and an upload's file exactly when its version
row is; and a worker host needs nothing but DATABASE_URL to read bot files.
Bytes that compress (Python source, plain JSON) are stored zlib-compressed; a zip
or a gzipped replay is stored as it is, since compressing it again saves nothing.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

from sqlalchemy import delete, exists, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from ladder.artifacts.interface import ArtifactMissing, check_key
from ladder.models import Blob, rows_changed, utcnow

IDENTITY, ZLIB = "identity", "zlib"
# Formats that are compressed already: gzip, and zip (local file header, empty archive).
PACKED = (b"\x1f\x8b", b"PK\x03\x04", b"PK\x05\x06")
LEVEL = 6
MIN_SAVING = 0.05  # compress only when it saves at least this share of the bytes


def encode(data: bytes) -> tuple[str, bytes]:
    """How to store `data`: (encoding, stored bytes)."""
    if not data.startswith(PACKED):
        packed = zlib.compress(data, LEVEL)
        if len(packed) <= len(data) * (1 - MIN_SAVING):
            return ZLIB, packed
    return IDENTITY, data


def decode(encoding: str, stored: bytes) -> bytes:
    if encoding == ZLIB:
        return zlib.decompress(stored)
    if encoding == IDENTITY:
        return bytes(stored)
    raise ValueError(f"unknown blob encoding {encoding!r}")


class DatabaseStore:
    """Artifacts as `blobs` rows, read and written through `session`."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def put(self, key: str, data: bytes) -> None:
        encoding, stored = encode(bytes(data))
        row = {
            "key": check_key(key),
            "data": stored,
            "encoding": encoding,
            "size": len(data),
            "stored_size": len(stored),
            "created_at": utcnow(),
        }
        self.session.execute(_upsert(self.session.get_bind().dialect.name, row))

    def get(self, key: str) -> bytes:
        found = self.session.execute(
            select(Blob.encoding, Blob.data).where(Blob.key == check_key(key))
        ).one_or_none()
        if found is None:
            raise ArtifactMissing(key)
        return decode(found.encoding, found.data)

    def exists(self, key: str) -> bool:
        return bool(self.session.scalar(select(exists().where(Blob.key == check_key(key)))))

    def size(self, key: str) -> int | None:
        return self.session.scalar(select(Blob.size).where(Blob.key == check_key(key)))

    def stored_size(self, key: str) -> int | None:
        """Bytes the row takes (after compression); None if there is none."""
        return self.session.scalar(select(Blob.stored_size).where(Blob.key == check_key(key)))

    def delete(self, key: str) -> bool:
        done = self.session.execute(
            delete(Blob)
            .where(Blob.key == check_key(key))
            .execution_options(synchronize_session=False)
        )
        return bool(rows_changed(done))

    def stored_bytes(self, keys: Sequence[str]) -> int:
        keys = [check_key(k) for k in keys]
        if not keys:
            return 0
        found = self.session.scalar(
            select(func.coalesce(func.sum(Blob.stored_size), 0)).where(Blob.key.in_(keys))
        )
        return int(found or 0)

    def delete_many(self, keys: Sequence[str]) -> int:
        """One DELETE for all the keys (a retention batch is thousands of replays)."""
        keys = [check_key(k) for k in keys]
        if not keys:
            return 0
        freed = self.session.scalars(
            delete(Blob)
            .where(Blob.key.in_(keys))
            .returning(Blob.stored_size)
            .execution_options(synchronize_session=False)
        ).all()
        return sum(freed)


def _upsert(dialect: str, row: dict):
    """INSERT that replaces an existing row: one statement, so two writers of one key
    (two uploads of the same file) never fail on the primary key."""
    stmt: postgresql.Insert | sqlite.Insert
    if dialect == "postgresql":
        stmt = postgresql.insert(Blob).values(**row)
    elif dialect == "sqlite":
        stmt = sqlite.insert(Blob).values(**row)
    else:
        raise ValueError(f"the database artifact store does not support {dialect!r} yet")
    changed = {name: stmt.excluded[name] for name in row if name != "key"}
    return stmt.on_conflict_do_update(index_elements=[Blob.key], set_=changed)
