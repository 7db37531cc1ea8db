"""Replay retention: matches.replay_pruned_at, set when the retention policy drops a
ladder match's replay (its key is cleared then; seats and ratings stay), and a partial
index of the matches whose replay is still stored, by finish time, which is what the
daily prune reads. Existing matches keep their replays: the column starts empty.

Revision: c7d2e8a4f1b9 (after a3c9e1f27b40)
Created: 2026-12-05 10:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "c7d2e8a4f1b9"
down_revision = "a3c9e1f27b40"
branch_labels = None
depends_on = None

KEPT = sa.text("replay_key IS NOT NULL")


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("replay_pruned_at", sa.DateTime(), nullable=True))
    op.create_index(
        "ix_matches_replay_kept_finished",
        "matches",
        ["finished_at"],
        postgresql_where=KEPT,
        sqlite_where=KEPT,
    )


def downgrade() -> None:
    op.drop_index("ix_matches_replay_kept_finished", table_name="matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("replay_pruned_at")
