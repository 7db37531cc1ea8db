"""Reading an uploaded bot file from a request, for the upload form and the API alike.

A file over MAX_BOT_BYTES is told the same way wherever it is caught
(`services.uploads.too_large`): in the view, where the body was parsed and the file's
own size is known, or before any view, when the whole body is over Flask's
MAX_CONTENT_LENGTH and is refused unread. Then only the request's Content-Length is
known (told roughly, as the upload's size: it counts the multipart framing too), and
the fields sent before the file (the form puts them first) are read back from the
body's first few KiB, so the form can show them again.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from flask import request
from werkzeug.datastructures import FileStorage, MultiDict
from werkzeug.http import parse_options_header
from werkzeug.sansio.multipart import Data, Field, File, MultipartDecoder, NeedData

from ladder.errors import TooLarge
from ladder.services.uploads import too_large

# How much of a refused body is read to find the fields sent before the file: the
# form's token, game, bot name and boxes take a few hundred bytes.
HEAD_BYTES = 16 * 1024


def read_bot_file(upload: FileStorage, limit: int) -> bytes:
    """The file's bytes, or TooLarge naming its size and `limit` (read at most limit+1)."""
    data = upload.stream.read(limit + 1)
    if len(data) > limit:
        size = _stream_size(upload.stream, len(data))
        raise TooLarge(too_large(upload.filename or "", size, limit), field="file")
    return data


def _stream_size(stream, read: int) -> int:
    """The whole stream's length (the body is parsed already: it is a spooled file)."""
    try:
        return max(read, stream.seek(0, io.SEEK_END))
    except (AttributeError, OSError, ValueError):
        return read


@dataclass(frozen=True)
class RefusedBody:
    """What can be told of a body refused unread: the message, and the form's fields
    sent before the file (None when none could be read)."""

    message: str
    fields: MultiDict | None


def refused_body(limit: int) -> RefusedBody:
    """The body of this request, over MAX_CONTENT_LENGTH and not read: its size is its
    Content-Length; the file's name and the fields before it come from its first bytes."""
    size = request.content_length
    fields, filename = (None, "") if size is None else _head_fields(min(size, HEAD_BYTES))
    return RefusedBody(too_large(filename, size, limit, unread=True), fields)


def _head_fields(length: int) -> tuple[MultiDict | None, str]:
    """The text fields before the first file part, and that file's name, in the
    body's first `length` bytes; (None, "") when it is not a multipart form."""
    kind, options = parse_options_header(request.headers.get("Content-Type", ""))
    boundary = options.get("boundary", "")
    if kind != "multipart/form-data" or not boundary:
        return None, ""
    # Not request.stream: that refuses the whole body, before reading any of it.
    head = request.environ["wsgi.input"].read(length)
    decoder = MultipartDecoder(boundary.encode("latin-1"))  # fed HEAD_BYTES at most
    decoder.receive_data(head)
    fields: MultiDict = MultiDict()
    name, value = None, b""
    try:
        while not isinstance(event := decoder.next_event(), NeedData):
            if isinstance(event, File):
                return fields or None, event.filename
            if isinstance(event, Field):
                name, value = event.name, b""
            elif isinstance(event, Data) and name is not None:
                value += event.data
                if not event.more_data:
                    fields.add(name, value.decode("utf-8", "replace"))
                    name = None
    except ValueError:  # a malformed head: keep what was read before it
        pass
    return fields or None, ""
