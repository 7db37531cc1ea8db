"""Bots named on a command line or stored by the ladder, copied to where a sandbox can see them.

Every seat gets a private copy of its bot (a `bot.py`, a directory or the
contents of a `.zip`) in its sandbox slot's own directory, emptied first,
owned by that slot's uid and readable by no other: a bot never sees another
bot's code, and a file changed mid-match does not change the bot that plays.
"""

from __future__ import annotations

import importlib.util
import os
import py_compile
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

import engine
from workers import info
from workers.contract import BadBotFile
from workers.sandbox import SDK_NAME, ZYGOTE_NAME

ROOT = Path(__file__).resolve().parent.parent
HOUSE_DIR = ROOT / "bots" / "house"
STARTER_DIR = ROOT / "bots" / "starter"
STARTER = "starter"  # the demo account's `starter` bot is the template in bots/starter/<game>/
SDK_FILE = ROOT / "bots" / "sdk.py"
ZYGOTE_FILE = ROOT / "workers" / "zygote.py"
# The engine package this process referees with: bots get a copy of these very files.
ENGINE_DIR = Path(engine.__file__).resolve().parent
MAX_ZIP_BYTES = 32 << 20
MAX_ZIP_FILES = 500


@dataclass(frozen=True)
class BotSource:
    """Where a bot's code is, the label it plays under in replays, and who it is.

    `name`, `owner` and `version` are what every seat's `setup(info)` sees in
    `info["seats"]` (`workers.info`); a source without them is a local file,
    named after its path.
    """

    label: str
    path: Path
    name: str | None = None
    owner: str | None = None
    version: int | None = None

    def seat_info(self) -> dict:
        """This bot in the one seat shape of `workers.info`."""
        if self.owner is None:
            return info.local_seat(self.path if self.name is None else self.name)
        if self.version is None:
            raise TypeError(f"{self.label}: a bot with an owner has a version number")
        return info.seat(self.name or self.label, self.owner, self.version)


def house_file(game: str, name: str) -> Path | None:
    """The file of house bot `game/name`: the game's own, else one every game shares
    (like `random`, which needs no game knowledge), or for `starter` the game's starter
    template (the site shows it among the house bots); None if there is none."""
    if name == STARTER:
        starter = STARTER_DIR / game / "bot.py"
        return starter if starter.is_file() and game in engine.game_names() else None
    own = HOUSE_DIR / game / f"{name}.py"
    if own.is_file():
        return own
    shared = HOUSE_DIR / f"{name}.py"
    if shared.is_file() and game in engine.game_names():
        return shared
    return None


def house_bots() -> list[str]:
    """Names of every house bot, like `manila/greedy`, the starters (`manila/starter`) too."""
    shared = [p.stem for p in HOUSE_DIR.glob("*.py") if p.stem[0] != "_"]
    names = {f"{p.parent.name}/{p.stem}" for p in HOUSE_DIR.glob("*/*.py") if p.stem[0] != "_"}
    names |= {f"{p.parent.name}/{STARTER}" for p in STARTER_DIR.glob("*/bot.py")}
    names |= {f"{game}/{name}" for game in engine.game_names() for name in shared}
    return sorted(names)


def resolve(spec: str, house_owner: str = info.HOUSE_OWNER) -> BotSource:
    """A bot from a path (`bot.py`, a directory with `bot.py`, a `.zip`) or a house name,
    seated as `workers.info` says (a house bot owned by `house_owner`)."""
    path = Path(spec)
    if path.exists():
        if path.is_dir():
            if not (path / "bot.py").is_file():
                raise ValueError(f"directory {spec} has no bot.py")
        elif path.suffix not in (".py", ".zip"):
            raise ValueError(f"{spec}: a bot is a .py file, a .zip or a directory with bot.py")
        who = info.local_seat(path.resolve())
        return BotSource(str(spec), path.resolve(), who["name"], who["owner"], who["version"])
    if spec.count("/") == 1 and not spec.endswith((".py", ".zip")):
        game, name = spec.split("/")
        house = house_file(game, name)
        if house is not None:
            who = info.house_seat(name, house_owner)
            return BotSource(spec, house, who["name"], who["owner"], who["version"])
    raise ValueError(
        f"no bot {spec!r}: not a file or directory, nor a house bot"
        f" (house bots: {', '.join(house_bots()) or 'none'})"
    )


def extract_zip(archive: Path, dest: Path) -> None:
    """Unpack an uploaded bot zip safely: no absolute or `..` paths, no links, bounded size
    (BadBotFile otherwise)."""
    try:
        with zipfile.ZipFile(archive) as zf:
            entries = zf.infolist()
            if len(entries) > MAX_ZIP_FILES:
                raise BadBotFile(f"{archive.name}: more than {MAX_ZIP_FILES} files")
            if sum(e.file_size for e in entries) > MAX_ZIP_BYTES:
                raise BadBotFile(f"{archive.name}: unpacks to more than {MAX_ZIP_BYTES >> 20} MiB")
            for entry in entries:
                parts = Path(entry.filename).parts
                if entry.filename.startswith(("/", "\\")) or ".." in parts or not parts:
                    raise BadBotFile(f"{archive.name}: unsafe path {entry.filename!r}")
                target = dest.joinpath(*parts)
                if entry.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(entry) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
    except zipfile.BadZipFile as exc:
        raise BadBotFile(f"{archive.name} is not a valid zip: {exc}") from None
    if not (dest / "bot.py").is_file():
        raise BadBotFile(f"{archive.name} has no bot.py at its root")


def install_sdk(sdk_dir: Path, numpy: str | None = None) -> None:
    """Put the SDK, the zygote and the engine, with their bytecode, in `sdk_dir` (bound at
    /sdk, first on the bots' path after their own folder), and a link to `numpy` if given."""
    sdk_dir.mkdir(exist_ok=True)
    for source, name in ((SDK_FILE, SDK_NAME), (ZYGOTE_FILE, ZYGOTE_NAME)):
        _install(source, sdk_dir / name)
    install_engine(sdk_dir / "engine")
    if numpy is not None:
        # A link, followed inside the sandbox too (/usr is bound there): of all the
        # system's packages only numpy is on the bots' path.
        (sdk_dir / "numpy").symlink_to(numpy, target_is_directory=True)
    os.chmod(sdk_dir, 0o755)


def install_engine(dest: Path) -> None:
    """A copy of the referee's engine package at `dest`: a bot's forward model is the very
    code the match is judged by, and a later edit of the checkout cannot change it."""
    for name in engine.game_names():
        engine.get_game(name)  # the referee loads every game's rules now, from these files
    for folder, dirs, files in os.walk(ENGINE_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        target = dest / Path(folder).relative_to(ENGINE_DIR)
        target.mkdir(parents=True, exist_ok=True)
        os.chmod(target, 0o755)
        for name in files:
            if not name.endswith((".pyc", ".pyo")):
                _install(Path(folder) / name, target / name)


def _install(source: Path, target: Path) -> None:
    """Copy `source` to `target`, world-readable; a module with its bytecode beside it."""
    shutil.copyfile(source, target)
    os.chmod(target, 0o644)
    if target.suffix != ".py":
        return
    # Compiled once here, so no sandbox ever compiles it at start.
    cached = Path(importlib.util.cache_from_source(str(target)))
    py_compile.compile(str(target), cfile=str(cached), doraise=True)
    for path, mode in ((cached.parent, 0o755), (cached, 0o644)):
        os.chmod(path, mode)


def stage(source: BotSource, dest: Path, uid: int | None) -> None:
    """Replace what `dest` holds with a private copy of `source`, readable by `uid` only.

    BadBotFile for an upload that cannot be staged (a bad zip, no bot.py).
    """
    empty(dest)
    if source.path.is_dir():
        shutil.copytree(source.path, dest, symlinks=False, dirs_exist_ok=True)
    elif source.path.suffix == ".zip":
        extract_zip(source.path, dest)
    else:
        shutil.copyfile(source.path, dest / "bot.py")
    _lock_down(dest, uid)


def empty(folder: Path) -> None:
    """Delete everything inside `folder` (which stays)."""
    os.chmod(folder, 0o700)
    for entry in folder.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _lock_down(top: Path, uid: int | None) -> None:
    """Read-only for the seat's own uid, nothing for anyone else (or world-readable if no uid)."""
    dir_mode, file_mode = (0o500, 0o400) if uid is not None else (0o755, 0o644)
    for folder, _dirs, files in os.walk(top):
        for name in files:
            path = os.path.join(folder, name)
            if uid is not None:
                os.chown(path, uid, uid)
            os.chmod(path, file_mode)
        if uid is not None:
            os.chown(folder, uid, uid)
        os.chmod(folder, dir_mode)
