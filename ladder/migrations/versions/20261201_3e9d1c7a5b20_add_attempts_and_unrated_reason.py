"""Add attempts (matches, bot_versions) and matches.unrated_reason.

A worker counts each start of a match or a validation, so work that keeps
failing ends `failed` after MAX_ATTEMPTS instead of being handed out forever.
`unrated_reason` says why a match moved no rating (it failed, or its outcome
was void); a failed match's reason used to live on each of its seats, so it
is copied from the first seat that has one.

Revision: 3e9d1c7a5b20 (after 5c3f2a9d41e7)
Created: 2026-12-01 03:40:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "3e9d1c7a5b20"
down_revision = "5c3f2a9d41e7"
branch_labels = None
depends_on = None


# Plain ALTER TABLE, never batch mode: on SQLite a batch copies the table and
# drops the old one, and with foreign keys on, that drop cascades (deleting every
# seat, rating and history row). SQLite adds and drops such columns in place.


def upgrade() -> None:
    # The server default fills the column for rows that already exist.
    for table in ("matches", "bot_versions"):
        op.add_column(
            table, sa.Column("attempts", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )
    op.add_column("matches", sa.Column("unrated_reason", sa.Text(), nullable=True))
    op.execute(
        "UPDATE matches SET unrated_reason = ("
        " SELECT error FROM match_seats"
        " WHERE match_seats.match_id = matches.id AND match_seats.error IS NOT NULL"
        " ORDER BY match_seats.seat LIMIT 1)"
        " WHERE state = 'failed'"
    )


def downgrade() -> None:
    # Failed matches keep their reason where the older code reads it: on the seats.
    op.execute(
        "UPDATE match_seats SET error = ("
        " SELECT unrated_reason FROM matches WHERE matches.id = match_seats.match_id)"
        " WHERE error IS NULL AND match_id IN (SELECT id FROM matches WHERE state = 'failed')"
    )
    op.drop_column("matches", "unrated_reason")
    for table in ("bot_versions", "matches"):
        op.drop_column(table, "attempts")
