"""The `page` query argument shared by the site's paginated pages."""

from __future__ import annotations

from flask import abort, request

MAX_PAGE = 1_000_000


def page_arg() -> int:
    """The `page` query argument: a positive integer, else 400."""
    raw = request.args.get("page", "1")
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_PAGE:
        abort(400, "page must be a positive integer")
    return int(raw)
