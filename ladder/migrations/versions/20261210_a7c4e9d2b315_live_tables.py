"""Add live tables (issue 32): people seated at a match against bots, played live.

`live_tables` and `live_table_seats` hold a table while it is played (the actions
applied so far, each person's clock, the invitation of an open seat);
`human_ratings` is the people's own TrueSkill pool; `bots.human_play` lets an owner
offer a bot to others' tables. A table's finished match stores a person's seat
with `match_seats.user_id` and no version, so `match_seats.version_id` becomes
nullable.

Revision: a7c4e9d2b315 (after f3a8d1c6b502)
Created: 2026-12-10 10:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "a7c4e9d2b315"
down_revision = "f3a8d1c6b502"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "human_ratings",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("skill", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_human_ratings_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", "game", name=op.f("pk_human_ratings")),
    )
    with op.batch_alter_table("human_ratings", schema=None) as batch_op:
        batch_op.create_index("ix_human_ratings_game_skill", ["game", "skill"], unique=False)

    op.create_table(
        "live_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("created_by_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("actions", sa.JSON(), nullable=False),
        sa.Column("clocks", sa.JSON(), nullable=False),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["created_by_id"],
            ["users.id"],
            name=op.f("fk_live_tables_created_by_id_users"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_live_tables_match_id_matches"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_live_tables")),
    )
    with op.batch_alter_table("live_tables", schema=None) as batch_op:
        batch_op.create_index(
            "ix_live_tables_created_by_state", ["created_by_id", "state"], unique=False
        )
        batch_op.create_index("ix_live_tables_state_created", ["state", "created_at"], unique=False)

    op.create_table(
        "live_table_seats",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("version_id", sa.Integer(), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("status", sa.String(length=12), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["live_tables.id"],
            name=op.f("fk_live_table_seats_table_id_live_tables"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_live_table_seats_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["version_id"],
            ["bot_versions.id"],
            name=op.f("fk_live_table_seats_version_id_bot_versions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_live_table_seats")),
        sa.UniqueConstraint("table_id", "seat", name=op.f("uq_live_table_seats_table_id_seat")),
    )
    with op.batch_alter_table("live_table_seats", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_live_table_seats_user_id"), ["user_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_live_table_seats_version_id"), ["version_id"], unique=False
        )

    with op.batch_alter_table("bots", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("human_play", sa.Boolean(), server_default=sa.false(), nullable=False)
        )

    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("user_id", sa.Integer(), nullable=True))
        batch_op.alter_column("version_id", existing_type=sa.INTEGER(), nullable=True)
        batch_op.create_foreign_key(
            batch_op.f("fk_match_seats_user_id_users"),
            "users",
            ["user_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    # A person's seat has no version: those matches cannot be kept without their seats.
    op.execute(
        "DELETE FROM matches WHERE id IN (SELECT match_id FROM match_seats"
        " WHERE version_id IS NULL)"
    )
    with op.batch_alter_table("match_seats", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_match_seats_user_id_users"), type_="foreignkey")
        batch_op.alter_column("version_id", existing_type=sa.INTEGER(), nullable=False)
        batch_op.drop_column("user_id")

    with op.batch_alter_table("bots", schema=None) as batch_op:
        batch_op.drop_column("human_play")

    with op.batch_alter_table("live_table_seats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_live_table_seats_version_id"))
        batch_op.drop_index(batch_op.f("ix_live_table_seats_user_id"))

    op.drop_table("live_table_seats")
    with op.batch_alter_table("live_tables", schema=None) as batch_op:
        batch_op.drop_index("ix_live_tables_state_created")
        batch_op.drop_index("ix_live_tables_created_by_state")

    op.drop_table("live_tables")
    with op.batch_alter_table("human_ratings", schema=None) as batch_op:
        batch_op.drop_index("ix_human_ratings_game_skill")

    op.drop_table("human_ratings")
