"""Crash triage: a version whose last ladder matches all faulted is paused from
matchmaking (paused_at, paused_reason) until its owner resumes it (resumed_at:
only matches after it count toward the next pause).

Revision: e5a7c3f19b62 (after d41c7e2b9f58)
Created: 2026-12-02 10:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "e5a7c3f19b62"
down_revision = "d41c7e2b9f58"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(sa.Column("paused_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("paused_reason", sa.Text(), nullable=True))
        batch.add_column(sa.Column("resumed_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_column("resumed_at")
        batch.drop_column("paused_reason")
        batch.drop_column("paused_at")
