"""Uploaded bot files are checked as bytes: .py source, zips, bombs, traversal."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from ladder.services.uploads import BadUpload, UploadLimits, check_bot_file, too_large

LIMITS = UploadLimits(max_bytes=64 * 1024, max_unzipped_bytes=256 * 1024, max_files=10)
GOOD = b"def act(view, legal):\n    return legal[0]\n"


def make_zip(entries: dict[str, bytes], *, symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("filename", "data", "kind"),
    [
        ("bot.py", GOOD, "py"),
        ("My Bot.PY", GOOD, "py"),
        ("bot.py", b"from helpers import act\n", "py"),
        ("bot.py", b"act = lambda view, legal: legal[0]\n", "py"),
        ("b.zip", make_zip({"bot.py": GOOD, "helpers/util.py": b"X = 1\n"}), "zip"),
        ("b.zip", make_zip({"bot.py": GOOD, "data/": b""}), "zip"),
    ],
)
def test_good_files_are_accepted(filename, data, kind):
    checked = check_bot_file(filename, data, LIMITS)
    assert (checked.kind, checked.size) == (kind, len(data))
    assert len(checked.sha256) == 64


@pytest.mark.parametrize(
    ("filename", "data", "message"),
    [
        ("", GOOD, "choose a file"),
        ("bot.py", b"", "empty"),
        ("bot.js", GOOD, "upload a .py file"),
        ("bot.py", b"#" * (64 * 1024 + 1), "bot.py is 65,537 bytes; the limit is 65,536 bytes"),
        ("bot.py", b"\xff\xfe act", "not UTF-8"),
        ("bot.py", b"def act(view, legal)\n    pass\n", "syntax error on line 1"),
        ("bot.py", b"def choose(view, legal):\n    return legal[0]\n", "does not define act"),
        ("bot.py", b"def helper():\n    def act():\n        pass\n", "does not define act"),
        ("b.zip", b"PK\x03\x04 broken", "not a readable zip"),
        ("b.zip", make_zip({"src/bot.py": GOOD}), "no bot.py at its root"),
        ("b.zip", make_zip({"bot.py": b"x = (\n"}), "bot.py has a syntax error"),
        ("b.zip", make_zip({"bot.py": GOOD, "../evil.py": b""}), "points outside"),
        ("b.zip", make_zip({"bot.py": GOOD, "/etc/cron.d/x": b""}), "points outside"),
        ("b.zip", make_zip({"bot.py": GOOD, "a\\..\\..\\x": b""}), "points outside"),
        ("b.zip", make_zip({"bot.py": GOOD, "C:/x": b""}), "points outside"),
        ("b.zip", make_zip({"bot.py": GOOD}, symlink="link"), "symbolic link"),
        ("b.zip", make_zip({f"f{i}.py": b"" for i in range(11)}), "11 entries; the limit is 10"),
        ("b.zip", make_zip({"bot.py": GOOD, "bomb.bin": b"\0" * (300 * 1024)}), "unpacks to more"),
    ],
)
def test_bad_files_are_refused_with_a_reason(filename, data, message):
    with pytest.raises(BadUpload, match=message):
        check_bot_file(filename, data, LIMITS)


def test_zip_bomb_with_lying_sizes_stops_at_the_limit():
    """A member whose header claims a small size is still cut off while reading."""
    bomb = make_zip({"bot.py": GOOD, "bomb.bin": b"\0" * (2 * 1024 * 1024)})
    assert len(bomb) < LIMITS.max_bytes
    data = bytearray(bomb)
    # Rewrite the declared uncompressed size of bomb.bin in the central directory to 1 byte.
    archive = zipfile.ZipFile(io.BytesIO(bomb))
    info = archive.getinfo("bomb.bin")
    central = bytes(data).rfind(b"PK\x01\x02")
    size_at = central + 24
    assert int.from_bytes(data[size_at : size_at + 4], "little") == info.file_size
    data[size_at : size_at + 4] = (1).to_bytes(4, "little")
    with pytest.raises(BadUpload, match=r"unpacks to more|cannot be read"):
        check_bot_file("b.zip", bytes(data), LIMITS)


def test_duplicate_names_are_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", GOOD)
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr("bot.py", b"def act(v, l):\n    return None\n")
    with pytest.raises(BadUpload, match="twice"):
        check_bot_file("b.zip", buffer.getvalue(), LIMITS)


def corrupt_zip(method: int, skip: int) -> bytes:
    """A zip whose bot.py is stored with `method` and its compressed bytes then mangled
    from byte `skip` on (the CRC and sizes in the headers still match the original)."""
    body = GOOD * 40
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("bot.py", body)
    data = bytearray(buffer.getvalue())
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("bot.py")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for i in range(start + skip, start + info.compress_size - 2):
        data[i] ^= 0x5A
    return bytes(data)


@pytest.mark.parametrize(
    ("method", "skip"),
    [
        (zipfile.ZIP_DEFLATED, 0),
        (zipfile.ZIP_BZIP2, 0),
        (zipfile.ZIP_BZIP2, 12),
        (zipfile.ZIP_LZMA, 4),  # the LZMA properties
        (zipfile.ZIP_LZMA, 12),  # the LZMA stream itself
    ],
    ids=["deflate", "bzip2-header", "bzip2-stream", "lzma-properties", "lzma-stream"],
)
def test_a_corrupt_compressed_stream_is_refused_with_a_reason(method, skip):
    with pytest.raises(BadUpload, match=r"the zip entry 'bot\.py' cannot be read"):
        check_bot_file("b.zip", corrupt_zip(method, skip), LIMITS)


@pytest.mark.parametrize(
    ("filename", "size", "limit", "words"),
    [
        ("bot.zip", 1_258_291, 512 * 1024, "bot.zip is 1.2 MiB; the limit is 512 KiB"),
        ("bot.py", 700 * 1024, 512 * 1024, "bot.py is 700 KiB; the limit is 512 KiB"),
        ("b.py", 1001, 1000, "b.py is 1,001 bytes; the limit is 1,000 bytes"),
        # Sizes that round alike are told in bytes, so the file never looks within the limit.
        (
            "bot.py",
            512 * 1024 + 1,
            512 * 1024,
            "bot.py is 524,289 bytes; the limit is 524,288 bytes",
        ),
        # The name the browser sent, without its folders; a name that hides text is not shown.
        ("C:\\Users\\me\\bot.py", 2048, 1024, "bot.py is 2 KiB; the limit is 1 KiB"),
        ("src/bot.py", 2048, 1024, "bot.py is 2 KiB; the limit is 1 KiB"),
        ("evil\u202eyp.zip", 2048, 1024, "the file is 2 KiB; the limit is 1 KiB"),
        ("", 2048, 1024, "the file is 2 KiB; the limit is 1 KiB"),
        ("bot.py", None, 512 * 1024, "bot.py is larger than the limit of 512 KiB"),
    ],
)
def test_a_file_over_the_limit_is_told_with_its_size_and_the_limit(filename, size, limit, words):
    assert too_large(filename, size, limit) == words


@pytest.mark.parametrize(
    ("filename", "size", "words"),
    [
        # The request's size, not the file's: whole KiB, tenths of a MiB, as the upload's.
        ("bot.py", 655_921, "the upload of bot.py is about 641 KiB; the limit is 512 KiB"),
        ("bot.py", 655_933, "the upload of bot.py is about 641 KiB; the limit is 512 KiB"),
        ("fleet.zip", 3 * 1024 * 1024 + 700, "the upload of fleet.zip is about 3 MiB;"),
        ("", 1_048_000, "the upload is about 1,023 KiB; the limit is 512 KiB"),
        ("", 1_048_100, "the upload is about 1 MiB; the limit is 512 KiB"),
        ("evil\u202eyp.zip", 700 * 1024, "the upload is about 700 KiB; the limit is 512 KiB"),
        ("", 512 * 1024 + 300, "the upload is 524,588 bytes; the limit is 524,288 bytes"),
        ("bot.py", None, "bot.py is larger than the limit of 512 KiB"),
    ],
)
def test_a_body_refused_unread_is_told_by_the_uploads_rough_size(filename, size, words):
    assert too_large(filename, size, 512 * 1024, unread=True).startswith(words)
