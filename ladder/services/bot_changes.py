"""What changed a bot's page, counted at commit: `BotRevision`, one counter per bot.

A web worker keeps an anonymous visitor's bot page for as long as the bot's revision
stays the same (`ladder.web.cache.keep_while`), so every command that changes what the
page shows says so here, in its own transaction: `bots_changed` with the bots, or
`matches_changed` with matches whose seated bots changed (put back, failed: their
seats are read at commit; a start moves nothing, see `matches.start_match`), or
`tournaments_changed` with tournaments whose entrants' pages list a new state or new
standings (a tournament match recorded).
Nothing is written until the transaction commits; then one statement bumps every
bot named, in key order. A rollback forgets them.

Why at commit, in key order: the counter rows are locked by this hook only, as a
transaction's last statement, so two commits sharing bots wait for each other and
never deadlock, and no other lock is ever taken while one is held.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import event, select
from sqlalchemy.orm import Session, SessionTransaction

from ladder.models import BotRevision, BotVersion, MatchSeat, TournamentEntrant, upsert

_BOTS = "ladder.changed_bots"
_MATCHES = "ladder.changed_matches"
_TOURNAMENTS = "ladder.changed_tournaments"


def bots_changed(session: Session, bot_ids: Iterable[int]) -> None:
    """These bots' pages change when the current transaction commits."""
    session.info.setdefault(_BOTS, set()).update(bot_ids)


def matches_changed(session: Session, match_ids: Iterable[int]) -> None:
    """The pages of every bot seated at these matches change when the transaction
    commits (their seats are read then, in the commit's last statements). A caller
    that has the seats loaded names their bots with `bots_changed` instead."""
    session.info.setdefault(_MATCHES, set()).update(match_ids)


def tournaments_changed(session: Session, tournament_ids: Iterable[int]) -> None:
    """Every entrant's page changes when the transaction commits (the tournament's
    state or standings, which a bot page lists)."""
    session.info.setdefault(_TOURNAMENTS, set()).update(tournament_ids)


def bump(session: Session, bot_ids: Iterable[int]) -> None:
    """Add one to these bots' revisions now, in one statement, in key order."""
    rows = [{"bot_id": bot_id, "revision": 1} for bot_id in sorted(set(bot_ids))]
    if not rows:
        return
    statement = upsert(session, BotRevision)
    session.execute(
        statement.values(rows).on_conflict_do_update(
            index_elements=[BotRevision.bot_id],
            set_={"revision": BotRevision.revision + 1},
        )
    )


@event.listens_for(Session, "before_commit")
def _before_commit(session: Session) -> None:
    bots = session.info.pop(_BOTS, None) or set()
    matches = session.info.pop(_MATCHES, None)
    tournaments = session.info.pop(_TOURNAMENTS, None) or set()
    if not bots and not matches and not tournaments:
        return
    session.flush()  # a bot made in this transaction has its row before its counter
    if matches:
        ids = sorted(matches)
        bots.update(
            session.scalars(
                select(BotVersion.bot_id)
                .join(MatchSeat, MatchSeat.version_id == BotVersion.id)
                .where(MatchSeat.match_id.in_(ids))
            )
        )
    if tournaments:
        bots.update(
            session.scalars(
                select(TournamentEntrant.bot_id).where(
                    TournamentEntrant.tournament_id.in_(sorted(tournaments))
                )
            )
        )
    bump(session, bots)


@event.listens_for(Session, "after_transaction_end")
def _after_end(session: Session, transaction: SessionTransaction) -> None:
    # The outermost transaction ended (committed, or rolled back): start afresh.
    if transaction.parent is None:
        session.info.pop(_BOTS, None)
        session.info.pop(_MATCHES, None)
        session.info.pop(_TOURNAMENTS, None)
