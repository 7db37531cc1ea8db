"""Both artifact stores keep one contract (put, get, exists, size, delete, key rules);
the database store compresses what compresses and lives in the caller's transaction."""

from __future__ import annotations

import gzip
import io
import json
import random
import threading
import time
import zipfile

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from ladder import artifacts, settings
from ladder.artifacts import ArtifactMissing, DatabaseStore, DirectoryStore
from ladder.artifacts.database import encode
from ladder.extensions import make_engine
from ladder.models import Blob
from ladder.settings import Settings


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.py", "def act(view, legal):\n    return legal[0]\n" * 50)
    return buffer.getvalue()


SOURCE = b"import random\n\n\ndef act(view, legal):\n    return random.choice(legal)\n" * 20
REPLAY = gzip.compress(json.dumps({"actions": [[0, {"type": "pass"}]] * 500}).encode(), mtime=0)
# name: (bytes, how the database store keeps them)
CONTENTS = {
    "python source": (SOURCE, "zlib"),
    "plain JSON": (json.dumps({"actions": list(range(2000))}).encode(), "zlib"),
    "zip": (_zip(), "identity"),
    "gzipped replay": (REPLAY, "identity"),
    "random bytes": (random.Random(7).randbytes(4096), "identity"),
    "empty": (b"", "identity"),
    "one byte": (b"x", "identity"),
}
GOOD_KEYS = [
    "bots/" + "0123456789abcdef" * 4 + ".py",
    "replays/manila/12345.json.gz",
    "a",
    "a-b_c.d/e9",
    "x" * 200,
]
BAD_KEYS = [
    "",
    "/bots/abs.py",
    "../etc/passwd",
    "bots/../../x",
    "bots/.hidden",
    "bots/",
    "a//b",
    "Bots/x.py",
    "with space",
    "bots\\x.py",
    "répliques/1",
    "x" * 201,
    None,
]


# -- the contract, for each backend ----------------------------------------------------
def contract(store, commit) -> None:
    """What every store does, in order; `commit` ends the caller's transaction."""
    key = "replays/manila/7.json.gz"
    assert not store.exists(key) and store.size(key) is None and store.delete(key) is False
    with pytest.raises(ArtifactMissing, match=r"no artifact 'replays/manila/7\.json\.gz'"):
        store.get(key)
    store.put(key, b"first")
    commit()
    assert store.exists(key) and store.get(key) == b"first" and store.size(key) == 5
    store.put(key, b"second, longer")  # put replaces
    commit()
    assert store.get(key) == b"second, longer" and store.size(key) == 14
    store.put("replays/manila/8.json.gz", b"other")
    assert store.delete(key) is True
    commit()
    assert not store.exists(key) and store.get("replays/manila/8.json.gz") == b"other"
    for good in GOOD_KEYS:
        store.put(good, good.encode())
        assert store.get(good) == good.encode()


def test_the_database_store_keeps_the_contract(session):
    contract(DatabaseStore(session), session.commit)


def test_the_directory_store_keeps_the_contract(tmp_path):
    contract(DirectoryStore(tmp_path / "artifacts"), lambda: None)


@pytest.mark.parametrize("key", BAD_KEYS, ids=repr)
def test_both_stores_refuse_keys_that_are_not_keys(session, tmp_path, key):
    root = tmp_path / "store"
    root.mkdir()
    for store in (DatabaseStore(session), DirectoryStore(root)):
        for call in (
            lambda s: s.put(key, b"x"),
            lambda s: s.get(key),
            lambda s: s.exists(key),
            lambda s: s.size(key),
            lambda s: s.delete(key),
        ):
            with pytest.raises(ValueError, match="is not an artifact key"):
                call(store)
    assert list(root.iterdir()) == []


@pytest.mark.parametrize("name", CONTENTS)
def test_contents_round_trip_through_both_stores(session, tmp_path, name):
    data, _ = CONTENTS[name]
    key = "t/" + name.lower().replace(" ", "-")
    for store in (DatabaseStore(session), DirectoryStore(tmp_path / "store")):
        store.put(key, data)
        session.commit()
        assert store.get(key) == data and store.size(key) == len(data)


# -- the database store ----------------------------------------------------------------------
@pytest.mark.parametrize("name", CONTENTS)
def test_the_database_store_compresses_only_what_compresses(session, name):
    data, expected = CONTENTS[name]
    assert encode(data)[0] == expected
    store = DatabaseStore(session)
    store.put("t/x", data)
    session.commit()
    row = session.execute(select(Blob.encoding, Blob.size, Blob.stored_size)).one()
    assert row.encoding == expected and row.size == len(data)
    if expected == "zlib":
        assert row.stored_size < len(data) // 2  # source and JSON shrink a lot
    else:
        assert row.stored_size == len(data)
    assert store.stored_size("t/x") == row.stored_size


def test_a_put_is_part_of_the_callers_transaction(session, config):
    store = DatabaseStore(session)
    store.put("bots/rolled-back.py", b"x")
    assert store.exists("bots/rolled-back.py")  # seen inside the transaction
    session.rollback()
    assert not store.exists("bots/rolled-back.py")
    store.put("bots/kept.py", b"y")
    session.commit()
    other = make_engine(config["DATABASE_URL"])
    with Session(other) as elsewhere:  # another connection, as a worker host would use
        assert DatabaseStore(elsewhere).get("bots/kept.py") == b"y"
    other.dispose()


def test_two_writers_of_one_key_both_succeed(session, config):
    """Two uploads of the same file at once: the second waits for the first, then
    replaces it, instead of failing on the primary key."""
    other = make_engine(config["DATABASE_URL"])
    first = DatabaseStore(session)
    first.put("bots/same.py", b"same bytes")  # uncommitted: holds the row
    errors = []

    def second_writer() -> None:
        try:
            with Session(other) as s:
                DatabaseStore(s).put("bots/same.py", b"same bytes")
                s.commit()
        except Exception as exc:  # reported below
            errors.append(exc)

    thread = threading.Thread(target=second_writer)
    thread.start()
    time.sleep(0.3)
    session.commit()
    thread.join(30)
    other.dispose()
    assert not thread.is_alive() and errors == []
    assert DatabaseStore(session).get("bots/same.py") == b"same bytes"


# -- the directory store ---------------------------------------------------------------------
def test_the_directory_store_writes_whole_files_where_keys_say(tmp_path):
    store = DirectoryStore(tmp_path)
    store.put("replays/manila/7.json.gz", REPLAY)
    assert (tmp_path / "replays" / "manila" / "7.json.gz").read_bytes() == REPLAY
    leftovers = [p for p in tmp_path.rglob("*") if p.name.startswith(".")]
    assert leftovers == []  # the temporary file was renamed into place


def test_the_directory_store_does_not_follow_a_link_out_of_its_root(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret").write_bytes(b"not yours")
    (root / "bots").symlink_to(outside)
    store = DirectoryStore(root)
    with pytest.raises(ValueError, match="leads outside"):
        store.get("bots/secret")
    with pytest.raises(ValueError, match="leads outside"):
        store.put("bots/planted", b"x")
    assert sorted(p.name for p in outside.iterdir()) == ["secret"]


# -- choosing a store --------------------------------------------------------------------------
def test_the_factory_follows_the_setting(session, tmp_path):
    assert isinstance(artifacts.store(Settings(artifact_store="database"), session), DatabaseStore)
    assert isinstance(artifacts.store(Settings(), session), DatabaseStore)  # the default
    found = artifacts.store(Settings(artifact_store="directory", artifact_dir=str(tmp_path)))
    assert isinstance(found, DirectoryStore) and found.root == tmp_path
    with pytest.raises(ValueError, match="needs a session"):
        artifacts.store(Settings(artifact_store="database"))
    with pytest.raises(ValueError, match="ARTIFACT_STORE must be 'database' or 'directory'"):
        artifacts.store(Settings(artifact_store="s3"), session)


def test_settings_default_under_var_and_refuse_an_unknown_store(tmp_path):
    env = {"LADDER_VAR": str(tmp_path), "SECRET_KEY": "k"}
    values = settings.Settings.from_env(env).as_config()
    assert values["ARTIFACT_STORE"] == "database"
    assert values["ARTIFACT_DIR"] == str(tmp_path / "artifacts")
    assert values["BOT_CACHE_DIR"] == str(tmp_path / "bot-cache")
    assert values["BOT_CACHE_BYTES"] == 256 * 1024 * 1024
    with pytest.raises(ValueError, match="ARTIFACT_STORE must be 'database' or 'directory'"):
        settings.Settings.from_env({**env, "ARTIFACT_STORE": "Database"})
    with pytest.raises(ValueError, match="BOT_CACHE_BYTES"):
        settings.Settings.from_env({**env, "BOT_CACHE_BYTES": "lots"})
