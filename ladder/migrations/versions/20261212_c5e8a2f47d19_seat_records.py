"""Add seat_records: each version's rated matches by table size and seat (issue 34),
kept as matches are rated (`ladder.services.table_mix`), so matchmaking balances every
bot's mix of table sizes and seats, and a bot page shows its record by table size and
seat, from a few rows a version.

The rated seats so far (those with a rating after the match, `mu_after`) are counted
here once, in one statement.

Revision: c5e8a2f47d19 (after c1e5a9f3b7d2)
Created: 2026-12-11 10:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "c5e8a2f47d19"
down_revision = "c1e5a9f3b7d2"
branch_labels = None
depends_on = None

COUNT_RATED = """
INSERT INTO seat_records (version_id, players, seat, games, wins, rank_sum, faults)
SELECT match_seats.version_id, matches.players, match_seats.seat, count(*),
       sum(CASE WHEN match_seats.rank = 1 THEN 1 ELSE 0 END),
       sum(match_seats.rank),
       sum(CASE WHEN match_seats.status = 'ok' THEN 0 ELSE 1 END)
FROM match_seats
JOIN matches ON matches.id = match_seats.match_id
WHERE match_seats.version_id IS NOT NULL AND match_seats.mu_after IS NOT NULL
  AND match_seats.rank IS NOT NULL
GROUP BY match_seats.version_id, matches.players, match_seats.seat
"""


def upgrade() -> None:
    op.create_table(
        "seat_records",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("rank_sum", sa.Integer(), nullable=False),
        sa.Column("faults", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["bot_versions.id"],
            name=op.f("fk_seat_records_version_id_bot_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("version_id", "players", "seat", name=op.f("pk_seat_records")),
    )
    op.execute(COUNT_RATED)


def downgrade() -> None:
    op.drop_table("seat_records")
