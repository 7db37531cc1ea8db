"""Add tournaments, their entrants and the link from a schedule slot to its match.

Tournament matches are ordinary unranked `matches` rows (recorded, leased and
replayed like any match); `tournament_matches` places each in its tournament's
schedule as (round, table, rotation), unique so scheduling a round is idempotent.

Revision: 7a4e2c915d63 (after 3e9d1c7a5b20)
Created: 2026-12-01 04:55:21.300661
"""

import sqlalchemy as sa
from alembic import op

revision = "7a4e2c915d63"
down_revision = "3e9d1c7a5b20"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("format", sa.String(length=20), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("duplicate", sa.Boolean(), nullable=False),
        sa.Column("advance", sa.Integer(), nullable=True),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("created_by_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["created_by_id"], ["users.id"], name=op.f("fk_tournaments_created_by_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_index(
        "ix_tournaments_state_created", "tournaments", ["state", "created_at"], unique=False
    )

    op.create_table(
        "tournament_matches",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=False),
        sa.Column("rotation", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_tournament_matches_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_matches_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_tournament_matches")),
        sa.UniqueConstraint(
            "tournament_id",
            "round",
            "table_no",
            "rotation",
            name=op.f("uq_tournament_matches_tournament_id_round_table_no_rotation"),
        ),
    )
    op.create_index(
        op.f("ix_tournament_matches_tournament_id"),
        "tournament_matches",
        ["tournament_id"],
        unique=False,
    )

    op.create_table(
        "tournament_entrants",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("house", sa.Boolean(), nullable=False),
        sa.Column("entered_at", sa.DateTime(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=True),
        sa.Column("sigma", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["bot_id"],
            ["bots.id"],
            name=op.f("fk_tournament_entrants_bot_id_bots"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name=op.f("fk_tournament_entrants_tournament_id_tournaments"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["bot_versions.id"],
            name=op.f("fk_tournament_entrants_version_id_bot_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournament_entrants")),
        sa.UniqueConstraint(
            "tournament_id", "bot_id", name=op.f("uq_tournament_entrants_tournament_id_bot_id")
        ),
        sa.UniqueConstraint(
            "tournament_id",
            "version_id",
            name=op.f("uq_tournament_entrants_tournament_id_version_id"),
        ),
    )
    op.create_index(
        op.f("ix_tournament_entrants_bot_id"), "tournament_entrants", ["bot_id"], unique=False
    )
    op.create_index(
        op.f("ix_tournament_entrants_tournament_id"),
        "tournament_entrants",
        ["tournament_id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_tournament_entrants_tournament_id"), table_name="tournament_entrants")
    op.drop_index(op.f("ix_tournament_entrants_bot_id"), table_name="tournament_entrants")

    op.drop_table("tournament_entrants")
    op.drop_index(op.f("ix_tournament_matches_tournament_id"), table_name="tournament_matches")

    op.drop_table("tournament_matches")
    op.drop_index("ix_tournaments_state_created", table_name="tournaments")

    op.drop_table("tournaments")
