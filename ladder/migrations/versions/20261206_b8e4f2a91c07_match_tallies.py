"""Add match_tallies: matches per game, kept by triggers on matches, so the match list's
total (the site's and the API's) is read from a few rows instead of counted over all of
them (on PostgreSQL with 10^6 matches the count took 70-190 ms; bench/web.py).

PostgreSQL: statement-level triggers with transition tables (one upsert per statement,
so a COPY of 100,000 matches costs one), games in sorted order so two writers lock
tally rows in the same order; TRUNCATE empties the tallies too. SQLite: row triggers.
A match's game never changes, so no UPDATE trigger: the tallies cost nothing as matches
move from queued to finished. The rows that exist are counted once here.

Revision: b8e4f2a91c07 (after a3c9e1f27b40)
Created: 2026-12-06 10:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "b8e4f2a91c07"
down_revision = "c7d2e8a4f1b9"
branch_labels = None
depends_on = None

POSTGRESQL_UP = (
    """
    CREATE FUNCTION match_tallies_add() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO match_tallies (game, matches)
        SELECT game, count(*) FROM added GROUP BY game ORDER BY game
        ON CONFLICT (game) DO UPDATE SET matches = match_tallies.matches + excluded.matches;
        RETURN NULL;
    END $$
    """,
    """
    CREATE FUNCTION match_tallies_subtract() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE match_tallies SET matches = match_tallies.matches - gone.n
        FROM (SELECT game, count(*) AS n FROM removed GROUP BY game ORDER BY game) AS gone
        WHERE match_tallies.game = gone.game;
        RETURN NULL;
    END $$
    """,
    """
    CREATE FUNCTION match_tallies_clear() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM match_tallies;
        RETURN NULL;
    END $$
    """,
    "CREATE TRIGGER tr_matches_tally_add AFTER INSERT ON matches"
    " REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION match_tallies_add()",
    "CREATE TRIGGER tr_matches_tally_subtract AFTER DELETE ON matches"
    " REFERENCING OLD TABLE AS removed FOR EACH STATEMENT"
    " EXECUTE FUNCTION match_tallies_subtract()",
    "CREATE TRIGGER tr_matches_tally_clear AFTER TRUNCATE ON matches"
    " FOR EACH STATEMENT EXECUTE FUNCTION match_tallies_clear()",
)
POSTGRESQL_DOWN = (
    "DROP TRIGGER tr_matches_tally_clear ON matches",
    "DROP TRIGGER tr_matches_tally_subtract ON matches",
    "DROP TRIGGER tr_matches_tally_add ON matches",
    "DROP FUNCTION match_tallies_clear()",
    "DROP FUNCTION match_tallies_subtract()",
    "DROP FUNCTION match_tallies_add()",
)
SQLITE_UP = (
    """
    CREATE TRIGGER tr_matches_tally_add AFTER INSERT ON matches BEGIN
        INSERT OR IGNORE INTO match_tallies (game, matches) VALUES (NEW.game, 0);
        UPDATE match_tallies SET matches = matches + 1 WHERE game = NEW.game;
    END
    """,
    """
    CREATE TRIGGER tr_matches_tally_subtract AFTER DELETE ON matches BEGIN
        UPDATE match_tallies SET matches = matches - 1 WHERE game = OLD.game;
    END
    """,
)
SQLITE_DOWN = (
    "DROP TRIGGER tr_matches_tally_subtract",
    "DROP TRIGGER tr_matches_tally_add",
)


def upgrade() -> None:
    op.create_table(
        "match_tallies",
        sa.Column("game", sa.String(length=40), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game", name=op.f("pk_match_tallies")),
    )
    postgresql = op.get_bind().dialect.name == "postgresql"
    for statement in POSTGRESQL_UP if postgresql else SQLITE_UP:
        op.execute(statement)
    op.execute(
        "INSERT INTO match_tallies (game, matches) SELECT game, count(*) FROM matches GROUP BY game"
    )


def downgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    for statement in POSTGRESQL_DOWN if postgresql else SQLITE_DOWN:
        op.execute(statement)
    op.drop_table("match_tallies")
