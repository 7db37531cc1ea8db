"""An install from before the artifact store upgrades without losing a file: a database
at revision b6d1f0c3a8e4 with real rows and real files (a .py, a .zip, replays; two
folder layouts), `ladder db upgrade`, `ladder artifacts import`, and every bot and
replay reads back byte for byte through the store, on SQLite and PostgreSQL."""

from __future__ import annotations

import gzip
import hashlib
import io
import itertools
import json
import zipfile
from datetime import datetime
from pathlib import Path

import pytest
from alembic import command
from click.testing import CliRunner
from sqlalchemy import MetaData, select, text
from sqlalchemy.orm import Session

from ladder import artifacts, create_app
from ladder.cli import db as schema
from ladder.cli import main
from ladder.extensions import make_engine
from ladder.settings import Settings

PREVIOUS = "b6d1f0c3a8e4"  # the revision before the artifact store
WHEN = datetime(2026, 11, 30, 12, 0, 0)
_names = itertools.count(1)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def zip_bot() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(
            "bot.py", "from helper import pick\n\ndef act(view, legal):\n    return pick(legal)\n"
        )
        archive.writestr("helper.py", "def pick(legal):\n    return legal[0]\n")
    return buffer.getvalue()


def replay_file(match_id: int) -> bytes:
    """A replay as the ladder wrote them before: gzipped compact JSON."""
    record = {"game": "toyrace", "seed": match_id, "players": 2, "actions": [[0, {"n": 1}]]}
    return gzip.compress(json.dumps(record, separators=(",", ":")).encode(), mtime=0)


PY_ONE = b"def act(view, legal):\n    return legal[0]\n"
PY_TWO = b"import random\n\n\ndef act(view, legal):\n    return random.choice(legal)\n"
PY_LOST = b"def act(view, legal):\n    return legal[-1]\n"
ZIP = zip_bot()
# version id: (bot id, number, kind, bytes, its file under UPLOAD_DIR, or None: lost)
VERSIONS = {
    1: (1, 1, "py", PY_ONE, f"1/v1-{sha(PY_ONE)[:12]}.py"),
    2: (1, 2, "py", PY_TWO, "1/v2.py"),  # the first layout, before names carried a hash
    3: (2, 1, "zip", ZIP, f"2/v1-{sha(ZIP)[:12]}.zip"),
    4: (3, 1, "py", PY_ONE, f"3/v1-{sha(PY_ONE)[:12]}.py"),  # the same bytes as version 1
    5: (4, 1, "py", PY_LOST, None),
}
# match id: its file under REPLAY_DIR (None: lost), or no replay at all (queued)
REPLAYS = {1: "toyrace/0/1.json.gz", 1500: "toyrace/1/1500.json.gz", 3: None, 4: "damaged"}
QUEUED = 2


@pytest.fixture(params=["sqlite", "postgresql"])
def old_database(request, tmp_path):
    """An empty database at the revision before the artifact store."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    else:
        cluster = request.getfixturevalue("pg_cluster")
        name = f"artifacts_upgrade_{next(_names)}"
        url = cluster.create_database(name)
        request.addfinalizer(lambda: cluster.drop_database(name))
    schema.upgrade(url, PREVIOUS)
    return url


def fill_old_install(url: str, upload_dir: Path, replay_dir: Path) -> None:
    """Rows as the previous revision had them, and their files where it kept them."""
    eng = make_engine(url)
    meta = MetaData()
    meta.reflect(eng)
    t = meta.tables
    with eng.begin() as conn:
        conn.execute(
            t["users"].insert(),
            [{"id": 1, "username": "old", "password_hash": "x", "created_at": WHEN}],
        )
        conn.execute(
            t["bots"].insert(),
            [
                {"id": b, "owner_id": 1, "game": "toyrace", "name": f"bot{b}", "created_at": WHEN}
                for b in (1, 2, 3, 4)
            ],
        )
        conn.execute(
            t["bot_versions"].insert(),
            [
                {
                    "id": vid,
                    "bot_id": bot_id,
                    "number": number,
                    "uploaded_by_id": 1,
                    "filename": f"bot.{kind}",
                    "kind": kind,
                    "size": len(data),
                    "sha256": sha(data),
                    "path": path or f"{bot_id}/v{number}-{sha(data)[:12]}.{kind}",
                    "state": "active",
                    "validation_log": "",
                    "created_at": WHEN,
                }
                for vid, (bot_id, number, kind, data, path) in VERSIONS.items()
            ],
        )
        conn.execute(
            t["matches"].insert(),
            [
                {
                    "id": mid,
                    "game": "toyrace",
                    "seed": mid,
                    "players": 2,
                    "options": {},
                    "ranked": True,
                    "state": "queued" if mid == QUEUED else "finished",
                    "created_at": WHEN,
                    "replay_path": None
                    if mid == QUEUED
                    else f"toyrace/{mid // 1000}/{mid}.json.gz",
                }
                for mid in (*REPLAYS, QUEUED)
            ],
        )
    eng.dispose()
    for _, _, _, data, path in VERSIONS.values():
        if path:
            (upload_dir / path).parent.mkdir(parents=True, exist_ok=True)
            (upload_dir / path).write_bytes(data)
    for mid, path in REPLAYS.items():
        if path == "damaged":
            target = replay_dir / "toyrace" / "0" / f"{mid}.json.gz"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(replay_file(mid)[:20])  # cut short
        elif path:
            (replay_dir / path).parent.mkdir(parents=True, exist_ok=True)
            (replay_dir / path).write_bytes(replay_file(mid))


def files_under(*folders: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for f in folders for p in f.rglob("*") if p.is_file()}


def import_artifacts(env: dict):
    return CliRunner().invoke(main, ["artifacts", "import"], env=env, catch_exceptions=False)


@pytest.mark.parametrize("store_kind", ["database", "directory"])
def test_an_old_install_upgrades_and_imports_every_file(old_database, tmp_path, store_kind, capsys):
    uploads, replays = tmp_path / "uploads", tmp_path / "replays"
    fill_old_install(old_database, uploads, replays)
    before = files_under(uploads, replays)

    schema.upgrade(old_database)
    assert "ladder artifacts import" in capsys.readouterr().err  # the operator is told
    eng = make_engine(old_database)
    with eng.connect() as conn:
        keys = conn.execute(text("SELECT id, file_key FROM bot_versions ORDER BY id")).all()
        replay_keys = dict(conn.execute(text("SELECT id, replay_key FROM matches")).all())
    assert keys == [(vid, f"bots/{sha(v[3])}.{v[2]}") for vid, v in VERSIONS.items()]
    assert replay_keys == {
        **{mid: f"replays/toyrace/{mid}.json.gz" for mid in REPLAYS},
        QUEUED: None,
    }

    env = {
        "DATABASE_URL": old_database,
        "UPLOAD_DIR": str(uploads),
        "REPLAY_DIR": str(replays),
        "ARTIFACT_STORE": store_kind,
        "ARTIFACT_DIR": str(tmp_path / "artifacts"),
        "LADDER_VAR": str(tmp_path),
        "SECRET_KEY": "k",
    }
    first = import_artifacts(env)
    assert first.exit_code == 1  # files are missing: said, not hidden
    assert "bot files: 3 copied, 1 already stored, 1 missing, 0 damaged" in first.output
    assert "replays: 2 copied, 0 already stored, 1 missing, 1 damaged" in first.output
    assert f"bot version 5: no file with sha256 {sha(PY_LOST)}" in first.output
    assert "match 3: no replay file 3.json.gz" in first.output
    assert "match 4:" in first.output and "not a whole gzip file" in first.output

    again = import_artifacts(env)  # idempotent: nothing copied twice
    assert "bot files: 0 copied, 4 already stored, 1 missing" in again.output
    assert "replays: 0 copied, 2 already stored, 1 missing, 1 damaged" in again.output

    # The lost files turn up, under names of their own: the next run finds them.
    (uploads / "restored").mkdir()
    (uploads / "restored" / "from-backup.py").write_bytes(PY_LOST)
    (replays / "toyrace" / "restored").mkdir()
    (replays / "toyrace" / "restored" / "3.json.gz").write_bytes(replay_file(3))
    (replays / "toyrace" / "0" / "4.json.gz").write_bytes(replay_file(4))
    last = import_artifacts(env)
    assert last.exit_code == 0, last.output
    assert "bot files: 1 copied, 4 already stored, 0 missing, 0 damaged" in last.output
    assert "replays: 2 copied, 2 already stored, 0 missing, 0 damaged" in last.output

    # Every bot and replay reads back byte for byte through the store.
    config = Settings(artifact_store=store_kind, artifact_dir=env["ARTIFACT_DIR"])
    with Session(eng) as session:
        store = artifacts.store(config, session)
        stored = dict(session.execute(text("SELECT id, file_key FROM bot_versions")).all())
        for vid, version in VERSIONS.items():
            assert store.get(stored[vid]) == version[3], vid
        for mid in REPLAYS:
            assert store.get(f"replays/toyrace/{mid}.json.gz") == replay_file(mid), mid
    eng.dispose()
    # Nothing was deleted or changed among the old files.
    after = files_under(uploads, replays)
    assert {p: after[p] for p in before if p.name != "4.json.gz"} == {
        p: b for p, b in before.items() if p.name != "4.json.gz"
    }

    # The site serves an imported replay exactly as it was written.
    app = create_app({**env, "TESTING": True})
    client = app.test_client()
    response = client.get("/api/v1/matches/1500/replay")
    assert response.status_code == 200 and response.data == replay_file(1500)
    assert client.get(f"/api/v1/matches/{QUEUED}/replay").status_code == 404


def test_downgrade_gives_back_paths_and_refuses_to_drop_stored_files(old_database, tmp_path):
    fill_old_install(old_database, tmp_path / "uploads", tmp_path / "replays")
    schema.upgrade(old_database)
    eng = make_engine(old_database)
    with Session(eng) as session:
        artifacts.store(Settings(artifact_store="database"), session).put(
            "bots/kept.py", b"only copy"
        )
        session.commit()
    with pytest.raises(RuntimeError, match="the blobs table holds 1 artifacts"):
        command.downgrade(schema.alembic_config(old_database), PREVIOUS)
    with eng.begin() as conn:
        conn.execute(text("DELETE FROM blobs"))
    command.downgrade(schema.alembic_config(old_database), PREVIOUS)
    meta = MetaData()
    meta.reflect(eng)
    with eng.connect() as conn:
        paths = conn.execute(select(meta.tables["bot_versions"].c.path).order_by(text("id")))
        replay_paths = conn.execute(
            select(meta.tables["matches"].c.replay_path).order_by(text("id"))
        )
        assert paths.scalars().all() == [
            f"{b}/v{n}-{sha(data)[:12]}.{kind}" for b, n, kind, data, _ in VERSIONS.values()
        ]
        assert replay_paths.scalars().all() == [
            "toyrace/0/1.json.gz",
            None,
            "toyrace/0/3.json.gz",
            "toyrace/0/4.json.gz",
            "toyrace/1/1500.json.gz",
        ]
    assert "blobs" not in meta.tables
    eng.dispose()
