"""Add head_to_head: how each bot fared against each other bot, kept as results are
recorded (`ladder.services.head_to_head`), so a bot page reads its opponents from a
few rows (on PostgreSQL with 10^6 matches the join it replaces took 27-52 ms a page;
bench/web.py).

The matches recorded so far are counted here once, in one statement: every pair of
ranked seats of different bots in a match, both ways. On 10^6 matches of four seats
that is a join of about 12 million seat pairs (measured in deploy/README.md, "Page speed").

Revision: d4a1f6c3e820 (after b8e4f2a91c07)
Created: 2026-12-07 10:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "d4a1f6c3e820"
down_revision = "b8e4f2a91c07"
branch_labels = None
depends_on = None

COUNT_RECORDED = """
INSERT INTO head_to_head (bot_id, opponent_id, met, ahead, behind, tied)
SELECT mine_version.bot_id, their_version.bot_id, count(*),
       sum(CASE WHEN mine.rank < theirs.rank THEN 1 ELSE 0 END),
       sum(CASE WHEN mine.rank > theirs.rank THEN 1 ELSE 0 END),
       sum(CASE WHEN mine.rank = theirs.rank THEN 1 ELSE 0 END)
FROM match_seats AS mine
JOIN bot_versions AS mine_version ON mine_version.id = mine.version_id
JOIN match_seats AS theirs ON theirs.match_id = mine.match_id AND theirs.seat != mine.seat
JOIN bot_versions AS their_version ON their_version.id = theirs.version_id
WHERE mine.rank IS NOT NULL AND theirs.rank IS NOT NULL
  AND mine_version.bot_id != their_version.bot_id
GROUP BY mine_version.bot_id, their_version.bot_id
"""


def upgrade() -> None:
    op.create_table(
        "head_to_head",
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("opponent_id", sa.Integer(), nullable=False),
        sa.Column("met", sa.Integer(), nullable=False),
        sa.Column("ahead", sa.Integer(), nullable=False),
        sa.Column("behind", sa.Integer(), nullable=False),
        sa.Column("tied", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], name=op.f("fk_head_to_head_bot_id_bots")),
        sa.ForeignKeyConstraint(
            ["opponent_id"], ["bots.id"], name=op.f("fk_head_to_head_opponent_id_bots")
        ),
        sa.PrimaryKeyConstraint("bot_id", "opponent_id", name=op.f("pk_head_to_head")),
    )
    op.execute(COUNT_RECORDED)


def downgrade() -> None:
    op.drop_table("head_to_head")
