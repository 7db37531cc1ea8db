"""Shared pages kept in memory for PAGE_CACHE_S seconds, one small cache per web worker.

Two things are kept, both the same for every visitor, never anything of one user:

- the whole answer to an anonymous GET (`shared_page`): no logged-in user, no bearer
  token, no flashed message waiting, and a view that left the session alone (a page
  that made a CSRF token is not kept). A logged-in visitor's page carries their name
  and their forms, so it is never kept and never served from here;
- the data shared pages are made of (`shared_data`), which a logged-in visitor's page
  is rendered around afresh.

So a change (a match recorded, a rating moved) shows on these pages at most
PAGE_CACHE_S seconds later, in each worker on its own; a page kept by the first
layer is always made from fresh data, so ages never add up. In memory rather than in
Redis: a hit costs no round trip, and the few seconds of lag are the same either way.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any

from flask import Flask, Response, current_app, g, request, session
from flask_login import current_user

from ladder.extensions import app_settings

MAX_ENTRIES = 256  # pages and data together; the oldest goes first
EXTENSION = "ladder.page_cache"
_MISSING = object()


class TtlCache:
    """Values by key for a number of seconds (given at each read), at most `max_entries`."""

    def __init__(
        self, max_entries: int = MAX_ENTRIES, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_entries = max_entries
        self.clock = clock
        self._entries: dict[Hashable, tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable, seconds: float) -> Any:
        """The value kept under `key` if it is younger than `seconds`, else _MISSING."""
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return _MISSING
            if self.clock() - found[0] >= seconds:
                del self._entries[key]
                return _MISSING
            return found[1]

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._entries.pop(key, None)
            while len(self._entries) >= self.max_entries:
                del self._entries[next(iter(self._entries))]  # the oldest kept
            self._entries[key] = (self.clock(), value)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def init_app(app: Flask) -> None:
    app.extensions[EXTENSION] = TtlCache()


def page_cache(app: Flask | None = None) -> TtlCache:
    return (app or current_app).extensions[EXTENSION]


def _seconds() -> int:
    return app_settings().page_cache_s


def shared_data(key: Hashable, make: Callable[[], Any]) -> Any:
    """`make()`'s value, or the one kept under `key` for at most PAGE_CACHE_S seconds.

    While `shared_page` makes a page to keep, the data is made afresh (and kept), so a
    kept page is never older than PAGE_CACHE_S either. Only data that is the same for
    every visitor may go through here.
    """
    cache, seconds = page_cache(), _seconds()
    if seconds <= 0:
        return make()
    key = ("data", key)
    if not g.get("fresh_data"):
        found = cache.get(key, seconds)
        if found is not _MISSING:
            return found
    value = make()
    cache.put(key, value)
    return value


def _anonymous_reader() -> bool:
    """A visitor nothing on the page could be personal to."""
    return (
        request.method == "GET"
        and "Authorization" not in request.headers
        and not current_user.is_authenticated
        and not session.get("_flashes")
    )


def shared_page(view: Callable[..., Any]) -> Callable[..., Any]:
    """Serve an anonymous visitor the page kept for this path and query, if young enough.

    Only a 200 answer of a view that did not touch the session is kept, without its
    cookies; anyone else gets the view as it is.
    """

    @functools.wraps(view)
    def wrapped(**kwargs: Any) -> Any:
        seconds = _seconds()
        if seconds <= 0 or not _anonymous_reader():
            return view(**kwargs)
        cache, key = page_cache(), ("page", request.full_path)
        found = cache.get(key, seconds)
        if found is not _MISSING:
            body, content_type, headers = found
            return Response(body, 200, headers=headers, content_type=content_type)
        g.fresh_data = True
        response = current_app.make_response(view(**kwargs))
        g.fresh_data = False
        if response.status_code == 200 and not session.modified and not response.is_streamed:
            headers = [
                (name, value)
                for name, value in response.headers.items()
                if name not in ("Set-Cookie", "Content-Length", "Content-Type")
            ]
            cache.put(key, (response.get_data(), response.content_type, headers))
        return response

    return wrapped
