"""Checks on an uploaded bot file, done on bytes only.

The web process never imports or runs uploaded code: it reads the zip's
directory, reads each member with a hard cap (declared sizes may lie), and
parses `bot.py` with `ast` to report a syntax error early. Running the bot
is the sandboxed validator's job.

`too_large` words a file over MAX_BOT_BYTES the one way the site and the API say it:
the file's own size when it was read, the request's (roughly, as the upload's) when the
body was refused unread.
"""

from __future__ import annotations

import ast
import hashlib
import io
import lzma
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath, PureWindowsPath

from ladder.inputs import visible
from ladder.settings import Settings

KIB, MIB = 1024, 1024 * 1024


class BadUpload(ValueError):
    """An uploaded file the ladder will not store; the message says why."""


@dataclass(frozen=True)
class UploadLimits:
    """How large an upload may be, packed and unpacked, and how many files a zip may hold."""

    max_bytes: int
    max_unzipped_bytes: int
    max_files: int

    @classmethod
    def from_settings(cls, settings: Settings) -> UploadLimits:
        return cls(settings.max_bot_bytes, settings.max_unzipped_bytes, settings.max_zip_files)


@dataclass(frozen=True)
class CheckedFile:
    kind: str  # "py" or "zip"
    size: int
    sha256: str


def check_bot_file(filename: str, data: bytes, limits: UploadLimits) -> CheckedFile:
    """Accept a `.py` bot or a `.zip` with `bot.py` at its root; BadUpload otherwise."""
    name = (filename or "").strip()
    if not name:
        raise BadUpload("choose a file to upload")
    if not data:
        raise BadUpload("the file is empty")
    if len(data) > limits.max_bytes:
        raise BadUpload(too_large(name, len(data), limits.max_bytes))
    lower = name.lower()
    if lower.endswith(".py"):
        kind = "py"
        _check_source("the file", data)
    elif lower.endswith(".zip"):
        kind = "zip"
        _check_zip(data, limits)
    else:
        raise BadUpload("upload a .py file or a .zip archive with bot.py at its root")
    return CheckedFile(kind, len(data), hashlib.sha256(data).hexdigest())


def size_in_words(size: int) -> str:
    """`size` bytes as people read it: "900 bytes", "512 KiB", "1.2 MiB"."""
    if size < KIB:
        return f"{size:,} byte{'s' * (size != 1)}"
    unit, scale = ("KiB", KIB) if size < MIB else ("MiB", MIB)
    return f"{size / scale:,.1f}".removesuffix(".0") + f" {unit}"


def too_large(filename: str, size: int | None, limit: int, *, unread: bool = False) -> str:
    """What the site and the API say of a file over `limit`: "bot.zip is 1.2 MiB; the
    limit is 512 KiB". `size` None: unknown (a body cut off while it was read). `unread`:
    `size` is the whole request's Content-Length (the body was refused before it was
    read), which also counts the form's other fields and its multipart framing, so it is
    told as the upload's, roughly: "the upload of bot.zip is about 3 MiB; ..."."""
    name = PureWindowsPath(PurePosixPath(filename or "").name).name.strip()[:80]
    what = name if name and visible(name) else "the file"
    if size is None:
        return f"{what} is larger than the limit of {size_in_words(limit)}"
    if unread:
        what = f"the upload of {name}" if what == name else "the upload"
    said, allowed = (_about(size) if unread else size_in_words(size)), size_in_words(limit)
    if said.removeprefix("about ") == allowed:  # rounded alike: the bytes tell them apart
        said, allowed = f"{size:,} bytes", f"{limit:,} bytes"
    return f"{what} is {said}; the limit is {allowed}"


def _about(size: int) -> str:
    """A request's size to the KiB (to a tenth of a MiB above that): its framing, a few
    hundred bytes that change with each multipart boundary, is not worth a figure."""
    if size < KIB:
        return f"about {size_in_words(size)}"
    if round(size / KIB) < KIB:
        return f"about {round(size / KIB):,} KiB"
    return f"about {size / MIB:,.1f}".removesuffix(".0") + " MiB"


def _check_source(what: str, data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadUpload(f"{what} is not UTF-8 text") from None
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise BadUpload(f"{what} has a syntax error on line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError):
        raise BadUpload(f"{what} cannot be parsed as Python") from None
    if "act" not in _top_level_names(tree):
        raise BadUpload(f"{what} does not define act(view, legal) at its top level")


def _top_level_names(tree: ast.Module) -> set[str]:
    """Names bound at module level: by def, class, assignment or import."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _check_zip(data: bytes, limits: UploadLimits) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise BadUpload("the file is not a readable zip archive") from None
    if len(members) > limits.max_files:
        raise BadUpload(f"the zip holds {len(members)} entries; the limit is {limits.max_files}")
    seen: set[str] = set()
    total = 0
    bot_source = None
    for info in members:
        name = info.filename
        _check_member_name(name, seen)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise BadUpload(f"the zip entry {name!r} is a symbolic link")
        if info.flag_bits & 0x1:
            raise BadUpload(f"the zip entry {name!r} is encrypted")
        if info.is_dir():
            continue
        budget = limits.max_unzipped_bytes - total
        body = _read_capped(archive, info, budget)
        total += len(body)
        if name == "bot.py":
            bot_source = body
    if bot_source is None:
        raise BadUpload("the zip has no bot.py at its root")
    _check_source("bot.py", bot_source)


def _check_member_name(name: str, seen: set[str]) -> None:
    path = PurePosixPath(name)
    if (
        "\\" in name
        or "\x00" in name
        or name.startswith("/")
        or ".." in path.parts
        or (path.parts and path.parts[0].endswith(":"))
    ):
        raise BadUpload(f"the zip entry {name!r} points outside the archive")
    if name in seen:
        raise BadUpload(f"the zip holds {name!r} twice")
    seen.add(name)


def _read_capped(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int) -> bytes:
    """Read one member, stopping as soon as it passes `budget` (a zip bomb stops here)."""
    too_big = BadUpload("the zip unpacks to more than the size limit")
    if info.file_size > budget:
        raise too_big
    chunks, read = [], 0
    try:
        with archive.open(info) as member:
            while chunk := member.read(64 * 1024):
                read += len(chunk)
                if read > budget:
                    raise too_big
                chunks.append(chunk)
    except (
        zipfile.BadZipFile,
        NotImplementedError,
        OSError,  # bz2's "Invalid data stream"
        EOFError,
        RuntimeError,
        zlib.error,  # a corrupt deflate stream
        lzma.LZMAError,  # corrupt LZMA properties or stream
    ):
        raise BadUpload(f"the zip entry {info.filename!r} cannot be read") from None
    return b"".join(chunks)
