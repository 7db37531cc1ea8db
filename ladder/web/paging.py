"""Integer query arguments, and the `page` of the site's and the API's paginated lists."""

from __future__ import annotations

from flask import request

from ladder.errors import ServiceError
from ladder.inputs import whole_number
from ladder.settings import Settings

MAX_PAGE = 1_000_000
MAX_PER_PAGE = 100  # the API's `per_page` ceiling


def int_arg(name: str, default: int, low: int, high: int) -> int:
    """The query argument `name`: `default` when absent, else an integer from low to high (400)."""
    raw = request.args.get(name)
    if raw is None:
        return default
    value = whole_number(raw)
    if value is None or not low <= value <= high:
        raise ServiceError(f"{name} must be an integer from {low} to {high}")
    return value


def page_arg() -> int:
    """The `page` query argument: 1 when absent, else a positive integer (400)."""
    return int_arg("page", 1, 1, MAX_PAGE)


def default_per_page(settings: Settings) -> int:
    """The API's `per_page` when none is asked for: the site's PAGE_SIZE, at most the ceiling."""
    return max(1, min(settings.page_size, MAX_PER_PAGE))
