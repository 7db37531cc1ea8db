"""A bot's rated matches by table size and by seat, beside the mix the ladder aims at.

Read from `SeatRecord` (a few rows a version, kept as matches are rated), so a bot
page and the API get its record by table size and seat without reading its seats.
Only rated ladder matches count: the work the rating is built on, and what
matchmaking balances (`ladder.ranking.table_mix`).
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import engine
from ladder.models import BotVersion, SeatRecord
from ladder.ranking import table_mix


def _line(games: int, wins: int, rank_sum: int, faults: int) -> dict:
    return {
        "games": games,
        "wins": wins,
        "mean_rank": round(rank_sum / games, 2) if games else None,
        "faults": faults,
    }


def table_record(session: Session, bot_id: int, game: str) -> dict:
    """The bot's record over all its versions: `sizes`, one line per table size of the
    game, and `seats`, one per size and seat (seats count from 0), each with games,
    wins (rank 1), mean rank, faults, its share (of all the bot's rated matches; of
    those at that size for a seat) and the target share; sizes and seats it never
    played are there with 0 games."""
    spec = engine.get_game(game)
    target = table_mix.target_sizes(game, spec.min_players, spec.max_players)
    rows = session.execute(
        select(
            SeatRecord.players,
            SeatRecord.seat,
            func.sum(SeatRecord.games),
            func.sum(SeatRecord.wins),
            func.sum(SeatRecord.rank_sum),
            func.sum(SeatRecord.faults),
        )
        .join(BotVersion, SeatRecord.version_id == BotVersion.id)
        .where(BotVersion.bot_id == bot_id)
        .group_by(SeatRecord.players, SeatRecord.seat)
    ).all()
    cells = {(players, seat): tuple(map(int, counts)) for players, seat, *counts in rows}
    sizes = sorted(set(target) | {players for players, _ in cells})
    total = sum(c[0] for c in cells.values())
    by_size, by_seat = [], []
    for players in sizes:
        seat_cells = [cells.get((players, seat), (0, 0, 0, 0)) for seat in range(players)]
        at_size = [sum(column) for column in zip(*seat_cells, strict=True)]
        by_size.append(
            {
                "players": players,
                **_line(*at_size),
                "share": round(at_size[0] / total, 3) if total else None,
                "target": round(target.get(players, 0.0), 3),
            }
        )
        for seat, counts in enumerate(seat_cells):
            by_seat.append(
                {
                    "players": players,
                    "seat": seat,
                    **_line(*counts),
                    "share": round(counts[0] / at_size[0], 3) if at_size[0] else None,
                    "target": round(1 / players, 3),
                }
            )
    return {"games": total, "sizes": by_size, "seats": by_seat}
