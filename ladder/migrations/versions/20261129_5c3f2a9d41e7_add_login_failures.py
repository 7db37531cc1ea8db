"""Add login_failures: recent failed logins, to slow down password guessing.

Revision: 5c3f2a9d41e7 (after 80700130e1b6)
Created: 2026-11-29 15:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "5c3f2a9d41e7"
down_revision = "80700130e1b6"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=64), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_failures")),
    )
    for column in ("username", "address", "at"):
        op.create_index(
            op.f(f"ix_login_failures_{column}"), "login_failures", [column], unique=False
        )


def downgrade() -> None:
    for column in ("username", "address", "at"):
        op.drop_index(op.f(f"ix_login_failures_{column}"), table_name="login_failures")
    op.drop_table("login_failures")
