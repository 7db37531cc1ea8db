"""Add user_sessions (revocable logins), throttle_locks and throttle_events (limits
counted atomically), and an index on a user's challenges.

Revision: b6d1f0c3a8e4 (after 7a4e2c915d63)
Created: 2026-12-01 09:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "b6d1f0c3a8e4"
down_revision = "7a4e2c915d63"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "user_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("agent", sa.String(length=200), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_user_sessions_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_user_sessions_token_hash")),
    )
    op.create_index(op.f("ix_user_sessions_user_id"), "user_sessions", ["user_id"], unique=False)
    op.create_table(
        "throttle_locks",
        sa.Column("slot", sa.String(length=40), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("slot", name=op.f("pk_throttle_locks")),
    )
    op.create_table(
        "throttle_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_throttle_events")),
    )
    op.create_index(
        "ix_throttle_events_kind_key_at", "throttle_events", ["kind", "key", "at"], unique=False
    )
    op.create_index(
        "ix_matches_requested_by_created",
        "matches",
        ["requested_by_id", "created_at"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_matches_requested_by_created", table_name="matches")
    op.drop_index("ix_throttle_events_kind_key_at", table_name="throttle_events")
    op.drop_table("throttle_events")
    op.drop_table("throttle_locks")
    op.drop_index(op.f("ix_user_sessions_user_id"), table_name="user_sessions")
    op.drop_table("user_sessions")
