"""Each version's rated matches by table size and seat, counted as they are rated.

Matchmaking balances every bot's mix of table sizes and seats
(`ladder.ranking.table_mix`) from these rows, and a bot page shows its record by
table size and seat from them: a few rows a version, however many matches it played.
`count_rated` runs in the recording's transaction, from `matches._rate`, after the
seats' rating rows are locked: a match counts exactly once whichever worker records it,
and two recordings that share a version wait on its rating row before reaching these.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.orm import Session

from ladder.models import MatchSeat, SeatRecord, upsert
from workers import SeatStatus

COUNTS = ("games", "wins", "rank_sum", "faults")


def count_rated(session: Session, players: int, seats: Iterable[MatchSeat]) -> None:
    """Add the rated `seats` of one match of `players` seats to their versions' rows:
    one statement, rows in key order."""
    rows = sorted(
        (
            {
                "version_id": seat.version_id,
                "players": players,
                "seat": seat.seat,
                "games": 1,
                "wins": int(seat.rank == 1),
                "rank_sum": seat.rank,
                "faults": int(seat.status != SeatStatus.OK),
            }
            for seat in seats
            if seat.version_id is not None and seat.rank is not None
        ),
        key=lambda row: (row["version_id"], row["seat"]),
    )
    if not rows:
        return
    statement = upsert(session, SeatRecord)
    session.execute(
        statement.values(rows).on_conflict_do_update(
            index_elements=[SeatRecord.version_id, SeatRecord.players, SeatRecord.seat],
            set_={name: getattr(SeatRecord, name) + statement.excluded[name] for name in COUNTS},
        )
    )
