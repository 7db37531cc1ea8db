"""Account views: thin wrappers over `services.accounts`."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required, login_user, logout_user
from sqlalchemy import select

from ladder.extensions import db
from ladder.models import ApiToken
from ladder.services import accounts
from ladder.services.errors import RateLimited, ServiceError
from ladder.web.accounts.forms import LoginForm, RegisterForm, TokenForm
from ladder.web.forms import EmptyForm

bp = Blueprint("accounts", __name__)


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
    if form.validate_on_submit():
        try:
            user = accounts.register(db.session, form.username.data, form.password.data)
        except ServiceError as exc:
            form.username.errors.append(str(exc))
        else:
            login_user(user)
            flash(f"Welcome aboard, {user.username}.")
            return redirect(url_for("boards.index"))
    status = 400 if form.is_submitted() else 200
    return render_template("accounts/register.html", form=form), status


@bp.route("/login", methods=["GET", "POST"])
def login():
    form = LoginForm()
    if form.validate_on_submit():
        try:
            user = accounts.log_in(
                db.session, current_app.config, form.username.data, form.password.data,
                request.remote_addr,
            )  # fmt: skip
        except RateLimited as exc:
            form.password.errors.append(str(exc))
            return render_template("accounts/login.html", form=form), exc.status
        if user is not None:
            login_user(user)
            return redirect(_safe_next(request.args.get("next")))
        form.password.errors.append("wrong username or password")
    status = 400 if form.is_submitted() else 200
    return render_template("accounts/login.html", form=form), status


@bp.post("/logout")
def logout():
    form = EmptyForm()
    if form.validate_on_submit():
        logout_user()
    return redirect(url_for("boards.index"))


@bp.route("/account/tokens", methods=["GET", "POST"])
@login_required
def tokens():
    form = TokenForm()
    plain = None
    if form.validate_on_submit():
        try:
            _token, plain = accounts.create_token(db.session, current_user, form.name.data)
        except ServiceError as exc:
            form.name.errors.append(str(exc))
    mine = db.session.scalars(
        select(ApiToken).where(ApiToken.user_id == current_user.id).order_by(ApiToken.id)
    ).all()
    status = 400 if form.is_submitted() and plain is None else 200
    return render_template(
        "accounts/tokens.html", form=form, tokens=mine, plain=plain, revoke=EmptyForm()
    ), status


@bp.post("/account/tokens/<id:token_id>/revoke")
@login_required
def revoke(token_id: int):
    form = EmptyForm()
    if form.validate_on_submit():
        accounts.revoke_token(db.session, current_user, token_id)
        flash("Token revoked.")
    return redirect(url_for("accounts.tokens"))
