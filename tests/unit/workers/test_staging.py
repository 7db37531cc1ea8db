"""Bot files resolved, checked and staged for a sandbox."""

from __future__ import annotations

import importlib.util
import os
import stat
import zipfile
from pathlib import Path

import pytest

import engine
from workers.staging import (
    ENGINE_DIR,
    BotSource,
    extract_zip,
    house_bots,
    install_sdk,
    resolve,
    stage,
)


def test_house_bots_resolve_by_name_and_unknown_names_list_them():
    assert {f"{g}/random" for g in ("manila", "meuterer", "caravelas")} <= set(house_bots())
    assert resolve("manila/random").label == "manila/random"
    with pytest.raises(ValueError, match="manila/random"):
        resolve("manila/nonesuch")


def test_resolve_refuses_what_is_not_a_bot(tmp_path):
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(ValueError, match=r"a \.py file, a \.zip or a directory"):
        resolve(str(tmp_path / "notes.txt"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"has no bot\.py"):
        resolve(str(tmp_path / "empty"))


def make_zip(path, entries: dict) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in entries.items():
            zf.writestr(name, text)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"../evil.py": "x", "bot.py": ""}, "unsafe path"),
        ({"/etc/evil": "x", "bot.py": ""}, "unsafe path"),
        ({"helper.py": ""}, "no bot.py at its root"),
    ],
)
def test_unsafe_or_incomplete_zips_are_refused(tmp_path, entries, message):
    archive = tmp_path / "bot.zip"
    make_zip(archive, entries)
    dest = tmp_path / "out"
    dest.mkdir()
    with pytest.raises(ValueError, match=message):
        extract_zip(archive, dest)
    assert not (tmp_path / "evil.py").exists()


def test_a_corrupt_zip_is_refused(tmp_path):
    archive = tmp_path / "bot.zip"
    archive.write_bytes(b"PK not really")
    with pytest.raises(ValueError, match="not a valid zip"):
        extract_zip(archive, tmp_path)


def test_staging_replaces_a_slots_folder_with_a_private_copy(tmp_path):
    archive = tmp_path / "bot.zip"
    make_zip(archive, {"bot.py": "def act(v, legal): return legal[0]\n", "data/table.json": "{}"})
    slot = tmp_path / "slot0"
    slot.mkdir()
    stage(BotSource("zip", archive), slot, None)
    assert sorted(os.listdir(slot)) == ["bot.py", "data"]
    stage(resolve("manila/random"), slot, None)  # the next match: nothing of the last bot left
    assert os.listdir(slot) == ["bot.py"]
    assert "random" in (slot / "bot.py").read_text()
    assert not stat.S_IMODE(os.stat(slot).st_mode) & 0o022  # nobody else may write
    bad = tmp_path / "bad.zip"
    make_zip(bad, {"helper.py": "x = 1\n"})
    with pytest.raises(ValueError, match=r"no bot\.py"):
        stage(BotSource("bad", bad), slot, None)


def test_the_sdk_folder_holds_the_sdk_the_zygote_and_the_engine_with_bytecode(tmp_path):
    install_sdk(tmp_path / "sdk")
    names = sorted(p.name for p in (tmp_path / "sdk").iterdir())
    assert names == ["__pycache__", "engine", "tradewinds_sdk.py", "tradewinds_zygote.py"]
    assert len(list((tmp_path / "sdk" / "__pycache__").iterdir())) == 2
    # The engine: the referee's very files, each module compiled, world-readable.
    copied = tmp_path / "sdk" / "engine"
    sources = sorted(
        p.relative_to(ENGINE_DIR)
        for p in ENGINE_DIR.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    assert sources == sorted(
        p.relative_to(copied)
        for p in copied.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    assert Path("manila", "state.py") in sources and Path("manila", "RULES.md") in sources
    for name in sources:
        assert (copied / name).read_bytes() == (ENGINE_DIR / name).read_bytes()
        assert stat.S_IMODE((copied / name).stat().st_mode) == 0o644
        if name.suffix == ".py":
            assert Path(importlib.util.cache_from_source(str(copied / name))).is_file()


def test_numpy_is_a_link_beside_the_sdk_when_given(tmp_path):
    numpy = tmp_path / "dist" / "numpy"
    numpy.mkdir(parents=True)
    install_sdk(tmp_path / "sdk", numpy=str(numpy))
    link = tmp_path / "sdk" / "numpy"
    assert link.is_symlink() and os.readlink(link) == str(numpy)


def test_a_shared_house_bot_serves_every_game_and_a_games_own_comes_first():
    from workers.staging import HOUSE_DIR, house_file

    for game in engine.game_names():
        assert house_file(game, "random") == HOUSE_DIR / "random.py"
        assert house_file(game, "greedy") == HOUSE_DIR / game / "greedy.py"
    assert house_file("chess", "random") is None
    assert house_file("manila", "no-such-bot") is None
    with pytest.raises(ValueError, match="nor a house bot"):
        resolve("chess/random")
