"""Shared pages kept in memory, one bounded cache per web worker.

Two things are kept, both the same for every visitor, never anything of one user:

- the whole answer to an anonymous GET (`shared_page`): no logged-in user, no bearer
  token, no flashed message waiting, no conditional or range request, and a view that
  left the session alone (a page that made a CSRF token is not kept). A logged-in
  visitor's page carries their name and their forms, so it is never kept and never
  served from here;
- the data shared pages are made of (`shared_data`), which a logged-in visitor's page
  is rendered around afresh.

A page is kept PAGE_CACHE_S seconds, so a change (a match recorded, a rating moved)
shows at most that late, in each worker on its own; a page kept by the first layer is
always made from fresh data, so ages never add up. A view whose page can no longer
change (a finished match, a stored replay) says so with `keep_longer()`: that page is kept
PAGE_CACHE_DONE_S seconds, and the one thing that can still change on it (its replay
expiring under the retention policy) shows that late. A view whose page changes only
with one number it can read cheaply (a bot page: its bot's revision) says so with
`keep_while(check)`: that page is kept up to PAGE_CACHE_DONE_S seconds, and once it is
PAGE_CACHE_S old, each visitor's request reads `check()` again (at most once every
PAGE_CACHE_S seconds a page) and the page is made afresh as soon as the number moved.
So a change still shows at most PAGE_CACHE_S late, and an unchanged page is made once,
not once every PAGE_CACHE_S. In memory rather than in Redis: a hit costs no round
trip, and the lag is the same either way.
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

MAX_ENTRIES = 4096  # pages and data together; the oldest goes first
MAX_BYTES = 64 * 1024 * 1024  # of kept page bodies (data is counted at DATA_BYTES each)
DATA_BYTES = 16 * 1024
EXTENSION = "ladder.page_cache"
_MISSING = object()


class TtlCache:
    """Values by key until the expiry each was put with, at most `max_entries` of them
    and `max_bytes` of their sizes; the oldest put goes first."""

    def __init__(
        self,
        max_entries: int = MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.clock = clock
        self._entries: dict[Hashable, tuple[float, int, Any]] = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any:
        """The value kept under `key` if it has not expired, else _MISSING."""
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return _MISSING
            if self.clock() >= found[0]:
                self._drop(key)
                return _MISSING
            return found[2]

    def put(self, key: Hashable, value: Any, seconds: float, size: int = DATA_BYTES) -> None:
        """Keep `value` for `seconds`; a value larger than the whole budget is not kept
        (and what was kept under `key` before goes: it is out of date)."""
        with self._lock:
            self._drop(key)
            if size > self.max_bytes:
                return
            while self._entries and (
                len(self._entries) >= self.max_entries or self._bytes + size > self.max_bytes
            ):
                self._drop(next(iter(self._entries)))  # the oldest kept
            self._entries[key] = (self.clock() + seconds, size, value)
            self._bytes += size

    def _drop(self, key: Hashable) -> None:
        found = self._entries.pop(key, None)
        if found is not None:
            self._bytes -= found[1]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0


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
        found = cache.get(key)
        if found is not _MISSING:
            return found
    value = make()
    cache.put(key, value, seconds)
    return value


def keep_longer(when: bool = True) -> None:
    """Say (`when` true) that the page being made can no longer change (a finished match,
    a stored replay): if it is kept, it is kept PAGE_CACHE_DONE_S seconds, not
    PAGE_CACHE_S."""
    if when:
        g.page_lasts = True


class _Watch:
    """What a kept page is right as long as: `check()` giving `stamp`, last seen so until
    `checked_until` (the cache's clock)."""

    __slots__ = ("check", "checked_until", "stamp")

    def __init__(self, check: Callable[[], Hashable], stamp: Hashable, checked_until: float):
        self.check, self.stamp, self.checked_until = check, stamp, checked_until

    def still_right(self, now: float, seconds: float) -> bool:
        if now < self.checked_until:
            return True
        try:
            same = self.check() == self.stamp
        except Exception:  # the check cannot be made (say, the database is away): make the page
            return False
        if same:
            self.checked_until = now + seconds
        return same


def keep_while(check: Callable[[], Hashable]) -> None:
    """Say that the page being made stays right while `check()` returns what it returns
    now; call it before reading anything the page shows, so a change made meanwhile
    moves the number after the page was read. It reads `check()` only while a page is
    being made to keep (an anonymous visitor's); otherwise it does nothing."""
    if g.get("fresh_data"):
        g.page_watch = (check, check())


def _anonymous_reader() -> bool:
    """A visitor nothing on the page could be personal to."""
    return (
        request.method == "GET"
        and "Authorization" not in request.headers
        and "If-None-Match" not in request.headers  # the view answers 304 itself
        and "Range" not in request.headers
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
        # What a view may answer differently on (gzip or not, the Accept of the API's
        # replay) is part of the key, beside the path and query.
        gzip = "gzip" in request.accept_encodings
        cache = page_cache()
        key = ("page", request.full_path, gzip, request.headers.get("Accept", ""))
        found = cache.get(key)
        if found is not _MISSING:
            body, content_type, headers, watch = found
            if watch is None or watch.still_right(cache.clock(), seconds):
                return Response(body, 200, headers=headers, content_type=content_type)
        g.fresh_data, g.page_lasts, g.page_watch = True, False, None
        response = current_app.make_response(view(**kwargs))
        g.fresh_data = False
        if response.status_code == 200 and not session.modified and not response.is_streamed:
            headers = [
                (name, value)
                for name, value in response.headers.items()
                if name not in ("Set-Cookie", "Content-Length", "Content-Type")
            ]
            body = response.get_data()
            longer = g.page_lasts or g.page_watch is not None
            lasts = max(app_settings().page_cache_done_s, seconds) if longer else seconds
            watch = None
            if g.page_watch is not None:
                check, stamp = g.page_watch
                watch = _Watch(check, stamp, cache.clock() + seconds)
            cache.put(key, (body, response.content_type, headers, watch), lasts, len(body))
        return response

    return wrapped
