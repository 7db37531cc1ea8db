"""Head to head, counted as each result is recorded: a bot page's opponents table.

`count_match` runs in the recording's transaction, so a match counts exactly once
whichever worker records it, and never for a result that is refused. Its rows are
upserted in key order, in one statement, so two recordings sharing a pair of bots
wait for each other instead of deadlocking; a recording locks its rating rows
(`services.matches._rate`) before these, never after.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy.orm import Session

from ladder.broker.announce import TABLE_QUEUE, TEST_QUEUE
from ladder.models import HeadToHead, Match, upsert

COUNTS = ("met", "ahead", "behind", "tied")


def pairs(ranked: list[tuple[int, int]]) -> dict[tuple[int, int], Counter]:
    """Per (bot, opponent): met, ahead, behind and tied over the seats `(bot_id, rank)`
    of one match; every ordered pair of seats held by different bots."""
    out: dict[tuple[int, int], Counter] = {}
    for i, (bot, rank) in enumerate(ranked):
        for j, (other, their_rank) in enumerate(ranked):
            if i == j or bot == other:
                continue
            tally = out.setdefault((bot, other), Counter())
            tally["met"] += 1
            if rank < their_rank:
                tally["ahead"] += 1
            elif rank > their_rank:
                tally["behind"] += 1
            else:
                tally["tied"] += 1
    return out


def count_match(session: Session, match: Match) -> None:
    """Add a just-recorded match to the head-to-head rows of the bots it seated: one
    statement, whatever the table size. A candidate's test match is not counted: it is
    an experiment of its owner's, not a meeting on the ladder."""
    if match.queue in (TEST_QUEUE, TABLE_QUEUE):  # a live table's bots meet people there
        return
    ranked = [(s.version.bot_id, s.rank) for s in match.seats if s.version and s.rank is not None]
    rows = [
        {"bot_id": bot, "opponent_id": opponent, **{name: tally[name] for name in COUNTS}}
        for (bot, opponent), tally in sorted(pairs(ranked).items())
    ]
    if not rows:
        return
    statement = upsert(session, HeadToHead)
    session.execute(
        statement.values(rows).on_conflict_do_update(
            index_elements=[HeadToHead.bot_id, HeadToHead.opponent_id],
            set_={name: getattr(HeadToHead, name) + statement.excluded[name] for name in COUNTS},
        )
    )
