"""A job's stored bot files on this host, and running the job with them.

Validation and matches both run a job here: every stored bot is given a path in
this host's bot cache first (`local_files`), then the runner plays it
(`run_here`), so a bot that plays thousands of matches is fetched once per host.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator

from sqlalchemy.orm import Session

from ladder import artifacts
from ladder.services.infrastructure import limits, unsafe
from ladder.settings import Settings
from workers import BotCache, Job, Outcome, run_job


@contextlib.contextmanager
def local_files(session: Session, settings: Settings, job: Job) -> Iterator[Job]:
    """The job with each stored bot (a seat with a `key`) given a `path` on this host:
    its file in this host's bot cache, fetched from the artifact store on a miss and
    held (never evicted) until the block ends.

    A bot that plays thousands of matches is thus fetched once per worker host; a
    missing artifact raises ArtifactMissing, bytes that do not hash right BadBotFile.
    """
    cache = BotCache(settings.bot_cache_dir, settings.bot_cache_bytes)
    store = artifacts.store(settings, session)
    with contextlib.ExitStack() as held:
        seats = []
        for seat in job.seats:
            if seat.key is not None:
                fetch = functools.partial(store.get, seat.key)
                path = held.enter_context(cache.hold(seat.sha256 or "", seat.kind or "", fetch))
                seat = seat.located(path)
            seats.append(seat)
        yield job.with_seats(seats)


def run_here(session: Session, settings: Settings, job: Job) -> Outcome:
    """Play `job` on this host with the ladder's limits, its stored bots staged first
    (BadBotFile for one that cannot be)."""
    with local_files(session, settings, job) as local:
        return run_job(local, limits(settings), unsafe(settings))
