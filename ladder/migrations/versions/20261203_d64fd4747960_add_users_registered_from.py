"""Add users.registered_from: the client's address at registration, so staff can see
accounts made from one address within a day as one owner (the collusion check).
Accounts that exist already have none (null).

Revision: d64fd4747960 (after e5a7c3f19b62)
Created: 2026-12-03 10:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "d64fd4747960"
down_revision = "e5a7c3f19b62"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("registered_from", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("registered_from")
