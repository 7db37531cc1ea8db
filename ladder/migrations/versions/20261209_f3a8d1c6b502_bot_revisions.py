"""Add bot_revisions: a counter per bot, bumped by every commit that changes what its
page shows (`ladder.services.bot_changes`), so a web worker keeps a bot page until
its bot changes instead of making it again every few seconds.

No row is revision 0, so nothing is back-filled.

Revision: f3a8d1c6b502 (after e5b2c7d9a413)
Created: 2026-12-09 10:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "f3a8d1c6b502"
down_revision = "e5b2c7d9a413"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot_revisions",
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_id"],
            ["bots.id"],
            name=op.f("fk_bot_revisions_bot_id_bots"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("bot_id", name=op.f("pk_bot_revisions")),
    )


def downgrade() -> None:
    op.drop_table("bot_revisions")
