"""Timed page fetches on loopback, one after another or from several readers at once.

The load is bounded in count and time: at most MAX_READERS threads, at most
MAX_SECONDS, each reader one request at a time (a closed loop, so the server
is never sent more than `readers` requests at once), only to 127.0.0.1.
A time is the whole fetch as a reader sees it (connect, wait in gunicorn's
queue, render, read), so it includes the queueing that concurrency causes.
"""

from __future__ import annotations

import http.client
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

HOST = "127.0.0.1"
MAX_READERS = 64
MAX_SECONDS = 600
TIMEOUT_S = 30


@dataclass
class Page:
    """What a reader saw of one kind of page: times of good answers, and failures."""

    times_ms: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)

    def fail(self, reason: str) -> None:
        self.errors[reason] = self.errors.get(reason, 0) + 1


def fetch(port: int, path: str) -> tuple[int, float]:
    """(status, milliseconds) to connect, send a GET and read the whole response."""
    began = time.perf_counter()
    conn = http.client.HTTPConnection(HOST, port, timeout=TIMEOUT_S)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
    finally:
        conn.close()
    return response.status, (time.perf_counter() - began) * 1000


def fetch_ok_ms(port: int, path: str) -> float:
    """Milliseconds for one GET that must answer 200."""
    status, ms = fetch(port, path)
    if status != 200:
        raise RuntimeError(f"GET {path} answered {status}")
    return ms


# A page chooser: given a reader's own random source, (label, path) to fetch next.
Chooser = Callable[[random.Random], tuple[str, str]]


def load(port: int, choose: Chooser, readers: int, seconds: float, seed: int):
    """`readers` threads fetch chosen pages for `seconds`; returns ({label: Page}, wall s)."""
    if not 1 <= readers <= MAX_READERS:
        raise ValueError(f"readers must be 1 to {MAX_READERS}")
    if not 0 < seconds <= MAX_SECONDS:
        raise ValueError(f"seconds must be above 0 and at most {MAX_SECONDS}")
    pages: dict[str, Page] = {}
    lock = threading.Lock()
    began = time.monotonic()
    deadline = began + seconds

    def reader(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        while time.monotonic() < deadline:
            label, path = choose(rng)
            try:
                status, ms = fetch(port, path)
                reason = None if status == 200 else f"HTTP {status}"
            except (OSError, http.client.HTTPException) as exc:
                reason, ms = type(exc).__name__, 0.0
            with lock:
                page = pages.setdefault(label, Page())
                if reason is None:
                    page.times_ms.append(ms)
                else:
                    page.fail(reason)

    threads = [
        threading.Thread(target=reader, args=(i,), name=f"reader{i}", daemon=True)
        for i in range(readers)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        # A reader ends by its deadline plus at most one request's timeout.
        thread.join(max(0.0, deadline - time.monotonic()) + TIMEOUT_S + 5)
    return pages, time.monotonic() - began
