"""Add blobs (the database artifact store) and turn file paths into artifact keys:
bot_versions.path becomes file_key (`bots/<sha256>.<kind>`), matches.replay_path
becomes replay_key (`replays/<game>/<id>.json.gz`).

The files themselves stay where they were (UPLOAD_DIR, REPLAY_DIR) until
`ladder artifacts import` copies them into the store; this revision says so when
there are rows whose files it did not move. A downgrade is refused while the
blobs table holds anything: it would drop the only copy of those files.

Revision: d41c7e2b9f58 (after b6d1f0c3a8e4)
Created: 2026-12-02 09:00:00.000000
"""

import sys

import sqlalchemy as sa
from alembic import op

revision = "d41c7e2b9f58"
down_revision = "b6d1f0c3a8e4"
branch_labels = None
depends_on = None

# The keys of ladder.services.storage (bot_key, replay_key), in SQL both engines read.
BOT_KEY = "'bots/' || sha256 || '.' || kind"
REPLAY_KEY = "'replays/' || game || '/' || CAST(id AS VARCHAR(20)) || '.json.gz'"
# The layouts of the legacy folders, for a downgrade.
BOT_PATH = (
    "CAST(bot_id AS VARCHAR(20)) || '/v' || CAST(number AS VARCHAR(20))"
    " || '-' || substr(sha256, 1, 12) || '.' || kind"
)
REPLAY_PATH = (
    "game || '/' || CAST(id / 1000 AS VARCHAR(20)) || '/' || CAST(id AS VARCHAR(20)) || '.json.gz'"
)


def upgrade() -> None:
    op.create_table(
        "blobs",
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("encoding", sa.String(length=8), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("stored_size", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_blobs")),
    )
    # Values first, while the old (wider) columns hold them; then rename and narrow.
    op.execute(f"UPDATE bot_versions SET path = {BOT_KEY}")
    op.execute(f"UPDATE matches SET replay_path = {REPLAY_KEY} WHERE replay_path IS NOT NULL")
    with op.batch_alter_table("bot_versions") as batch:
        batch.alter_column(
            "path",
            new_column_name="file_key",
            existing_type=sa.String(length=500),
            type_=sa.String(length=200),
            existing_nullable=False,
        )
    with op.batch_alter_table("matches") as batch:
        batch.alter_column(
            "replay_path",
            new_column_name="replay_key",
            existing_type=sa.String(length=500),
            type_=sa.String(length=200),
            existing_nullable=True,
        )
    _tell_the_operator()


def _tell_the_operator() -> None:
    """Existing files are not copied by the migration: say what to run, once, if any."""
    conn = op.get_bind()
    versions = conn.execute(sa.text("SELECT count(*) FROM bot_versions")).scalar_one()
    replays = conn.execute(
        sa.text("SELECT count(*) FROM matches WHERE replay_key IS NOT NULL")
    ).scalar_one()
    if versions or replays:
        print(
            f"artifact store: {versions} bot versions and {replays} replays now name their"
            " files by artifact key. Copy the existing files from UPLOAD_DIR and REPLAY_DIR"
            " into the store with `ladder artifacts import` (safe to run again).",
            file=sys.stderr,
        )


def downgrade() -> None:
    conn = op.get_bind()
    held = conn.execute(sa.text("SELECT count(*) FROM blobs")).scalar_one()
    if held:
        raise RuntimeError(
            f"the blobs table holds {held} artifacts (bot files, replays) that exist nowhere"
            " else; a downgrade would drop them. Empty it deliberately first."
        )
    with op.batch_alter_table("matches") as batch:
        batch.alter_column(
            "replay_key",
            new_column_name="replay_path",
            existing_type=sa.String(length=200),
            type_=sa.String(length=500),
            existing_nullable=True,
        )
    with op.batch_alter_table("bot_versions") as batch:
        batch.alter_column(
            "file_key",
            new_column_name="path",
            existing_type=sa.String(length=200),
            type_=sa.String(length=500),
            existing_nullable=False,
        )
    op.execute(f"UPDATE bot_versions SET path = {BOT_PATH}")
    op.execute(f"UPDATE matches SET replay_path = {REPLAY_PATH} WHERE replay_path IS NOT NULL")
    op.drop_table("blobs")
