"""Bring the files of an install older than the artifact store into it, once.

Before the store, uploads lived under UPLOAD_DIR and replays under REPLAY_DIR on
the web host. Migration d41c7e2b9f58 gave every row its artifact key; this copies
each row's file to that key (`ladder artifacts import`). It verifies every bot
file's sha256, skips keys already stored (so it may run again at any time),
reports what it could not find, and deletes nothing.

Bot files are found by content: every file under UPLOAD_DIR is hashed, whatever
its name (the folder's layout changed over time). Replays are found by their
name, `<match id>.json.gz`, anywhere under REPLAY_DIR/<game>/.
"""

from __future__ import annotations

import gzip
import hashlib
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from ladder.artifacts.interface import ArtifactStore
from ladder.models import BotVersion, Match

BATCH = 100  # rows copied per commit


@dataclass
class Tally:
    """What happened to one kind of artifact."""

    copied: int = 0
    present: int = 0  # stored already (an earlier run, or written since the upgrade)
    missing: list[str] = field(default_factory=list)  # rows whose file was not found
    damaged: list[str] = field(default_factory=list)  # files found but not what the row says

    def line(self, noun: str) -> str:
        return (
            f"{noun}: {self.copied} copied, {self.present} already stored,"
            f" {len(self.missing)} missing, {len(self.damaged)} damaged"
        )


@dataclass
class Report:
    bots: Tally = field(default_factory=Tally)
    replays: Tally = field(default_factory=Tally)

    @property
    def complete(self) -> bool:
        """Every row's artifact is in the store now."""
        return not (
            self.bots.missing or self.bots.damaged or self.replays.missing or self.replays.damaged
        )


def import_files(
    session: Session, store: ArtifactStore, upload_dir: str | Path, replay_dir: str | Path
) -> Report:
    """Copy every bot version's and every recorded match's legacy file into `store`.

    It owns its transactions (`ladder artifacts import` opens none): it commits every
    BATCH copies, so a long import that stops keeps what it copied."""
    report = Report()
    _import_bots(session, store, Path(upload_dir), report.bots)
    _import_replays(session, store, Path(replay_dir), report.replays)
    return report


def _import_bots(session: Session, store: ArtifactStore, folder: Path, tally: Tally) -> None:
    rows = session.execute(
        select(BotVersion.id, BotVersion.file_key, BotVersion.sha256).order_by(BotVersion.id)
    ).all()
    by_hash: dict[str, Path] | None = None  # built on the first key not yet stored
    done_keys: set[str] = set()
    pending = 0
    for version_id, key, sha256 in rows:
        if key in done_keys or store.exists(key):
            tally.present += 1
            continue
        if by_hash is None:
            by_hash = _hash_files(folder)
        path = by_hash.get(sha256)
        if path is None:
            tally.missing.append(f"bot version {version_id}: no file with sha256 {sha256}")
            continue
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != sha256:  # changed since it was hashed
            tally.damaged.append(f"bot version {version_id}: {path} changed while importing")
            continue
        store.put(key, data)
        done_keys.add(key)
        tally.copied += 1
        pending = _commit_every(session, pending + 1)
    session.commit()


def _hash_files(folder: Path) -> dict[str, Path]:
    """sha256 -> a file under `folder` with that content (uploads are small)."""
    found: dict[str, Path] = {}
    for path in _files(folder, ("*.py", "*.zip")):
        found.setdefault(hashlib.sha256(path.read_bytes()).hexdigest(), path)
    return found


def _import_replays(session: Session, store: ArtifactStore, folder: Path, tally: Tally) -> None:
    rows = session.execute(
        select(Match.id, Match.game, Match.replay_key)
        .where(Match.replay_key.is_not(None))
        .order_by(Match.id)
    ).all()
    by_match: dict[tuple[str, int], Path] | None = None
    pending = 0
    for match_id, game, key in rows:
        assert key is not None  # selected where it is not
        if store.exists(key):
            tally.present += 1
            continue
        # The layout every earlier version used; a search of the game's folder otherwise.
        path: Path | None = folder / game / str(match_id // 1000) / f"{match_id}.json.gz"
        if path is None or not path.is_file():
            if by_match is None:
                by_match = _replay_files(folder)
            path = by_match.get((game, match_id))
        if path is None:
            tally.missing.append(f"match {match_id}: no replay file {match_id}.json.gz")
            continue
        data = path.read_bytes()
        if not _whole_gzip(data):
            tally.damaged.append(f"match {match_id}: {path} is not a whole gzip file")
            continue
        store.put(key, data)  # the bytes as they are: the download serves them unchanged
        tally.copied += 1
        pending = _commit_every(session, pending + 1)
    session.commit()


def _replay_files(folder: Path) -> dict[tuple[str, int], Path]:
    """(game, match id) -> its replay file under folder/<game>/."""
    found: dict[tuple[str, int], Path] = {}
    for path in _files(folder, ("*.json.gz",)):
        stem = path.name.removesuffix(".json.gz")
        if stem.isdigit():
            found.setdefault((path.relative_to(folder).parts[0], int(stem)), path)
    return found


def _files(folder: Path, patterns: Iterable[str]) -> list[Path]:
    if not folder.is_dir():
        return []
    paths = {p for pattern in patterns for p in folder.rglob(pattern) if p.is_file()}
    return sorted(paths)


def _whole_gzip(data: bytes) -> bool:
    try:
        gzip.decompress(data)
    except (OSError, EOFError, zlib.error):
        return False
    return True


def _commit_every(session: Session, pending: int) -> int:
    """Commit after every BATCH copies (the database store's rows); the new count."""
    if pending >= BATCH:
        session.commit()
        return 0
    return pending
