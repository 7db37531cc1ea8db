"""Announcing work to the workers, once the transaction that made it has committed.

A command that creates work (a version to validate, a match to play) stores it
in its waiting state and calls `announce(session, kind, id)`. Nothing is sent
then: the announcement waits in the session until its transaction commits, and
is dropped if it rolls back, so a worker never receives work that a rolled-back
transaction created, nor work it cannot yet see. The Celery app gives each
session a sender (`SENDER` in the session factory's `info`, set in
`ladder.jobs.celery_app`); a session without one (no broker) announces nothing,
and the work waits in the database for the sweep.

- kind "validate", id = BotVersion.id: `services.validation.validate_version`.
- kind "match", id = Match.id: `services.playing.play_match`, on the ladder's queue.
- kind "tournament", id = Match.id of a tournament match: played like a "match",
  on the tournament queue, then `services.tournaments.advance`.
- kind "challenge", id = Match.id of a user's challenge: played like a "match",
  on the challenge queue.
- kind "test", id = Match.id of a candidate version's test match: played like a
  "match", on the test queue, then `services.version_tests.advance`.
- kind "table", id = LiveTable.id: a live table with people seated, run on the
  tables queue by a worker of its own (`ladder.play_table`, see ladder/TABLES.md).
  Its match is stored already finished (`services.tables.finish`): nothing
  announces the match itself.

A match stores the queue it was sent to (`Match.queue`), so the sweep that
announces lost work again sends it back to the same one.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator

from sqlalchemy import event
from sqlalchemy.orm import Session, SessionTransaction

log = logging.getLogger(__name__)

KINDS = ("validate", "match", "tournament", "challenge", "test", "table")
# Tournament matches have a queue of their own, so a busy ladder cannot starve a
# running tournament; so do challenges, so a flood of them cannot starve the ladder
# or a tournament; so do candidates' tests, whose matches in flight are capped
# besides (TEST_SHARE, `services.version_tests`). `ladder worker` consumes every
# queue (see cli.processes), taking from each in turn: Redis's round-robin moves
# the queue it just took from to the back, so each queue with waiting work gets an
# equal share of the workers.
DEFAULT_QUEUE = "celery"
TOURNAMENT_QUEUE = "tournaments"
CHALLENGE_QUEUE = "challenges"
TEST_QUEUE = "tests"
# Beat's periodic tasks (the scheduler, the replay prune) have one too: quick as they
# are, on the ladder's queue they would take its turns while the workers are busy
# (one message a turn), and a ladder match would wait behind them.
BEAT_QUEUE = "beat"
QUEUES = (DEFAULT_QUEUE, TOURNAMENT_QUEUE, CHALLENGE_QUEUE, TEST_QUEUE, BEAT_QUEUE)
# Live tables wait minutes for a person's move: they have a queue that `ladder worker`
# does NOT consume (not in QUEUES), taken only by the table worker (`ladder worker
# --tables`), so a table never holds a worker the ladder, a tournament or a test needs.
TABLE_QUEUE = "tables"
TABLE_QUEUES = (TABLE_QUEUE,)
# The kind of match work -> the queue it goes to (and back to, when the sweep resends it).
MATCH_QUEUES = {
    "match": DEFAULT_QUEUE,
    "tournament": TOURNAMENT_QUEUE,
    "challenge": CHALLENGE_QUEUE,
    "test": TEST_QUEUE,
    "table": TABLE_QUEUE,
}
KIND_OF_QUEUE = {queue: kind for kind, queue in MATCH_QUEUES.items()}

Sender = Callable[[str, int], None]
SENDER = "ladder.announce.sender"  # session.info key: the sender, or None
_PENDING = "ladder.announce.pending"  # session.info key: what waits for the commit


def announce(session: Session, kind: str, ident: int) -> None:
    """Tell the workers about new work when `session`'s transaction commits.

    Outside a transaction (the work is committed already) it is sent at once.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind of work {kind!r}")
    if session.in_transaction():
        session.info.setdefault(_PENDING, []).append((kind, ident))
    else:
        _send(session, [(kind, ident)])


def kind_of_queue(queue: str | None) -> str:
    """The kind of match work sent to `queue` (an unknown or empty queue: the ladder's)."""
    return KIND_OF_QUEUE.get(queue or DEFAULT_QUEUE, "match")


@contextlib.contextmanager
def quiet(session: Session) -> Iterator[None]:
    """Announce nothing from `session` inside the block (seeding house bots, say):
    their work waits in the database like work made without a broker."""
    before = session.info.get(SENDER)
    session.info[SENDER] = None
    try:
        yield
    finally:
        session.info[SENDER] = before


def listen(session: Session, sender: Sender | None) -> None:
    """Give `session` a sender (tests watch what is announced with a list's append)."""
    session.info[SENDER] = sender


def listen_to(session: Session) -> Sender | None:
    """The sender `session` announces through (None: nothing listens)."""
    return session.info.get(SENDER)


def _send(session: Session, pending: list[tuple[str, int]]) -> None:
    sender = session.info.get(SENDER)
    if sender is None:
        return
    for kind, ident in pending:
        sender(kind, ident)


@event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    pending = session.info.pop(_PENDING, None)
    if pending:
        _send(session, pending)


@event.listens_for(Session, "after_transaction_end")
def _after_end(session: Session, transaction: SessionTransaction) -> None:
    # The outermost transaction ended without a commit (a rollback): its work is gone.
    if transaction.parent is None:
        session.info.pop(_PENDING, None)
