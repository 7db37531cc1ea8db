"""Users, passwords, logged-in sessions and API tokens.

Logins are throttled (see `log_in`); registrations are limited per address; a
logged-in browser is a `UserSession` row, so logging out ends it on the server.
Nothing here tells an unknown account from a known one: a wrong password and
an unknown name get the same answer after the same work.

Commands here flush but do not commit: the caller's unit of work does
(`ladder.transactions`). The throttled ones own their transactions (`log_in`,
`register_from`, `change_password`: an attempt is counted and committed before
anything is checked), and so do the touches on the login path (`session_user`,
`user_for_token`); each says so.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
from collections.abc import Collection
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from ladder.errors import Conflict, NotFound, RateLimited, ServiceError
from ladder.inputs import visible
from ladder.models import MAX_ID, ApiToken, LoginFailure, User, UserSession, rows_changed, utcnow
from ladder.services import throttle
from ladder.services.common_passwords import COMMON
from ladder.settings import Settings
from ladder.transactions import in_unit, unit_of_work
from workers.info import HUMAN_OWNER

USERNAME = re.compile(r"[A-Za-z0-9_.-]{3,40}")
MIN_PASSWORD = 8
MAX_PASSWORD = 200
TOKEN_PREFIX = "tw_"
# The house account's name when HOUSE_USER does not say: nobody else may register it.
HOUSE_USER = "demo"
REGISTRATION_WINDOW = timedelta(hours=1)
# A session unused this long is over; its last use is stored at most this often.
SESSION_IDLE = timedelta(days=30)
SESSION_TOUCH = timedelta(minutes=5)


# -- registration and passwords -------------------------------------------------
def check_username(username: str) -> str:
    """The username as stored (stripped), or a ServiceError saying what a name is."""
    username = (username or "").strip()
    if not USERNAME.fullmatch(username):
        raise ServiceError(
            "a username is 3 to 40 letters, digits, dots, dashes or underscores", field="username"
        )
    return username


def check_password(username: str, password: str) -> None:
    """Refuse a password that is short, the username, or one of the most common ones."""
    password = password or ""
    if len(password) < MIN_PASSWORD:
        raise ServiceError(f"a password has at least {MIN_PASSWORD} characters", field="password")
    if len(password) > MAX_PASSWORD:
        raise ServiceError(f"a password has at most {MAX_PASSWORD} characters", field="password")
    folded = password.strip().lower()
    if folded == (username or "").strip().lower():
        raise ServiceError("a password must not be the username", field="password")
    if folded in COMMON:
        raise ServiceError(
            "that password is one of the most common ones; choose another", field="password"
        )


def register(
    session: Session,
    username: str,
    password: str,
    *,
    reserved: Collection[str] = (),
    address: str | None = None,
) -> User:
    """Create an account (flushed, for the caller to commit); the password is stored
    only as a salted hash.

    A `reserved` name (the house account's, for people registering), in any case, is
    taken like any other. `address` is the client's, kept as `registered_from`. A name
    registered by someone else at the same moment is a Conflict (the caller's unit then
    rolls back).
    """
    username = check_username(username)
    check_password(username, password)
    # Hashed before the name is looked up: a taken name costs the same time as a free one.
    password_hash = generate_password_hash(password)
    taken = username.lower() in {name.lower() for name in reserved} or session.scalar(
        select(User.id).where(func.lower(User.username) == username.lower())
    )
    if taken:
        raise Conflict(f"the username {username!r} is taken", field="username")
    user = User(
        username=username,
        password_hash=password_hash,
        registered_from=address[:64] if address else None,
    )
    session.add(user)
    try:
        session.flush()
    except IntegrityError:  # registered by someone else at the same moment
        raise Conflict(f"the username {username!r} is taken", field="username") from None
    return user


def register_from(
    session: Session,
    settings: Settings,
    username: str,
    password: str,
    address: str | None,
    now: datetime | None = None,
) -> User:
    """`register`, at most REGISTRATIONS_PER_HOUR tries from one address (RateLimited).

    A try counts once the name and password pass their checks (a taken name counts).
    It owns its transactions, so its caller has no unit open: the try is counted and
    committed first (a refused registration counts too, and simultaneous ones see
    each other), then the account is made in a unit of its own.
    """
    now = now or utcnow()
    check_password(check_username(username), password)
    client = address
    address = (address or "unknown")[:64]
    limit = settings.registrations_per_hour
    with unit_of_work(session):
        what = "registrations an hour from one address"
        throttle.take(session, "register", address, limit, REGISTRATION_WINDOW, now, what)
    # The house's name, and the owner every bot is told a person's seat has (live tables).
    reserved = (settings.house_user, HUMAN_OWNER)
    with unit_of_work(session):
        return register(session, username, password, reserved=reserved, address=client)


def change_password(
    session: Session,
    settings: Settings,
    user: User,
    current: str,
    new: str,
    address: str | None,
    keep: str | None,
) -> int:
    """Set a new password after checking the current one (throttled like a login), and end
    every other session of the user (all but `keep`, this browser's). Returns how many.

    It owns its transactions, so its caller has no unit open: the check is `log_in`'s
    (committed before the password is looked at), then the change is a unit of its own.
    """
    if log_in(session, settings, user.username, current, address) is None:
        raise ServiceError("the current password is wrong", field="current")
    check_password(user.username, new)
    with unit_of_work(session):
        user.password_hash = generate_password_hash(new)
        return _end(session, user, keep)


# -- logging in ---------------------------------------------------------------------
@functools.cache
def _decoy_hash() -> str:
    """A hash no password matches, checked for an unknown name (same work as a known one)."""
    return generate_password_hash(secrets.token_hex(32))


def authenticate(session: Session, username: str, password: str) -> User | None:
    """The user with this name and password, or None (same answer, same time, either way)."""
    user = session.scalar(
        select(User).where(func.lower(User.username) == (username or "").strip().lower())
    )
    if user is None:
        check_password_hash(_decoy_hash(), password or "")
        return None
    if not check_password_hash(user.password_hash, password or ""):
        return None
    return user


def log_in(
    session: Session,
    settings: Settings,
    username: str,
    password: str,
    address: str | None,
    now: datetime | None = None,
) -> User | None:
    """`authenticate`, slowed down for whoever keeps guessing.

    Failed logins of the last LOGIN_WINDOW_S seconds are counted for this
    account from this address, for this address (one guesser, many names) and
    for this account (many addresses, one name). Past a limit the attempt is
    refused with RateLimited before the password is looked at, so a guesser
    learns nothing. The account limit refuses only addresses that failed
    lately themselves: strangers guessing cannot lock the owner out.

    Counting and checking is one step: under a row lock (`throttle.lock`) the
    attempt is counted, and stored as a failure, before the password is
    checked; a right password then forgives this address's failures on this
    account. So simultaneous guesses see each other and at most the limit's
    number of passwords are ever checked. That is why it owns its transactions (its
    caller has no unit open): the failure is committed before the password is checked.
    """
    now = now or utcnow()
    name = (username or "").strip().lower()[:64]
    address = (address or "unknown")[:64]
    window = timedelta(seconds=settings.login_window_s)
    with unit_of_work(session):
        throttle.lock(session, f"login-address:{address}", f"login-account:{name}")
        _check_login_limits(session, settings, name, address, window, now)
        session.execute(delete(LoginFailure).where(LoginFailure.at < now - window))  # small
        session.add(LoginFailure(username=name, address=address, at=now))
    with unit_of_work(session):
        user = authenticate(session, username, password)
        if user is not None:
            pair = (LoginFailure.username == name, LoginFailure.address == address)
            session.execute(delete(LoginFailure).where(*pair))
    return user


def _check_login_limits(
    session: Session, settings: Settings, name: str, address: str, window: timedelta, now: datetime
) -> None:
    recent = select(func.count(LoginFailure.id), func.min(LoginFailure.at)).where(
        LoginFailure.at >= now - window
    )
    by_pair = (LoginFailure.username == name, LoginFailure.address == address)
    by_address = (LoginFailure.address == address,)
    by_account = (LoginFailure.username == name,)
    waits = []
    # Failed logins per window are capped for one account from one address, one
    # address over all accounts, and one account over all addresses.
    pair_limit = settings.login_failures_per_account_and_address
    for limit, where in ((pair_limit, by_pair), (settings.login_failures_per_address, by_address)):
        count, oldest = session.execute(recent.where(*where)).one()
        if count >= limit:
            waits.append(throttle.seconds_until(oldest + window, now))
    if not waits:
        count, oldest = session.execute(recent.where(*by_account)).one()
        if count >= settings.login_failures_per_account:
            # Only an address that failed lately is refused; it may try again when the
            # account's oldest failure leaves the window or its own last one does.
            newest = session.scalar(select(func.max(LoginFailure.at)).where(*by_address))
            if newest is not None and newest >= now - window:
                account_wait = throttle.seconds_until(oldest + window, now)
                waits.append(min(account_wait, throttle.seconds_until(newest + window, now)))
    if waits:
        wait = max(waits)
        raise RateLimited(
            f"too many failed logins; try again in {throttle.in_words(wait)}", retry_after=wait
        )


# -- sessions -------------------------------------------------------------------------
def open_session(session: Session, user: User, address: str | None, agent: str | None) -> str:
    """A new logged-in session of `user`; the plain token (for the cookie) is returned once."""
    now = utcnow()
    plain = secrets.token_urlsafe(32)
    session.execute(delete(UserSession).where(UserSession.last_seen_at < now - SESSION_IDLE))
    session.add(
        UserSession(
            user_id=user.id,
            token_hash=_digest(plain),
            created_at=now,
            last_seen_at=now,
            address=(address or "")[:64],
            agent=(agent or "")[:200],
        )
    )
    return plain


def session_user(session: Session, user_id: str, plain: str | None) -> User | None:
    """The user of a live session whose token is `plain`, if it is `user_id`'s; else None.

    Flask-Login's loader, run before the view (or lazily, inside its unit): its touch of
    `last_seen_at` is committed at once in a transaction of its own when no unit is
    open, and joins the caller's unit when one is.
    """
    if not plain or not isinstance(plain, str):
        return None
    row = session.scalar(select(UserSession).where(UserSession.token_hash == _digest(plain)))
    now = utcnow()
    if row is None or str(row.user_id) != user_id or row.last_seen_at < now - SESSION_IDLE:
        return None
    if row.last_seen_at < now - SESSION_TOUCH:
        _touch(session, row, "last_seen_at", now)
    return row.user


def _touch(session: Session, row, column: str, now: datetime) -> None:
    """Store when `row` was last used: in the caller's unit if one is open, else at once."""
    if in_unit(session):
        setattr(row, column, now)
        return
    with unit_of_work(session):
        setattr(row, column, now)


def end_session(session: Session, plain: str | None) -> None:
    """End the session whose token is `plain` (log out); nothing if there is none."""
    if plain and isinstance(plain, str):
        session.execute(delete(UserSession).where(UserSession.token_hash == _digest(plain)))


def end_sessions(session: Session, user: User, keep: str | None = None) -> int:
    """End every session of `user` but `keep` (log out everywhere); how many ended."""
    return _end(session, user, keep)


def _end(session: Session, user: User, keep: str | None) -> int:
    query = delete(UserSession).where(UserSession.user_id == user.id)
    if keep:
        query = query.where(UserSession.token_hash != _digest(keep))
    return rows_changed(session.execute(query))


def sessions_of(session: Session, user: User) -> list[UserSession]:
    """`user`'s live sessions, most recently used first."""
    return list(
        session.scalars(
            select(UserSession)
            .where(
                UserSession.user_id == user.id,
                UserSession.last_seen_at >= utcnow() - SESSION_IDLE,
            )
            .order_by(UserSession.last_seen_at.desc(), UserSession.id.desc())
        )
    )


def is_session(row: UserSession, plain: str | None) -> bool:
    """Whether `row` is the session whose token is `plain`."""
    return bool(plain) and isinstance(plain, str) and row.token_hash == _digest(plain)


# -- staff and tokens -------------------------------------------------------------------
def set_staff(session: Session, username: str, flag: bool) -> User:
    """Make `username` staff (or not); LookupError names an unknown user (`ladder staff`)."""
    user = session.scalar(select(User).where(User.username == username))
    if user is None:
        raise LookupError(f"no user named {username!r}")
    user.is_staff = flag
    return user


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(session: Session, user: User, name: str) -> tuple[ApiToken, str]:
    """A new API token; the plain token is returned once and never stored."""
    name = (name or "").strip()
    if not 1 <= len(name) <= 60:
        raise ServiceError("a token name is 1 to 60 characters")
    if not visible(name):
        raise ServiceError("a token name may not hold control or invisible characters")
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(user=user, name=name, token_hash=_digest(plain), prefix=plain[:10])
    session.add(token)
    session.flush()
    return token, plain


def revoke_token(session: Session, user: User, token_id: int) -> None:
    """Revoke one of `user`'s tokens (another user's token is simply not found)."""
    token = session.get(ApiToken, token_id) if 1 <= token_id <= MAX_ID else None
    if token is None or token.user_id != user.id:
        raise NotFound("no such token")
    token.revoked = True


def user_for_token(session: Session, plain: str) -> User | None:
    """The owner of a live token, or None; its `last_used_at` is stored as `session_user`
    stores a session's (at once, in a transaction of its own, when no unit is open)."""
    if not plain or not plain.startswith(TOKEN_PREFIX):
        return None
    token = session.scalar(select(ApiToken).where(ApiToken.token_hash == _digest(plain)))
    if token is None or token.revoked:
        return None
    _touch(session, token, "last_used_at", utcnow())
    return token.user
