"""Account views: thin wrappers over `services.accounts`.

A logged-in browser holds, in its signed cookie, the token of a server-side
session (`UserSession`); the login loader accepts the cookie only while that
session lives, so logging out, "log out everywhere" and a password change end
sessions for good, copied cookies included.

Each view that changes state is one unit of work (`ladder.transactions`); the
throttled commands (`register_from`, `log_in`, `change_password`) own their
transactions and are called outside one, and signing in after them is a unit of
its own.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import (
    Blueprint,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_login import current_user, login_required, login_user, logout_user
from sqlalchemy import select

from ladder.errors import RateLimited, ServiceError
from ladder.extensions import app_settings, db
from ladder.models import ApiToken, User
from ladder.queries import table_pages
from ladder.services import accounts
from ladder.transactions import unit_of_work
from ladder.web.accounts.forms import LoginForm, PasswordForm, RegisterForm, TokenForm
from ladder.web.forms import EmptyForm, place_error

bp = Blueprint("accounts", __name__)

SESSION_KEY = "sid"  # the cookie's server-side session token
CSRF_KEY = "csrf_token"  # where Flask-WTF keeps its CSRF secret in the cookie
NO_STORE = {"Cache-Control": "no-store"}  # pages with tokens or sessions: never cached


def load_user(user_id: str) -> User | None:
    """Flask-Login's loader: the user of this cookie's session, while it lives."""
    return accounts.session_user(db.session, user_id, session.get(SESSION_KEY))


def _sign_in(user: User) -> None:
    """Start a server-side session for `user`, with a fresh CSRF secret."""
    accounts.end_session(db.session, session.pop(SESSION_KEY, None))  # another user's, maybe
    session.pop(CSRF_KEY, None)  # a CSRF token from before the login no longer works
    session[SESSION_KEY] = accounts.open_session(
        db.session, user, request.remote_addr, request.user_agent.string
    )
    login_user(user)


def _sign_out() -> None:
    """End this browser's session on the server and forget it here."""
    accounts.end_session(db.session, session.pop(SESSION_KEY, None))
    session.pop(CSRF_KEY, None)
    logout_user()


def _safe_next(target: str | None) -> str:
    """Only a local path; anything else would be an open redirect."""
    if target and target.startswith("/") and not target.startswith("//"):
        parts = urlsplit(target)
        if not parts.scheme and not parts.netloc:
            return target
    return url_for("boards.index")


@bp.route("/register", methods=["GET", "POST"])
def register():
    form = RegisterForm()
    headers: dict[str, str] = {}
    status = 200
    if form.validate_on_submit():
        try:
            user = accounts.register_from(
                db.session, app_settings(), form.username.data, form.password.data,
                request.remote_addr,
            )  # fmt: skip
        except ServiceError as exc:
            place_error(form, exc)  # a limit names no field: above the form
            status = 429 if isinstance(exc, RateLimited) else 400
            headers = getattr(exc, "headers", {})
        else:
            with unit_of_work(db.session):
                _sign_in(user)
            flash(f"Welcome aboard, {user.username}.")
            return redirect(url_for("boards.index"))
    elif form.is_submitted():
        status = 400
    return render_template("accounts/register.html", form=form), status, headers


@bp.route("/login", methods=["GET", "POST"])
def login():
    form = LoginForm()
    if form.validate_on_submit():
        try:
            user = accounts.log_in(
                db.session, app_settings(), form.username.data, form.password.data,
                request.remote_addr,
            )  # fmt: skip
        except RateLimited as exc:
            form.password.errors.append(str(exc))
            return render_template("accounts/login.html", form=form), exc.status, exc.headers
        if user is not None:
            with unit_of_work(db.session):
                _sign_in(user)
            return redirect(_safe_next(request.args.get("next")))
        form.password.errors.append("wrong username or password")
    status = 400 if form.is_submitted() else 200
    return render_template("accounts/login.html", form=form), status


@bp.post("/logout")
def logout():
    form = EmptyForm()
    if form.validate_on_submit():
        with unit_of_work(db.session):
            _sign_out()
    return redirect(url_for("boards.index"))


@bp.get("/account")
@login_required
def account():
    return _account_page(PasswordForm(formdata=None), 200)


def _account_page(password: PasswordForm, status: int):
    this = session.get(SESSION_KEY)
    rows = [
        {"row": row, "this": accounts.is_session(row, this)}
        for row in accounts.sessions_of(db.session, current_user)
    ]
    page = render_template(
        "accounts/account.html",
        sessions=rows,
        password=password,
        everywhere=EmptyForm(),
        human_ratings=table_pages.ratings_of(db.session, current_user.id),
    )
    return page, status, NO_STORE


@bp.post("/account/password")
@login_required
def change_password():
    form = PasswordForm()
    if not form.validate_on_submit():
        return _account_page(form, 400)
    try:
        ended = accounts.change_password(
            db.session, app_settings(), current_user, form.current.data, form.password.data,
            request.remote_addr, session.get(SESSION_KEY),
        )  # fmt: skip
    except ServiceError as exc:
        place_error(form, exc, fallback="current")
        body, status, headers = _account_page(form, exc.status)
        return body, status, {**headers, **getattr(exc, "headers", {})}
    flash(f"Password changed; {ended} other session{'s' * (ended != 1)} logged out.")
    return redirect(url_for("accounts.account"))


@bp.post("/account/logout-everywhere")
@login_required
def logout_everywhere():
    form = EmptyForm()
    if form.validate_on_submit():
        with unit_of_work(db.session):
            accounts.end_sessions(db.session, current_user)
            _sign_out()
        flash("Logged out everywhere.")
        return redirect(url_for("accounts.login"))
    return redirect(url_for("accounts.account"))


@bp.route("/account/tokens", methods=["GET", "POST"])
@login_required
def tokens():
    form = TokenForm()
    plain = None
    if form.validate_on_submit():
        try:
            with unit_of_work(db.session):
                _token, plain = accounts.create_token(db.session, current_user, form.name.data)
        except ServiceError as exc:
            form.name.errors.append(str(exc))
        else:
            form = TokenForm(formdata=None)  # made: the form is blank for the next one
    mine = db.session.scalars(
        select(ApiToken).where(ApiToken.user_id == current_user.id).order_by(ApiToken.id)
    ).all()
    status = 400 if form.is_submitted() and plain is None else 200
    page = render_template(
        "accounts/tokens.html", form=form, tokens=mine, plain=plain, revoke=EmptyForm()
    )
    return page, status, NO_STORE


@bp.post("/account/tokens/<id:token_id>/revoke")
@login_required
def revoke(token_id: int):
    form = EmptyForm()
    if form.validate_on_submit():
        with unit_of_work(db.session):
            accounts.revoke_token(db.session, current_user, token_id)
        flash("Token revoked.")
    return redirect(url_for("accounts.tokens"))
