"""Users, passwords and API tokens."""

from __future__ import annotations

import hashlib
import math
import re
import secrets
from collections.abc import Mapping
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from ladder.models import MAX_ID, ApiToken, LoginFailure, User, utcnow
from ladder.services.errors import Conflict, NotFound, RateLimited, ServiceError

USERNAME = re.compile(r"^[A-Za-z0-9_.-]{3,40}$")
MIN_PASSWORD = 8
TOKEN_PREFIX = "tw_"
# Settings that cap failed logins per window: one account from one address,
# one address over all accounts, one account over all addresses.
LOGIN_LIMIT_PAIR = "LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS"
LOGIN_LIMIT_ADDRESS = "LOGIN_FAILURES_PER_ADDRESS"
LOGIN_LIMIT_ACCOUNT = "LOGIN_FAILURES_PER_ACCOUNT"


def register(session: Session, username: str, password: str) -> User:
    """Create an account; the password is stored only as a salted hash."""
    username = (username or "").strip()
    if not USERNAME.match(username):
        raise ServiceError("a username is 3 to 40 letters, digits, dots, dashes or underscores")
    if len(password or "") < MIN_PASSWORD:
        raise ServiceError(f"a password has at least {MIN_PASSWORD} characters")
    taken = session.scalar(select(User.id).where(func.lower(User.username) == username.lower()))
    if taken is not None:
        raise Conflict(f"the username {username!r} is taken")
    user = User(username=username, password_hash=generate_password_hash(password))
    session.add(user)
    session.commit()
    return user


def authenticate(session: Session, username: str, password: str) -> User | None:
    """The user with this name and password, or None (same answer for either mistake)."""
    user = session.scalar(
        select(User).where(func.lower(User.username) == (username or "").strip().lower())
    )
    if user is None or not check_password_hash(user.password_hash, password or ""):
        return None
    return user


def log_in(
    session: Session,
    config: Mapping,
    username: str,
    password: str,
    address: str | None,
    now: datetime | None = None,
) -> User | None:
    """`authenticate`, slowed down for whoever keeps guessing.

    Failed logins of the last LOGIN_WINDOW_S seconds are counted for this
    account from this address, for this address (one guesser, many names) and
    for this account (many addresses, one name). Past any limit the attempt
    is refused with RateLimited before the password is even looked at, so a
    guesser learns nothing. A success forgives this address's failures.
    """
    now = now or utcnow()
    name = (username or "").strip().lower()[:64]
    address = (address or "unknown")[:64]
    window = timedelta(seconds=int(config["LOGIN_WINDOW_S"]))
    since = now - window
    recent = select(func.count(LoginFailure.id), func.min(LoginFailure.at)).where(
        LoginFailure.at >= since
    )
    pair = (LoginFailure.username == name, LoginFailure.address == address)
    limits = (
        (LOGIN_LIMIT_PAIR, pair),
        (LOGIN_LIMIT_ADDRESS, (LoginFailure.address == address,)),
        (LOGIN_LIMIT_ACCOUNT, (LoginFailure.username == name,)),
    )
    for setting, where in limits:
        count, oldest = session.execute(recent.where(*where)).one()
        if count >= int(config[setting]):
            minutes = max(1, math.ceil((oldest + window - now).total_seconds() / 60))
            raise RateLimited(
                f"too many failed logins; try again in {minutes} minute{'s' * (minutes > 1)}"
            )
    user = authenticate(session, username, password)
    if user is None:
        session.execute(delete(LoginFailure).where(LoginFailure.at < since))  # keep it small
        session.add(LoginFailure(username=name, address=address, at=now))
    else:
        session.execute(delete(LoginFailure).where(*pair))
    session.commit()
    return user


def set_staff(session: Session, username: str, flag: bool) -> User:
    """Make `username` staff (or not); LookupError names an unknown user (`ladder staff`)."""
    user = session.scalar(select(User).where(User.username == username))
    if user is None:
        raise LookupError(f"no user named {username!r}")
    user.is_staff = flag
    session.commit()
    return user


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(session: Session, user: User, name: str) -> tuple[ApiToken, str]:
    """A new API token; the plain token is returned once and never stored."""
    name = (name or "").strip()
    if not 1 <= len(name) <= 60:
        raise ServiceError("a token name is 1 to 60 characters")
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(user=user, name=name, token_hash=_digest(plain), prefix=plain[:10])
    session.add(token)
    session.commit()
    return token, plain


def revoke_token(session: Session, user: User, token_id: int) -> None:
    """Revoke one of `user`'s tokens (another user's token is simply not found)."""
    token = session.get(ApiToken, token_id) if 1 <= token_id <= MAX_ID else None
    if token is None or token.user_id != user.id:
        raise NotFound("no such token")
    token.revoked = True
    session.commit()


def user_for_token(session: Session, plain: str) -> User | None:
    """The owner of a live token, or None."""
    if not plain or not plain.startswith(TOKEN_PREFIX):
        return None
    token = session.scalar(select(ApiToken).where(ApiToken.token_hash == _digest(plain)))
    if token is None or token.revoked:
        return None
    token.last_used_at = utcnow()
    session.commit()
    return token.user
