"""Bots and their versions: upload, validation state, activation, retirement.

An upload marked candidate waits, once validated, in the `candidate` state while
`services.version_tests` tests it against the version then active; every other
passing version replaces the active one at once (`activate`).

Commands here flush but do not commit: the caller's unit of work does
(`ladder.transactions`); `upload_version` alone owns its transactions (every try is
counted, and committed, before the file is checked: as refused until it is stored).
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

import engine
from ladder import artifacts
from ladder.broker import announce
from ladder.errors import (
    Conflict,
    Forbidden,
    NotFound,
    RateLimited,
    ServiceError,
    Superseded,
    TooLarge,
)
from ladder.inputs import visible
from ladder.models import (
    LIVE_VERSION_STATES,
    Bot,
    BotVersion,
    Rating,
    ThrottleEvent,
    User,
    VersionState,
    VersionTest,
    VersionTestState,
    rows_changed,
    utcnow,
    valid_id,
)
from ladder.ranking import ratings
from ladder.services import bot_changes, storage, throttle
from ladder.services.uploads import BadUpload, UploadLimits, check_bot_file, too_large
from ladder.settings import Settings
from ladder.tournaments.sprt import Hypotheses
from ladder.transactions import unit_of_work

UPLOAD_WINDOW = timedelta(hours=1)
# The two buckets an upload try counts in (`throttle` events of one user's key).
ACCEPTED, REFUSED = "upload", "upload-refused"


def check_game(name: str) -> str:
    """A registered game's name, or a ServiceError listing the known ones."""
    if name not in engine.game_names():
        known = ", ".join(engine.game_names()) or "none yet"
        raise ServiceError(f"unknown game {name!r}; known games: {known}", field="game")
    return name


def get_bot(session: Session, bot_id: int) -> Bot:
    bot = session.get(Bot, bot_id) if valid_id(bot_id) else None
    if bot is None:
        raise NotFound(f"no bot {bot_id}")
    return bot


def get_version(session: Session, version_id: int) -> BotVersion:
    version = session.get(BotVersion, version_id) if valid_id(version_id) else None
    if version is None:
        raise NotFound(f"no bot version {version_id}")
    return version


def _start_try(session: Session, settings: Settings, user: User) -> int:
    """Count one upload try of `user` as refused (the event's id), unless a bucket is full.

    A try counts as refused until `_accept_try` moves it to the accepted bucket, so the
    refused bucket also holds every try still being checked: simultaneous uploads, each
    checking and counting under the same row lock (`throttle`), cannot all slip in
    under REFUSED_UPLOADS_PER_HOUR. With either bucket full the try is refused (429,
    naming that bucket) before its file is read, and is not counted.
    """
    now, key = utcnow(), str(user.id)
    with unit_of_work(session):
        throttle.lock(session, f"{ACCEPTED}:{key}")
        limit, what = settings.refused_uploads_per_hour, "refused uploads an hour"
        throttle.check(session, REFUSED, key, limit, UPLOAD_WINDOW, now, what)
        limit, what = settings.uploads_per_hour, "accepted uploads an hour"
        throttle.check(session, ACCEPTED, key, limit, UPLOAD_WINDOW, now, what)
        event = throttle.record(session, REFUSED, key, now)
        session.flush()
        return event.id


def _accept_try(session: Session, settings: Settings, user: User, event_id: int) -> None:
    """Move the try `event_id` to the accepted bucket, under the lock, if it has room.

    In the caller's unit of work that stores the version: both or neither. A try that
    a simultaneous upload beat to the last accepted place is refused (429), and then
    forgotten (`_forget_try`), as every 429 is."""
    key = str(user.id)
    throttle.lock(session, f"{ACCEPTED}:{key}")
    limit, what = settings.uploads_per_hour, "accepted uploads an hour"
    throttle.check(session, ACCEPTED, key, limit, UPLOAD_WINDOW, utcnow(), what)
    session.execute(update(ThrottleEvent).where(ThrottleEvent.id == event_id).values(kind=ACCEPTED))


def upload_version(
    session: Session,
    settings: Settings,
    user: User,
    game: str,
    name: str,
    filename: str,
    data: bytes,
    *,
    candidate: bool = False,
    promote: bool = True,
) -> BotVersion:
    """Store a new version (making the bot on first upload) and queue its validation.

    A `candidate` is tested against the bot's active version once validated, and made
    active on a `better` verdict if `promote` (`services.version_tests`).

    Nothing is stored unless the file passes every check. A file over MAX_BOT_BYTES is
    refused first (TooLarge, 413) and not counted; every other try counts, as refused
    (REFUSED_UPLOADS_PER_HOUR) or, once stored, as accepted (UPLOADS_PER_HOUR). So it
    owns its transactions (its caller has no unit open): the try is counted and
    committed first, then the version is stored, its try moved to the accepted bucket
    and its validation announced, in a unit of its own.
    """
    if len(data) > settings.max_bot_bytes:
        raise TooLarge(too_large(filename, len(data), settings.max_bot_bytes), field="file")
    event_id = _start_try(session, settings, user)
    check_game(game)
    name = (name or "").strip()
    if not (1 <= len(name) <= 60 and visible(name)):
        raise ServiceError(
            "a bot name is 1 to 60 characters, without control or invisible characters",
            field="name",
        )
    try:
        checked = check_bot_file(filename, data, UploadLimits.from_settings(settings))
    except BadUpload as exc:
        raise ServiceError(str(exc), field="file") from None
    try:
        with unit_of_work(session):
            _accept_try(session, settings, user, event_id)
            version = _store_version(session, settings, user, game, name, filename, data, checked)
            if candidate:
                _request_test(session, settings, version, promote)
            return version
    except RateLimited:
        _forget_try(session, event_id)
        raise


def _forget_try(session: Session, event_id: int) -> None:
    """Uncount a try refused for the accepted bucket's sake only (in a unit of its own)."""
    with unit_of_work(session):
        session.execute(delete(ThrottleEvent).where(ThrottleEvent.id == event_id))


def _request_test(session: Session, settings: Settings, version: BotVersion, promote: bool):
    """The candidate's test, waiting for its validation; the hypotheses are the defaults
    (`tournaments.sprt.Hypotheses`) over at most TEST_MAX_SETS sets."""
    defaults = Hypotheses()
    session.add(
        VersionTest(
            version_id=version.id,
            bot_id=version.bot_id,
            promote=bool(promote),
            state=VersionTestState.WAITING,
            s0=defaults.s0,
            s1=defaults.s1,
            alpha=defaults.alpha,
            beta=defaults.beta,
            max_sets=max(2, settings.test_max_sets),
            seed=secrets.randbelow(2**31 - 1),
        )
    )
    session.flush()


def _store_version(
    session: Session,
    settings: Settings,
    user: User,
    game: str,
    name: str,
    filename: str,
    data: bytes,
    checked,
) -> BotVersion:
    bot = session.scalar(
        select(Bot).where(Bot.owner_id == user.id, Bot.game == game, Bot.name == name)
    )
    if bot is None:
        bot = Bot(owner=user, game=game, name=name)
        session.add(bot)
        session.flush()
    elif bot.retired_at is not None:
        raise Conflict(f"the bot {name!r} is retired; choose another name")
    number = 1 + (
        session.scalar(select(func.max(BotVersion.number)).where(BotVersion.bot_id == bot.id)) or 0
    )
    # In the same transaction as the version row (database store): both or neither.
    file_key = storage.save_bot_file(
        artifacts.store(settings, session), checked.sha256, checked.kind, data
    )
    version = BotVersion(
        bot=bot,
        number=number,
        uploaded_by_id=user.id,
        filename=filename[-255:],
        kind=checked.kind,
        size=checked.size,
        sha256=checked.sha256,
        file_key=file_key,
        state=VersionState.PENDING,
        validation_log="",
    )
    session.add(version)
    try:
        session.flush()
    except IntegrityError:
        # Another upload of the same bot won the race for this name or number.
        raise Conflict("another upload of this bot happened at the same moment; retry") from None
    bot_changes.bots_changed(session, [bot.id])
    announce.announce(session, "validate", version.id)  # sent once committed
    return version


def start_validation(session: Session, version_id: int) -> BotVersion:
    """Mark a pending version as being validated and count the attempt (called by the worker).

    A compare-and-set, so that of two workers handed the same version one wins (once
    the caller commits it).
    """
    version = get_version(session, version_id)
    claimed = rows_changed(
        session.execute(
            update(BotVersion)
            .where(BotVersion.id == version_id, BotVersion.state == VersionState.PENDING)
            .values(state=VersionState.VALIDATING, attempts=BotVersion.attempts + 1)
        )
    )
    session.refresh(version)
    if not claimed:
        raise Conflict(f"version {version_id} is {version.state}, not pending")
    bot_changes.bots_changed(session, [version.bot_id])
    return version


def requeue_validation(session: Session, version_id: int, max_attempts: int) -> bool:
    """Put a version being validated back to pending, unless it used `max_attempts` starts.

    False if it is not being validated, or has no start left (fail it then).
    """
    done = rows_changed(
        session.execute(
            update(BotVersion)
            .where(
                BotVersion.id == version_id,
                BotVersion.state == VersionState.VALIDATING,
                BotVersion.attempts < max_attempts,
            )
            .values(state=VersionState.PENDING)
        )
    )
    if done:
        bot_changes.bots_changed(
            session, session.scalars(select(BotVersion.bot_id).where(BotVersion.id == version_id))
        )
    return bool(done)


def finish_validation(
    session: Session, version_id: int, ok: bool, log: str, attempt: int | None = None
) -> BotVersion:
    """Store a validation's verdict; a passing version replaces the bot's active one
    (`activate`), but a candidate with an active version to test against: it becomes
    `candidate` and its test starts (`services.version_tests` plays it).

    A worker passes the `attempt` it claimed: a verdict of an attempt that is over
    (the version was handed out again) is refused with Superseded.
    """
    version = get_version(session, version_id)
    if version.state not in (VersionState.PENDING, VersionState.VALIDATING):
        raise Conflict(f"version {version_id} is {version.state}; it was validated already")
    if attempt is not None:
        current = session.scalar(
            select(BotVersion.attempts)
            .where(BotVersion.id == version_id, BotVersion.state == VersionState.VALIDATING)
            .with_for_update()
        )
        if current != attempt:
            raise Superseded(
                f"version {version_id} was handed out again: the verdict of attempt"
                f" {attempt} is refused"
            )
    version.validation_log = log or ""
    version.validated_at = utcnow()
    bot_changes.bots_changed(session, [version.bot_id])
    test = session.scalar(
        select(VersionTest).where(
            VersionTest.version_id == version.id, VersionTest.state == VersionTestState.WAITING
        )
    )
    if not ok:
        version.state = VersionState.FAILED
        if test is not None:
            test.end(VersionTestState.CANCELLED, note="the candidate failed its validation")
        return version
    if test is not None:
        baseline = session.scalar(
            select(BotVersion.id).where(
                BotVersion.bot_id == version.bot_id, BotVersion.state == VersionState.ACTIVE
            )
        )
        if baseline is not None and version.bot.retired_at is None:
            version.state = VersionState.CANDIDATE
            test.baseline_id = baseline
            test.state = VersionTestState.RUNNING
            test.started_at = utcnow()
            return version
        test.end(
            VersionTestState.CANCELLED,
            note="nothing to test against: the bot had no active version",
        )
    return activate(session, version)


def activate(session: Session, version: BotVersion) -> BotVersion:
    """Put a validated version on the ladder in place of the bot's active one.

    The replaced version is retired and keeps its rating history. The new one
    starts from its predecessor's skill (the latest earlier version with a
    rating): the same μ, σ widened (`ratings.successor`), and no games of its own.
    """
    newer_active = session.scalar(
        select(BotVersion.id).where(
            BotVersion.bot_id == version.bot_id,
            BotVersion.state == VersionState.ACTIVE,
            BotVersion.number > version.number,
        )
    )
    bot_changes.bots_changed(session, [version.bot_id])
    if version.bot.retired_at is not None or newer_active is not None:
        # A retired bot, or a later version already active: this one never plays.
        version.state = VersionState.RETIRED
        return version
    predecessor = session.execute(
        select(Rating.mu, Rating.sigma)
        .join(BotVersion, BotVersion.id == Rating.version_id)
        .where(BotVersion.bot_id == version.bot_id, BotVersion.number < version.number)
        .order_by(BotVersion.number.desc())
        .limit(1)
        # Shared lock (PostgreSQL): a rating update of the predecessor in flight
        # finishes first, so the new version starts from its latest skill.
        .with_for_update(read=True, of=Rating)
    ).one_or_none()
    session.execute(
        update(BotVersion)
        .where(BotVersion.bot_id == version.bot_id, BotVersion.state == VersionState.ACTIVE)
        .values(state=VersionState.RETIRED)
    )
    version.state = VersionState.ACTIVE
    start = ratings.successor(ratings.Skill(*predecessor) if predecessor else None)
    session.add(
        Rating(
            version_id=version.id,
            game=version.bot.game,
            mu=start.mu,
            sigma=start.sigma,
            skill=start.conservative,
            games=0,
        )
    )
    return version


def retire_bot(session: Session, user: User, bot_id: int) -> Bot:
    """Take a bot off the ladder for good; its matches and history stay."""
    bot = get_bot(session, bot_id)
    if bot.owner_id != user.id:
        raise Forbidden("only the bot's owner can retire it")
    if bot.retired_at is not None:
        raise Conflict("the bot is already retired")
    bot.retired_at = utcnow()
    bot_changes.bots_changed(session, [bot.id])
    for test in session.scalars(
        select(VersionTest).where(
            VersionTest.bot_id == bot.id, VersionTest.state == VersionTestState.WAITING
        )
    ):  # a running test sees its candidate retired and ends (`version_tests.advance`)
        test.end(VersionTestState.CANCELLED, note="the bot was retired")
    session.execute(
        update(BotVersion)
        .where(BotVersion.bot_id == bot.id, BotVersion.state.in_(LIVE_VERSION_STATES))
        .values(state=VersionState.RETIRED)
    )
    return bot


def version_file(
    session: Session, settings: Settings, user: User | None, version: BotVersion
) -> bytes:
    """The stored file of a version, for its owner only (NotFound if the store lost it)."""
    if user is None or version.bot.owner_id != user.id:
        raise Forbidden("only the bot's owner can download its code")
    try:
        return artifacts.store(settings, session).get(version.file_key)
    except artifacts.ArtifactMissing:
        raise NotFound(f"the file of {version.label} is missing from the store") from None
