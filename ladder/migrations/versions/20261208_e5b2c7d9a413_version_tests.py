"""Add version_tests and version_test_matches: a candidate version's sequential test
against its bot's active version (`ladder.services.version_tests`), and the unranked
matches of its sets.

Revision: e5b2c7d9a413 (after d4a1f6c3e820)
Created: 2026-12-08 10:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "e5b2c7d9a413"
down_revision = "d4a1f6c3e820"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "version_tests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("baseline_id", sa.Integer(), nullable=True),
        sa.Column("promote", sa.Boolean(), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=True),
        sa.Column("opponents", sa.JSON(), nullable=False),
        sa.Column("s0", sa.Float(), nullable=False),
        sa.Column("s1", sa.Float(), nullable=False),
        sa.Column("alpha", sa.Float(), nullable=False),
        sa.Column("beta", sa.Float(), nullable=False),
        sa.Column("max_sets", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("report", sa.JSON(), nullable=False),
        sa.Column("history", sa.JSON(), nullable=False),
        sa.Column("void_sets", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("promoted_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["baseline_id"],
            ["bot_versions.id"],
            name=op.f("fk_version_tests_baseline_id_bot_versions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["bot_id"], ["bots.id"], name=op.f("fk_version_tests_bot_id_bots"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["bot_versions.id"],
            name=op.f("fk_version_tests_version_id_bot_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_version_tests")),
        sa.UniqueConstraint("version_id", name=op.f("uq_version_tests_version_id")),
    )
    with op.batch_alter_table("version_tests", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_version_tests_bot_id"), ["bot_id"], unique=False)
        batch_op.create_index(
            "ix_version_tests_state_created", ["state", "created_at"], unique=False
        )

    op.create_table(
        "version_test_matches",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("test_id", sa.Integer(), nullable=False),
        sa.Column("set_no", sa.Integer(), nullable=False),
        sa.Column("rotation", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_version_test_matches_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["test_id"],
            ["version_tests.id"],
            name=op.f("fk_version_test_matches_test_id_version_tests"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_version_test_matches")),
        sa.UniqueConstraint(
            "test_id",
            "set_no",
            "rotation",
            name=op.f("uq_version_test_matches_test_id_set_no_rotation"),
        ),
    )
    with op.batch_alter_table("version_test_matches", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_version_test_matches_test_id"), ["test_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("version_test_matches", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_version_test_matches_test_id"))

    op.drop_table("version_test_matches")
    with op.batch_alter_table("version_tests", schema=None) as batch_op:
        batch_op.drop_index("ix_version_tests_state_created")
        batch_op.drop_index(batch_op.f("ix_version_tests_bot_id"))

    op.drop_table("version_tests")
