"""The ladder's tables as SQLAlchemy 2.x typed models.

Schema changes go through Alembic only (`ladder/migrations/`); the naming
convention gives every constraint and index a stable name there.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import cast

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult, Result
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, relationship, validates

from workers import SeatStatus

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class VersionState(StrEnum):
    """A bot version's life; `services.bots` alone changes it. Stored as its string."""

    PENDING = "pending"  # uploaded, waiting for a worker to validate it
    VALIDATING = "validating"  # a worker is playing its validation match
    ACTIVE = "active"  # on the ladder: at most one version of a bot
    CANDIDATE = "candidate"  # validated, tested against the active one (`version_tests`)
    FAILED = "failed"  # failed its validation, or it could not be run
    RETIRED = "retired"  # replaced by a newer version, or its bot was retired


class MatchState(StrEnum):
    """A match's life; `services.matches` alone changes it. Stored as its string."""

    QUEUED = "queued"  # waiting for a worker
    RUNNING = "running"  # a worker plays it
    FINISHED = "finished"  # recorded: seats, replay and (if rated) ratings
    FAILED = "failed"  # could not be played (not a bot's fault): unrated


# A version that may still play: retiring its bot retires it.
LIVE_VERSION_STATES = (
    VersionState.PENDING,
    VersionState.VALIDATING,
    VersionState.ACTIVE,
    VersionState.CANDIDATE,
)
# A match not yet played: the scheduler counts it against LADDER_IN_FLIGHT, and
# it is the only kind a worker may still record or fail.
IN_FLIGHT = (MatchState.QUEUED, MatchState.RUNNING)
MAX_ID = 2**31 - 1  # ids are 32-bit integers in PostgreSQL
# How a seat ended (MatchSeat.status): defined once, by the runner that gives them.
SEAT_STATUSES = tuple(status.value for status in SeatStatus)


def version_label(bot: str, number: int, owner: str | None = None) -> str:
    """How people see a bot version named: `name vN`, or `owner/name vN` where owners meet."""
    return f"{owner}/{bot} v{number}" if owner else f"{bot} v{number}"


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(40), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    is_staff: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # The client's address at registration (PROXY_HOPS honoured): accounts made from one
    # address within a day are one owner to the collusion check (`queries.collusion`).
    registered_from: Mapped[str | None] = mapped_column(String(64))

    bots: Mapped[list[Bot]] = relationship(back_populates="owner")
    tokens: Mapped[list[ApiToken]] = relationship(back_populates="user")

    # Flask-Login's user protocol.
    is_authenticated = True
    is_active = True
    is_anonymous = False

    def get_id(self) -> str:
        return str(self.id)

    def __repr__(self) -> str:
        return f"User({self.id}, {self.username!r})"


class ApiToken(Base):
    """A bearer token for the API; only its SHA-256 is stored."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(60))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(12))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)

    user: Mapped[User] = relationship(back_populates="tokens")

    def __repr__(self) -> str:
        return f"ApiToken({self.id}, user={self.user_id}, {self.prefix!r})"


class LoginFailure(Base):
    """A failed login: recent ones slow down password guessing (see services.accounts)."""

    __tablename__ = "login_failures"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(64), index=True)  # as typed, lower-cased
    address: Mapped[str] = mapped_column(String(64), index=True)  # the client's IP address
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)

    def __repr__(self) -> str:
        return f"LoginFailure({self.username!r}, {self.address!r}, {self.at:%Y-%m-%d %H:%M:%S})"


class UserSession(Base):
    """A logged-in browser. Its cookie carries the token whose SHA-256 is kept here, so
    logging out (here, everywhere, or by a password change) ends it on the server."""

    __tablename__ = "user_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    address: Mapped[str] = mapped_column(String(64), default="")  # where it logged in from
    agent: Mapped[str] = mapped_column(String(200), default="")  # its User-Agent, cut short

    user: Mapped[User] = relationship()

    def __repr__(self) -> str:
        return f"UserSession({self.id}, user={self.user_id})"


class ThrottleLock(Base):
    """A row locked while a limit is counted and checked, making the two one step
    (`services.throttle`); keys share a bounded number of slots, so the table stays small."""

    __tablename__ = "throttle_locks"

    slot: Mapped[str] = mapped_column(String(40), primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    def __repr__(self) -> str:
        return f"ThrottleLock({self.slot!r})"


class ThrottleEvent(Base):
    """One costly attempt counted against a limit: a registration from an address,
    an upload by a user (kind "upload" once stored, "upload-refused" before that)."""

    __tablename__ = "throttle_events"
    __table_args__ = (Index("ix_throttle_events_kind_key_at", "kind", "key", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))
    key: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    def __repr__(self) -> str:
        return f"ThrottleEvent({self.kind!r}, {self.key!r}, {self.at:%Y-%m-%d %H:%M:%S})"


class Blob(Base):
    """One artifact of the database store (`ladder.artifacts.database`): a bot file or a
    replay, by key, zlib-compressed where that saves space (`encoding`)."""

    __tablename__ = "blobs"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    encoding: Mapped[str] = mapped_column(String(8))  # "identity" or "zlib"
    size: Mapped[int] = mapped_column(Integer)  # bytes as put and got
    stored_size: Mapped[int] = mapped_column(Integer)  # bytes in `data`
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    def __repr__(self) -> str:
        return f"Blob({self.key!r}, {self.size} bytes, {self.encoding})"


class Bot(Base):
    """A named bot for one game; its code lives in its versions."""

    __tablename__ = "bots"
    __table_args__ = (UniqueConstraint("owner_id", "game", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    game: Mapped[str] = mapped_column(String(40))
    name: Mapped[str] = mapped_column(String(60))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    retired_at: Mapped[datetime | None] = mapped_column(DateTime)
    # Whether others may seat this bot at a live table against people (`services.tables`);
    # its owner always may.
    human_play: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())

    owner: Mapped[User] = relationship(back_populates="bots")
    versions: Mapped[list[BotVersion]] = relationship(
        back_populates="bot", order_by="BotVersion.number"
    )

    def __repr__(self) -> str:
        return f"Bot({self.id}, {self.game}, {self.name!r})"


class BotVersion(Base):
    """One uploaded file of a bot, with its validation state and log."""

    __tablename__ = "bot_versions"
    __table_args__ = (
        UniqueConstraint("bot_id", "number"),
        Index("ix_bot_versions_state_created", "state", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    uploaded_by_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    filename: Mapped[str] = mapped_column(String(255))
    kind: Mapped[str] = mapped_column(String(8))  # "py" or "zip"
    size: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64))
    # Its file in the artifact store: `bots/<sha256>.<kind>`, shared by identical uploads.
    file_key: Mapped[str] = mapped_column(String(200))
    state: Mapped[str] = mapped_column(String(12), default=VersionState.PENDING)
    validation_log: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    validated_at: Mapped[datetime | None] = mapped_column(DateTime)
    # Validations started (a worker claimed it); bounded by MAX_ATTEMPTS.
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))

    # Crash triage: set when its last ladder matches all faulted (it is left out of
    # matchmaking until its owner resumes it); only matches after `resumed_at` count.
    paused_at: Mapped[datetime | None] = mapped_column(DateTime)
    paused_reason: Mapped[str | None] = mapped_column(Text)
    resumed_at: Mapped[datetime | None] = mapped_column(DateTime)

    bot: Mapped[Bot] = relationship(back_populates="versions")
    rating: Mapped[Rating | None] = relationship(back_populates="version")

    @property
    def label(self) -> str:
        """`name vN`, as pages and messages name it."""
        return version_label(self.bot.name, self.number)

    @property
    def seat_label(self) -> str:
        """`owner/name vN`, as a match's seats name it (and its replay)."""
        return version_label(self.bot.name, self.number, self.bot.owner.username)

    def __repr__(self) -> str:
        return f"BotVersion({self.id}, bot={self.bot_id}, v{self.number}, {self.state})"


class Rating(Base):
    """The current TrueSkill rating of one bot version.

    `game` and `skill` (μ − 3σ) are copied here so the leaderboard is one
    indexed scan.
    """

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_game_skill", "game", "skill"),)

    version_id: Mapped[int] = mapped_column(
        ForeignKey("bot_versions.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(40))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    skill: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    last_played_at: Mapped[datetime | None] = mapped_column(DateTime)

    version: Mapped[BotVersion] = relationship(back_populates="rating")

    def __repr__(self) -> str:
        return f"Rating(v={self.version_id}, mu={self.mu:.2f}, sigma={self.sigma:.2f})"


class RatingHistory(Base):
    """A version's rating after one rated match."""

    __tablename__ = "rating_history"
    __table_args__ = (Index("ix_rating_history_version_match", "version_id", "match_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id", ondelete="CASCADE"))
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    skill: Mapped[float] = mapped_column(Float)
    recorded_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    def __repr__(self) -> str:
        return f"RatingHistory(v={self.version_id}, match={self.match_id}, mu={self.mu:.2f})"


class ResolvedRating(Base):
    """A version's rating re-solved over its game's rated history with TrueSkill Through
    Time (`services.resolve`), kept beside the online `Rating`; replaced whole at each
    re-solve. `curve` is `[[day, μ, σ], ...]` (ISO day), bounded
    (`ranking.through_time.CURVE_POINTS`); `matches` counts its matches in the solve."""

    __tablename__ = "resolved_ratings"
    __table_args__ = (Index("ix_resolved_ratings_game_skill", "game", "skill"),)

    version_id: Mapped[int] = mapped_column(
        ForeignKey("bot_versions.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(40))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    skill: Mapped[float] = mapped_column(Float)
    matches: Mapped[int] = mapped_column(Integer)
    curve: Mapped[list] = mapped_column(JSON, default=list)

    def __repr__(self) -> str:
        return f"ResolvedRating(v={self.version_id}, mu={self.mu:.2f}, sigma={self.sigma:.2f})"


class ResolveRun(Base):
    """The last re-solve of a game: when, over which matches (all of them, or a window of
    the latest `matches` from `first_match_id` on), and how it converged."""

    __tablename__ = "resolve_runs"

    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    solved_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    matches: Mapped[int] = mapped_column(Integer)  # solved
    rated_matches: Mapped[int] = mapped_column(Integer)  # the game's rated matches in all
    first_match_id: Mapped[int | None] = mapped_column(Integer)
    iterations: Mapped[int] = mapped_column(Integer)
    step: Mapped[float] = mapped_column(Float)
    seconds: Mapped[float] = mapped_column(Float)

    def __repr__(self) -> str:
        return f"ResolveRun({self.game}, {self.matches} matches, {self.solved_at:%Y-%m-%d %H:%M})"


class MatchTally(Base):
    """How many matches a game has, so a match list's total needs no count of its rows.

    Kept by the database itself: triggers on `matches` (migration
    20261206_b8e4f2a91c07) add and subtract as rows come and go, whatever wrote them.
    A match's game never changes, so updates are left alone.
    """

    __tablename__ = "match_tallies"

    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    matches: Mapped[int] = mapped_column(Integer, default=0)

    def __repr__(self) -> str:
        return f"MatchTally({self.game}, {self.matches})"


class HeadToHead(Base):
    """How a bot fared against another, over every match where both were ranked.

    Kept as results are recorded (`services.head_to_head`, in the recording's
    transaction), one row each way, so a bot page reads its opponents from a few
    rows instead of joining its thousands of seats to every other seat of their
    matches (on PostgreSQL with 10^6 matches that join took 27-52 ms a page).
    Counts are per pair of seats: a bot that held two seats meets an opponent twice.
    """

    __tablename__ = "head_to_head"

    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    opponent_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    met: Mapped[int] = mapped_column(Integer, default=0)
    ahead: Mapped[int] = mapped_column(Integer, default=0)
    behind: Mapped[int] = mapped_column(Integer, default=0)
    tied: Mapped[int] = mapped_column(Integer, default=0)

    def __repr__(self) -> str:
        return f"HeadToHead({self.bot_id} v {self.opponent_id}: {self.ahead}-{self.behind})"


class SeatRecord(Base):
    """A version's rated matches at one table size and seat (seats count from 0): how
    many, won (rank 1), their ranks added up, and how many it faulted in.

    Kept as matches are rated (`services.table_mix`, in the recording's transaction),
    so matchmaking balances each bot's mix of table sizes and seats, and a bot page
    shows its record by table size and seat, from a few rows a version.
    """

    __tablename__ = "seat_records"

    version_id: Mapped[int] = mapped_column(
        ForeignKey("bot_versions.id", ondelete="CASCADE"), primary_key=True
    )
    players: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    rank_sum: Mapped[int] = mapped_column(Integer, default=0)
    faults: Mapped[int] = mapped_column(Integer, default=0)

    def __repr__(self) -> str:
        return f"SeatRecord(v={self.version_id}, {self.players} players, seat {self.seat})"


class BotRevision(Base):
    """How many committed transactions changed what a bot's page shows.

    Bumped at commit by `services.bot_changes` (results, ratings, versions, tests,
    tournaments, the bot's matches coming and going), so a web worker can keep a bot
    page until its bot changes and tell that with one primary-key read. A row of its
    own rather than a column of `bots`: only the commit hook ever locks it, last and
    in key order, so it adds no lock that another transaction takes midway.
    No row is revision 0.
    """

    __tablename__ = "bot_revisions"

    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"), primary_key=True)
    revision: Mapped[int] = mapped_column(Integer, default=0)

    def __repr__(self) -> str:
        return f"BotRevision({self.bot_id}: {self.revision})"


class Match(Base):
    __tablename__ = "matches"
    __table_args__ = (
        Index("ix_matches_game_finished", "game", "finished_at"),
        Index("ix_matches_state_created", "state", "created_at"),
        # A user's challenges: counted against CHALLENGES_PER_HOUR and CHALLENGES_IN_FLIGHT.
        Index("ix_matches_requested_by_created", "requested_by_id", "created_at"),
        # Replays still stored, by age: what the retention policy reads (`services.retention`);
        # partial, so the millions whose replay was dropped are not in it.
        Index(
            "ix_matches_replay_kept_finished",
            "finished_at",
            postgresql_where=text("replay_key IS NOT NULL"),
            sqlite_where=text("replay_key IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game: Mapped[str] = mapped_column(String(40))
    seed: Mapped[int] = mapped_column(Integer)
    players: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict] = mapped_column(JSON, default=dict)
    ranked: Mapped[bool] = mapped_column(Boolean, default=True)
    state: Mapped[str] = mapped_column(String(12), default=MatchState.QUEUED)
    requested_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    # The broker queue it was sent to (`broker.announce.QUEUES`): the sweep sends it back there.
    queue: Mapped[str] = mapped_column(
        String(20), default="celery", server_default=text("'celery'")
    )
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)
    # Its replay in the artifact store (`replays/<game>/<id>.json.gz`), once recorded.
    replay_key: Mapped[str | None] = mapped_column(String(200))
    # When the retention policy dropped its replay (`services.retention`); the key is
    # cleared then, the rows (seats, ratings) stay. None while the replay is kept.
    replay_pruned_at: Mapped[datetime | None] = mapped_column(DateTime)
    engine_version: Mapped[str | None] = mapped_column(String(40))
    # Times a worker started it; past MAX_ATTEMPTS the match fails instead of going back.
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    # Why a ranked match moved no rating: it failed, or its outcome was void.
    unrated_reason: Mapped[str | None] = mapped_column(Text)

    seats: Mapped[list[MatchSeat]] = relationship(
        back_populates="match", order_by="MatchSeat.seat", cascade="all, delete-orphan"
    )

    @property
    def over(self) -> bool:
        """Finished or failed: nothing about the match changes any more (but its replay
        expiring under the retention policy)."""
        return self.state not in IN_FLIGHT

    def __repr__(self) -> str:
        return f"Match({self.id}, {self.game}, {self.state})"


class MatchSeat(Base):
    """One seat of a match: who sat there and how it ended.

    A bot version's seat has `version_id`; a person's seat at a live table
    (`services.tables`) has `user_id` instead, and no version."""

    __tablename__ = "match_seats"
    __table_args__ = (
        UniqueConstraint("match_id", "seat"),
        Index("ix_match_seats_version_match", "version_id", "match_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    version_id: Mapped[int | None] = mapped_column(
        ForeignKey("bot_versions.id", ondelete="CASCADE")
    )
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    status: Mapped[str | None] = mapped_column(String(12))  # a SeatStatus, once played
    rank: Mapped[int | None] = mapped_column(Integer)
    score: Mapped[float | None] = mapped_column(Float)
    error: Mapped[str | None] = mapped_column(Text)
    stderr: Mapped[str | None] = mapped_column(Text)  # for the bot's owner only
    mu_before: Mapped[float | None] = mapped_column(Float)
    sigma_before: Mapped[float | None] = mapped_column(Float)
    mu_after: Mapped[float | None] = mapped_column(Float)
    sigma_after: Mapped[float | None] = mapped_column(Float)

    match: Mapped[Match] = relationship(back_populates="seats")
    version: Mapped[BotVersion | None] = relationship()

    @validates("status")
    def _check_status(self, _key: str, status: str | None) -> SeatStatus | None:
        """Only a status the runner gives (ValueError for another) is stored."""
        return None if status is None else SeatStatus(status)

    def __repr__(self) -> str:
        return f"MatchSeat(match={self.match_id}, seat={self.seat}, v={self.version_id})"


class TournamentState(StrEnum):
    """A tournament's life; `services.tournaments` alone changes it. Stored as its string."""

    DRAFT = "draft"  # created by staff, settings may still change; no entries yet
    OPEN = "open"  # owners enter one active version each; staff add house bots
    RUNNING = "running"  # scheduled round by round; matches on the tournament queue
    FINISHED = "finished"  # every match played: the standings are final
    CANCELLED = "cancelled"  # stopped by staff; matches not yet played were failed


class Tournament(Base):
    """A tournament's settings; its schedule and standings follow from them and its matches
    (`ladder.tournaments.Tournament` computes both)."""

    __tablename__ = "tournaments"
    __table_args__ = (Index("ix_tournaments_state_created", "state", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    game: Mapped[str] = mapped_column(String(40))
    format: Mapped[str] = mapped_column(String(20))  # round-robin | swiss | elimination
    table_size: Mapped[int | None] = mapped_column(Integer)  # None: the core's default
    rounds: Mapped[int | None] = mapped_column(Integer)  # None: the core's default
    duplicate: Mapped[bool] = mapped_column(Boolean, default=False)
    advance: Mapped[int | None] = mapped_column(Integer)  # elimination: top k advance
    seed: Mapped[int] = mapped_column(Integer)
    state: Mapped[str] = mapped_column(String(12), default=TournamentState.DRAFT)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)

    entrants: Mapped[list[TournamentEntrant]] = relationship(
        back_populates="tournament", order_by="TournamentEntrant.id", cascade="all, delete-orphan"
    )

    def __repr__(self) -> str:
        return f"Tournament({self.id}, {self.game}, {self.format}, {self.state})"


class TournamentEntrant(Base):
    """A bot version entered in a tournament, frozen at entry (a later upload changes nothing).

    `mu` and `sigma` are its ladder rating when the tournament started (Swiss and
    elimination seed by it), kept so the schedule can be rebuilt the same at any time.
    """

    __tablename__ = "tournament_entrants"
    __table_args__ = (
        UniqueConstraint("tournament_id", "bot_id"),
        UniqueConstraint("tournament_id", "version_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), index=True
    )
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"), index=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id", ondelete="CASCADE"))
    house: Mapped[bool] = mapped_column(Boolean, default=False)  # added by staff
    entered_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    mu: Mapped[float | None] = mapped_column(Float)
    sigma: Mapped[float | None] = mapped_column(Float)

    tournament: Mapped[Tournament] = relationship(back_populates="entrants")
    version: Mapped[BotVersion] = relationship()

    def __repr__(self) -> str:
        return f"TournamentEntrant(t={self.tournament_id}, v={self.version_id})"


class TournamentMatch(Base):
    """Links a (round, table, rotation) of a tournament's schedule to its unranked Match.

    The unique key makes scheduling a round idempotent: two workers advancing the
    same tournament at once cannot both create its matches.
    """

    __tablename__ = "tournament_matches"
    __table_args__ = (UniqueConstraint("tournament_id", "round", "table_no", "rotation"),)

    match_id: Mapped[int] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), index=True
    )
    round: Mapped[int] = mapped_column(Integer)
    table_no: Mapped[int] = mapped_column(Integer)
    rotation: Mapped[int] = mapped_column(Integer)

    match: Mapped[Match] = relationship()

    def __repr__(self) -> str:
        return (
            f"TournamentMatch(t={self.tournament_id}, {self.round}.{self.table_no}"
            f".{self.rotation}, match={self.match_id})"
        )


class VersionTestState(StrEnum):
    """A candidate's test; `services.version_tests` alone changes it. Stored as its string."""

    WAITING = "waiting"  # the candidate is being validated
    RUNNING = "running"  # sets are played against the bot's active version
    FINISHED = "finished"  # a verdict: better, not better or inconclusive
    CANCELLED = "cancelled"  # stopped first (promoted by hand, retired, nothing to test)


class VersionTest(Base):
    """The sequential test of a candidate version against the version active when it
    passed validation (`ladder.tournaments.sprt` over duplicate sets, played unranked).

    Its settings are frozen when it starts; `report` and `history` are what the test's
    core computed from the sets counted so far, kept for pages to read."""

    __tablename__ = "version_tests"
    __table_args__ = (Index("ix_version_tests_state_created", "state", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    version_id: Mapped[int] = mapped_column(
        ForeignKey("bot_versions.id", ondelete="CASCADE"), unique=True
    )
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"), index=True)
    baseline_id: Mapped[int | None] = mapped_column(
        ForeignKey("bot_versions.id", ondelete="CASCADE")
    )
    promote: Mapped[bool] = mapped_column(Boolean, default=True)  # on a `better` verdict
    state: Mapped[str] = mapped_column(String(12), default=VersionTestState.WAITING)
    table_size: Mapped[int | None] = mapped_column(Integer)
    opponents: Mapped[list] = mapped_column(JSON, default=list)  # version ids, cycled
    s0: Mapped[float] = mapped_column(Float)
    s1: Mapped[float] = mapped_column(Float)
    alpha: Mapped[float] = mapped_column(Float)
    beta: Mapped[float] = mapped_column(Float)
    max_sets: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(Integer)
    verdict: Mapped[str | None] = mapped_column(String(16))  # once finished
    note: Mapped[str | None] = mapped_column(Text)  # what happened: promoted, cancelled, why
    report: Mapped[dict] = mapped_column(JSON, default=dict)  # `SequentialTest.report()`
    history: Mapped[list] = mapped_column(JSON, default=list)  # [llr, score] after each set
    void_sets: Mapped[int] = mapped_column(Integer, default=0)  # a match of them failed
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)
    promoted_at: Mapped[datetime | None] = mapped_column(DateTime)

    version: Mapped[BotVersion] = relationship(foreign_keys=[version_id])
    baseline: Mapped[BotVersion | None] = relationship(foreign_keys=[baseline_id])

    @property
    def over(self) -> bool:
        return self.state in (VersionTestState.FINISHED, VersionTestState.CANCELLED)

    def end(self, state: str, verdict: str | None = None, note: str | None = None) -> None:
        """Mark the test over (its unplayed matches are the caller's to fail)."""
        self.state = state
        self.verdict = verdict
        if note:
            self.note = note
        self.finished_at = utcnow()

    def __repr__(self) -> str:
        return f"VersionTest({self.id}, v={self.version_id}, {self.state}, {self.verdict})"


class VersionTestMatch(Base):
    """Places an unranked Match in a test: (set, rotation). The unique key makes
    scheduling idempotent, as a tournament's is."""

    __tablename__ = "version_test_matches"
    __table_args__ = (UniqueConstraint("test_id", "set_no", "rotation"),)

    match_id: Mapped[int] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    test_id: Mapped[int] = mapped_column(
        ForeignKey("version_tests.id", ondelete="CASCADE"), index=True
    )
    set_no: Mapped[int] = mapped_column(Integer)
    rotation: Mapped[int] = mapped_column(Integer)

    match: Mapped[Match] = relationship()

    def __repr__(self) -> str:
        where = f"{self.set_no}.{self.rotation}"
        return f"VersionTestMatch(t={self.test_id}, {where}, match={self.match_id})"


class LiveTableState(StrEnum):
    """A live table's life; `services.tables` alone changes it. Stored as its string."""

    WAITING = "waiting"  # a person's seat is still open (an invitation not yet taken)
    PLAYING = "playing"  # every seat is taken: the table runner plays it
    OVER = "over"  # the game ended (its match stored), or the table was ended


class LiveTable(Base):
    """A match with one or more people seated, played live (`services.tables`).

    The web rebuilds the game from `seed`, `options` and `actions` (the actions applied
    so far, `[[seat, action], ...]`, appended by the table runner after each one) to
    show it and to check a move. `clocks` holds, per seat, a person's clock as the
    runner last reported it when it asked that seat (`{"left_ms", "asked_at_ms",
    "step"}`), None for a bot or a person not yet asked.
    """

    __tablename__ = "live_tables"
    __table_args__ = (
        Index("ix_live_tables_state_created", "state", "created_at"),
        Index("ix_live_tables_created_by_state", "created_by_id", "state"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game: Mapped[str] = mapped_column(String(40))
    players: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict] = mapped_column(JSON, default=dict)
    state: Mapped[str] = mapped_column(String(12), default=LiveTableState.WAITING)
    created_by_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)
    actions: Mapped[list] = mapped_column(JSON, default=list)
    clocks: Mapped[list] = mapped_column(JSON, default=list)
    # Why it ended without a match (its runner stopped), if it did.
    note: Mapped[str | None] = mapped_column(Text)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id", ondelete="SET NULL"))

    seats: Mapped[list[LiveTableSeat]] = relationship(
        back_populates="table", order_by="LiveTableSeat.seat", cascade="all, delete-orphan"
    )

    def __repr__(self) -> str:
        return f"LiveTable({self.id}, {self.game}, {self.state})"


class LiveTableSeat(Base):
    """One seat of a live table: a person (`user_id`, None while an invitation is open)
    or a bot version; how it ended, once over."""

    __tablename__ = "live_table_seats"
    __table_args__ = (UniqueConstraint("table_id", "seat"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("live_tables.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(8))  # "human" or "bot"
    user_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), index=True
    )
    version_id: Mapped[int | None] = mapped_column(
        ForeignKey("bot_versions.id", ondelete="CASCADE"), index=True
    )
    # The SHA-256 of an open seat's invitation token (the token itself is shown once).
    token_hash: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str | None] = mapped_column(String(12))  # a SeatStatus, once over
    error: Mapped[str | None] = mapped_column(Text)

    table: Mapped[LiveTable] = relationship(back_populates="seats")
    user: Mapped[User | None] = relationship()
    version: Mapped[BotVersion | None] = relationship()

    def __repr__(self) -> str:
        return f"LiveTableSeat(table={self.table_id}, seat={self.seat}, {self.kind})"


class HumanRating(Base):
    """A person's TrueSkill rating in one game, from live tables: a pool of its own, apart
    from the bots' (`ranking.humans`). `skill` (μ − 3σ) is copied for the leaderboard."""

    __tablename__ = "human_ratings"
    __table_args__ = (Index("ix_human_ratings_game_skill", "game", "skill"),)

    user_id: Mapped[int] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(40), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    skill: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)

    def __repr__(self) -> str:
        return f"HumanRating(user={self.user_id}, {self.game}, mu={self.mu:.2f})"


def upsert(session: Session, entity: type[Base]) -> postgresql.Insert | sqlite.Insert:
    """An INSERT of `entity` in the session's dialect, which has `on_conflict_do_update`
    (PostgreSQL's and SQLite's spell the same ON CONFLICT clause)."""
    dialect = session.get_bind().dialect.name
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(entity)


def rows_changed(result: Result) -> int:
    """How many rows an UPDATE or DELETE changed (its result is a CursorResult)."""
    return cast(CursorResult, result).rowcount


def valid_id(value) -> bool:
    """A possible row id (anything else cannot exist, and must not reach the database)."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_ID


def active_version(bot: Bot) -> BotVersion | None:
    """The bot's active version, if it has one."""
    return next((v for v in bot.versions if v.state == VersionState.ACTIVE), None)
