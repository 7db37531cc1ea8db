"""Add re-solved ratings (issue 34): TrueSkill Through Time over each game's history.

`resolved_ratings` holds each version's re-solved μ, σ (and μ − 3σ for the board) with
its bounded curve, beside the online `ratings`; `resolve_runs` the last re-solve of
each game (when, over which matches, how it converged). Both are rewritten whole by
every re-solve (`services.resolve`).

Revision: c1e5a9f3b7d2 (after a7c4e9d2b315)
Created: 2026-12-11 10:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "c1e5a9f3b7d2"
down_revision = "a7c4e9d2b315"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "resolved_ratings",
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("skill", sa.Float(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("curve", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["bot_versions.id"],
            name=op.f("fk_resolved_ratings_version_id_bot_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("version_id", name=op.f("pk_resolved_ratings")),
    )
    with op.batch_alter_table("resolved_ratings", schema=None) as batch_op:
        batch_op.create_index("ix_resolved_ratings_game_skill", ["game", "skill"], unique=False)

    op.create_table(
        "resolve_runs",
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("solved_at", sa.DateTime(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("rated_matches", sa.Integer(), nullable=False),
        sa.Column("first_match_id", sa.Integer(), nullable=True),
        sa.Column("iterations", sa.Integer(), nullable=False),
        sa.Column("step", sa.Float(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("game", name=op.f("pk_resolve_runs")),
    )


def downgrade() -> None:
    op.drop_table("resolve_runs")
    with op.batch_alter_table("resolved_ratings", schema=None) as batch_op:
        batch_op.drop_index("ix_resolved_ratings_game_skill")
    op.drop_table("resolved_ratings")
