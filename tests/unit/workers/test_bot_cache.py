"""A worker host's bot cache: hits, misses, eviction by last use, the bound, files in
use, bad bytes, and several processes sharing one folder."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import time

import pytest

from workers import BotCache


def bot(n: int, size: int = 1000) -> tuple[str, bytes]:
    """A distinct bot file of `size` bytes and its sha256."""
    data = f"# bot {n}\n".encode().ljust(size, b"#")
    return hashlib.sha256(data).hexdigest(), data


class Fetcher:
    """Hands out bytes and counts the calls."""

    def __init__(self, data: bytes) -> None:
        self.data, self.calls = data, 0

    def __call__(self) -> bytes:
        self.calls += 1
        return self.data


def use(cache: BotCache, sha: str, fetch, kind: str = "py") -> bytes:
    """Hold a bot's file as a worker does while staging it; its bytes."""
    with cache.hold(sha, kind, fetch) as path:
        return path.read_bytes()


def cached(cache: BotCache) -> set[str]:
    return {p.name for p in cache.folder.iterdir() if not p.name.startswith(".")}


def test_a_miss_fetches_and_a_hit_does_not(tmp_path):
    cache = BotCache(tmp_path / "cache", 10_000)
    sha, data = bot(1)
    fetch = Fetcher(data)
    with cache.hold(sha, "py", fetch) as first:
        assert first == tmp_path / "cache" / f"{sha}.py" and first.read_bytes() == data
    with cache.hold(sha, "py", fetch) as again:
        assert again == first and again.read_bytes() == data
    assert fetch.calls == 1
    # The kind is part of the name staging reads: the same bytes as a zip are another file.
    with cache.hold(sha, "zip", fetch) as other:
        assert other.suffix == ".zip"
    assert fetch.calls == 2


def test_eviction_removes_the_least_recently_used_first(tmp_path):
    cache = BotCache(tmp_path, 3000)  # room for three bots of 1,000 bytes
    (a, da), (b, db), (c, dc), (d, dd), (e, de) = (bot(n) for n in range(5))
    for sha, data in ((a, da), (b, db), (c, dc)):
        use(cache, sha, Fetcher(data))
    assert use(cache, a, Fetcher(b"never fetched")) == da  # a hit: a is the most recent now
    use(cache, d, Fetcher(dd))
    assert cached(cache) == {f"{a}.py", f"{c}.py", f"{d}.py"}  # b went: least recently used
    use(cache, e, Fetcher(de))
    assert cached(cache) == {f"{a}.py", f"{d}.py", f"{e}.py"}  # then c


def test_a_file_in_use_is_never_evicted(tmp_path):
    cache = BotCache(tmp_path, 2000)
    (a, da), (b, db), (c, dc), (d, dd) = (bot(n) for n in range(4))
    with cache.hold(a, "py", Fetcher(da)) as held:
        for sha, data in ((b, db), (c, dc), (d, dd)):
            use(cache, sha, Fetcher(data))
        assert held.read_bytes() == da  # the oldest, yet kept while it is held
        assert cached(cache) == {f"{a}.py", f"{d}.py"}
    use(cache, b, Fetcher(db))  # given back: now it goes like any other
    assert cached(cache) == {f"{d}.py", f"{b}.py"}


@pytest.mark.parametrize(
    ("bound", "sizes", "kept"),
    [
        (5000, [1000] * 8, 5),  # never more than the bound
        (2500, [1000, 1000, 1000], 2),
        (1000, [600, 600], 1),  # two do not fit: the newest stays
        (500, [400, 2000], 1),  # one file larger than the bound is kept, alone
        (0, [10, 10], 1),  # a zero bound still returns a usable path
    ],
)
def test_usage_stays_within_the_bound(tmp_path, bound, sizes, kept):
    cache = BotCache(tmp_path, bound)
    for n, size in enumerate(sizes):
        sha, data = bot(n, size)
        assert use(cache, sha, Fetcher(data)) == data  # the file asked for is always there
        assert cache.usage() <= max(bound, size)
    assert len(cached(cache)) == kept


def test_bytes_that_do_not_hash_right_are_refused_and_not_kept(tmp_path):
    cache = BotCache(tmp_path, 10_000)
    sha, data = bot(1)
    with pytest.raises(ValueError, match="the stored copy is damaged"):
        use(cache, sha, Fetcher(data + b"\n"))
    assert cached(cache) == set()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]
    assert use(cache, sha, Fetcher(data)) == data  # a good fetch later works


def test_a_failing_fetch_passes_through_and_keeps_nothing(tmp_path):
    cache = BotCache(tmp_path, 10_000)
    sha, _ = bot(1)

    def broken() -> bytes:
        raise LookupError("no artifact")

    with pytest.raises(LookupError, match="no artifact"):
        use(cache, sha, broken)
    assert cached(cache) == set()


@pytest.mark.parametrize(
    ("sha", "kind", "message"),
    [
        ("abc", "py", "not a sha256"),
        ("A" * 64, "py", "not a sha256"),
        ("../" + "a" * 61, "py", "not a sha256"),
        ("a" * 64, "exe", r"\.py or \.zip"),
        ("a" * 64, "", r"\.py or \.zip"),
    ],
)
def test_malformed_names_are_refused_before_any_fetch(tmp_path, sha, kind, message):
    with pytest.raises(ValueError, match=message):
        use(BotCache(tmp_path, 10_000), sha, Fetcher(b""), kind)


def test_temporary_files_left_by_a_dead_process_are_cleared(tmp_path):
    old, new = tmp_path / ".tmp-dead", tmp_path / ".tmp-writing"
    old.write_bytes(b"x" * 100)
    new.write_bytes(b"y" * 100)
    two_hours_ago = time.time() - 7200
    os.utime(old, (two_hours_ago, two_hours_ago))
    sha, data = bot(1)
    use(BotCache(tmp_path, 10_000), sha, Fetcher(data))
    assert not old.exists() and new.exists()  # another process may still be writing that one


# -- several worker processes on one host ---------------------------------------------
def _fetch_shared(folder, sha, data, log, barrier, results) -> None:
    """A worker process: wait for the others, then ask for the same bot."""

    def fetch() -> bytes:
        with open(log, "a") as out:
            out.write("fetched\n")
        time.sleep(0.2)  # a slow store: the others arrive meanwhile
        return data

    barrier.wait()
    results.put(use(BotCache(folder, 10_000), sha, fetch) == data)


def test_processes_racing_for_one_bot_fetch_it_once(tmp_path):
    ctx = multiprocessing.get_context("fork")
    sha, data = bot(1)
    log = tmp_path / "fetches.log"
    barrier, results = ctx.Barrier(4), ctx.Queue()
    procs = [
        ctx.Process(
            target=_fetch_shared, args=(tmp_path / "cache", sha, data, log, barrier, results)
        )
        for _ in range(4)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    assert [p.exitcode for p in procs] == [0] * 4
    assert [results.get(timeout=5) for _ in procs] == [True] * 4
    assert log.read_text().count("fetched") == 1


def _fill(folder, first, count, barrier) -> None:
    barrier.wait()
    cache = BotCache(folder, 5000)
    for n in range(first, first + count):
        sha, data = bot(n)
        assert use(cache, sha, lambda data=data: data) == data


def test_processes_filling_one_cache_keep_it_bounded_and_whole(tmp_path):
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(4)
    procs = [ctx.Process(target=_fill, args=(tmp_path, 100 * i, 15, barrier)) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0] * 4
    cache = BotCache(tmp_path, 5000)
    assert 0 < cache.usage() <= 5000
    for name in cached(cache):  # every file left is whole: its name is its hash
        assert hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() == name[:64]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]
