"""A stored match's replay as the download and the viewer serve it, worked out once.

`replay_key` checks a match's replay is there before anything is served from it
(a 304 included), leaving the wording of why not to `matches.replay_bytes`, so a
replay that goes stops being served everywhere at once.

The viewer's summary and frames are made by the engine re-applying every move
(`queries.replays`), hundreds of milliseconds for a long game. A finished match's
replay never changes, so the first read of a summary, or of one perspective's
frames, works all of it out and keeps it in the artifact store as gzipped JSON
bodies, one per chunk of DEFAULT_CHUNK steps (the chunks the viewer asks for); later
reads serve those bytes. The keys name the site's engine version and this module's
FORMAT, so an upgrade that could draw a frame differently works them out again.
`forget` drops them (a retention policy calls it with the replay's own deletion).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass

from sqlalchemy.orm import Session

import engine
from ladder import artifacts
from ladder.errors import NotFound
from ladder.models import Match
from ladder.queries import replays
from ladder.services import matches
from ladder.settings import Settings

FORMAT = 1  # bump when what a stored body holds changes: old ones are then ignored
CHUNK = replays.DEFAULT_CHUNK


def replay_key(session: Session, settings: Settings, match: Match, *, check: bool = True) -> str:
    """The key of a match's replay, present in the store (`check=False` skips asking).

    Without one, the error `matches.replay_bytes` raises (NotFound, 404): that function
    alone words why a replay cannot be served, here as on the download.
    """
    key = match.replay_key
    if key is None or (check and not artifacts.store(settings, session).exists(key)):
        matches.replay_bytes(session, settings, match)  # raises: there is nothing to read
        raise NotFound(f"the replay of match {match.id} is missing from the store")
    return key


def replay_bytes(session: Session, settings: Settings, match: Match) -> bytes:
    """A match's stored replay, gzipped JSON as kept (`matches.replay_bytes`)."""
    return matches.replay_bytes(session, settings, match)


def etag(match: Match) -> str:
    """A validator for what a match's replay URLs serve: it changes only if the replay
    (its key, when it was recorded), the engine drawing it or FORMAT does."""
    seed = f"{match.replay_key}|{match.finished_at}|{_tag(match.game)}"
    return hashlib.sha256(seed.encode()).hexdigest()[:24]


def _tag(game: str) -> str:
    return f"e{engine.get_game(game).version}-f{FORMAT}".lower()


def _prefix(match: Match) -> str:
    return f"viewer/{match.id}/{_tag(match.game)}"


@dataclass(frozen=True)
class Body:
    """A JSON body, gzipped as kept: `plain()` for a client that does not take gzip."""

    gzipped: bytes

    def plain(self) -> bytes:
        return gzip.decompress(self.gzipped)


def _encode(value: dict) -> bytes:
    raw = json.dumps(value, separators=(",", ":"), sort_keys=True).encode()
    return gzip.compress(raw, compresslevel=6, mtime=0)


def summary(session: Session, settings: Settings, match: Match) -> Body:
    """The viewer's summary of a stored match (`replays.summary`)."""
    replay_key(session, settings, match)
    key = f"{_prefix(match)}/summary.json.gz"
    store = artifacts.store(settings, session)
    try:
        return Body(store.get(key))
    except artifacts.ArtifactMissing:
        pass
    replay = replays.load_stored(replay_bytes(session, settings, match), match.game)
    body = _encode(replays.summary(replay))
    _keep(store, {key: body})
    return Body(body)


def frames(
    session: Session,
    settings: Settings,
    match: Match,
    view: str | None,
    start: str | None,
    count: str | None,
) -> Body:
    """The viewer's frames of a stored match, as `replays.frames` makes them.

    `view`, `start` and `count` are the raw query arguments, checked as the viewer's
    endpoint for an opened file checks them (ReplayError, 400). A whole chunk is
    served as kept; any other window is cut from the chunks it spans.
    """
    info = json.loads(summary(session, settings, match).plain())
    shape = _Shape(info["players"], info["steps"], replays.SPECTATOR in info["perspectives"])
    perspective = replays.parse_perspective(view, shape)
    first, size = replays.parse_window(start, count, shape)
    last = min(first + size, shape.steps + 1) - 1
    chunks = _chunks(session, settings, match, perspective, first // CHUNK, last // CHUNK)
    if size == CHUNK and first % CHUNK == 0:
        return chunks[0]
    window = [
        frame
        for chunk in chunks
        for frame in json.loads(chunk.plain())["frames"]
        if first <= frame["step"] <= last
    ]
    body = {"game": match.game, "view": perspective, "start": first, "steps": shape.steps}
    return Body(_encode({**body, "frames": window}))


@dataclass(frozen=True)
class _Shape:
    """What the argument checks need of a replay, read from its kept summary."""

    players: int
    steps: int
    spectator: bool

    def spectator_allowed(self) -> bool:
        return self.spectator


def _chunk_key(match: Match, perspective: str | int, n: int) -> str:
    return f"{_prefix(match)}/{perspective}/{n}.json.gz"


def _chunks(
    session: Session,
    settings: Settings,
    match: Match,
    perspective: str | int,
    first: int,
    last: int,
) -> list[Body]:
    """Chunks `first`..`last` of one perspective; all of its chunks made if one is missing."""
    store = artifacts.store(settings, session)
    try:
        return [Body(store.get(_chunk_key(match, perspective, n))) for n in range(first, last + 1)]
    except artifacts.ArtifactMissing:
        pass
    replay = replays.load_stored(replay_bytes(session, settings, match), match.game)
    whole = replays.frames(replay, perspective, 0, replay.steps + 1)
    bodies = {}
    for n in range(replay.steps // CHUNK + 1):
        chunk = {
            **whole,
            "start": n * CHUNK,
            "frames": whole["frames"][n * CHUNK : (n + 1) * CHUNK],
        }
        bodies[_chunk_key(match, perspective, n)] = _encode(chunk)
    _keep(store, bodies)
    return [Body(bodies[_chunk_key(match, perspective, n)]) for n in range(first, last + 1)]


def _keep(store: artifacts.ArtifactStore, bodies: dict[str, bytes]) -> None:
    """Put what was worked out; the caller's unit of work commits it with the answer.

    Two first readers of one replay may both work it out: the second put replaces the
    first with the same bytes.
    """
    for key, body in bodies.items():
        store.put(key, body)


def forget(session: Session, settings: Settings, match: Match) -> int:
    """Drop what the viewer kept of a match (for a retention policy dropping its replay);
    returns how many bodies went. Keys of older engine versions or FORMATs are not tried."""
    store = artifacts.store(settings, session)
    prefix = _prefix(match)
    if not store.exists(f"{prefix}/summary.json.gz"):
        return 0
    info = json.loads(gzip.decompress(store.get(f"{prefix}/summary.json.gz")))
    keys = [f"{prefix}/summary.json.gz"]
    for perspective in info["perspectives"]:
        keys += [_chunk_key(match, perspective, n) for n in range(info["steps"] // CHUNK + 1)]
    return sum(store.delete(key) for key in keys)
