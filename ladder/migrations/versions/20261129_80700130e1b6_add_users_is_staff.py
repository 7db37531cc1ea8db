"""Add users.is_staff: who may see the staff status page (false for everyone at first).

Revision: 80700130e1b6 (after bb170ce6ecf0)
Created: 2026-11-29 12:58:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "80700130e1b6"
down_revision = "bb170ce6ecf0"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The server default fills the column for users who already exist.
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("is_staff", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("is_staff")
