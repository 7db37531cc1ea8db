"""Replay retention: ladder matches' replays are kept REPLAY_KEEP_DAYS, then dropped.

Replays are nearly all of what the database grows by (deploy/README.md, "Replay
retention"), and an old ladder match's replay is rarely watched. So a finished ladder
match older than the policy loses its replay's blob; its row, seats, rating history and
the ratings it moved stay, and `replay_pruned_at` records when (pages then say the
replay expired: `storage.replay_expired`). Tournament and challenge matches keep their
replays for good, and so does any match the rule below does not name as a ladder match.

Safe while workers run: only matches already `finished` are touched (a worker records a
match once; a recorded replay is never written again), rows are taken in batches of
BATCH with FOR UPDATE SKIP LOCKED (on PostgreSQL; two prunes at once share the work),
and each batch is committed, so no lock is held longer than one batch.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, exists, select, update
from sqlalchemy.orm import Session

from ladder import artifacts
from ladder.broker.announce import DEFAULT_QUEUE
from ladder.errors import ServiceError
from ladder.models import Match, MatchState, TournamentMatch, utcnow
from ladder.services import viewer
from ladder.settings import Settings

BATCH = 2000  # replays dropped per transaction
MAX_KEEP_DAYS = 36_500


@dataclass
class Pruned:
    """What a prune dropped, or (a dry run) would drop."""

    keep_days: int
    cutoff: datetime  # ladder matches finished before this lost their replays
    dry_run: bool
    matches: int = 0
    bytes: int = 0  # stored bytes freed (after the store's compression)
    batches: int = 0
    by_game: Counter = field(default_factory=Counter)

    def as_dict(self) -> dict:
        return {
            "keep_days": self.keep_days,
            "cutoff": self.cutoff.isoformat(),
            "dry_run": self.dry_run,
            "matches": self.matches,
            "bytes": self.bytes,
            "batches": self.batches,
            "by_game": dict(self.by_game),
        }


def is_ladder_match() -> ColumnElement[bool]:
    """The one rule for which replays may expire: a match the ladder's scheduler made.

    Rated, on the ladder's queue, asked for by nobody (a challenge names its user) and
    in no tournament. Whatever else is or will be made (tables with human seats, say)
    keeps its replay unless it is named here.
    """
    in_tournament = exists().where(TournamentMatch.match_id == Match.id)
    return and_(
        Match.ranked.is_(True),
        Match.queue == DEFAULT_QUEUE,
        Match.requested_by_id.is_(None),
        ~in_tournament,
    )


def check_keep_days(value: object) -> int:
    """`value` if it is a whole number of days from 1 to MAX_KEEP_DAYS; else a ServiceError."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_KEEP_DAYS:
        raise ServiceError(
            f"replays are kept a whole number of days from 1 to {MAX_KEEP_DAYS:,}, not {value!r}"
        )
    return value


def prune_replays(
    session: Session,
    settings: Settings,
    keep_days: int | None = None,
    *,
    dry_run: bool = False,
    now: datetime | None = None,
    batch: int = BATCH,
) -> Pruned:
    """Drop the replays of ladder matches finished more than `keep_days` (default
    REPLAY_KEEP_DAYS) ago; with `dry_run`, only count them and their bytes.

    It owns its transactions (its caller has none open): one per batch. Running it again
    finds nothing more to do; a run stopped half-way keeps what it committed.
    """
    days = check_keep_days(settings.replay_keep_days if keep_days is None else keep_days)
    if batch < 1:
        raise ServiceError(f"a batch is at least one match, not {batch}")
    now = now or utcnow()
    report = Pruned(days, now - timedelta(days=days), dry_run)
    store = artifacts.store(settings, session)
    after = 0
    while True:
        query = (
            select(Match.id, Match.game, Match.replay_key)
            .where(
                Match.replay_key.is_not(None),
                Match.finished_at < report.cutoff,
                Match.state == MatchState.FINISHED,
                is_ladder_match(),
                Match.id > after,
            )
            .order_by(Match.id)
            .limit(batch)
        )
        if not dry_run:
            query = query.with_for_update(skip_locked=True, of=Match)
        rows = session.execute(query).all()
        if not rows:
            session.rollback()  # ends the read (PostgreSQL would keep its snapshot)
            return report
        ids = [row.id for row in rows]
        keys = [row.replay_key for row in rows]
        after = ids[-1]
        if dry_run:
            report.bytes += store.stored_bytes(keys)
            session.rollback()
        else:
            # The blobs first, then the mark, in one transaction with the database store.
            # With the directory store the files go at once: if the commit then fails, the
            # rows still name their keys, and the next run marks them (nothing to delete).
            report.bytes += store.delete_many(keys)
            for match in session.scalars(select(Match).where(Match.id.in_(ids))):
                viewer.forget(session, settings, match)  # what the viewer worked out of it
            session.execute(
                update(Match)
                .where(Match.id.in_(ids))
                .values(replay_key=None, replay_pruned_at=now)
                .execution_options(synchronize_session=False)
            )
            session.commit()
        report.matches += len(rows)
        report.batches += 1
        report.by_game.update(row.game for row in rows)
