"""Add matches.queue: the broker queue a match was sent to, stored when it is made, so
the sweep that announces lost work sends it back to the same queue instead of working
it out again. Matches that exist get the queue they were sent to: a tournament's
matches "tournaments", a user's challenges "challenges", the ladder's "celery".

Revision: a3c9e1f27b40 (after d64fd4747960)
Created: 2026-12-04 10:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "a3c9e1f27b40"
down_revision = "d64fd4747960"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(
            sa.Column("queue", sa.String(length=20), nullable=False, server_default="celery")
        )
    op.execute(
        "UPDATE matches SET queue = 'tournaments'"
        " WHERE id IN (SELECT match_id FROM tournament_matches)"
    )
    op.execute(
        "UPDATE matches SET queue = 'challenges'"
        " WHERE requested_by_id IS NOT NULL AND queue = 'celery'"
    )


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("queue")
