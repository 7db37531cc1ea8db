"""The staff status page (HTML and JSON): thin views over `services.status`."""

from __future__ import annotations

from functools import wraps

from flask import Blueprint, abort, current_app, jsonify, render_template
from flask_login import current_user, login_required

from ladder.extensions import db
from ladder.jobs.broker import WORKER_FORGET_S
from ladder.services.status import ladder_status

bp = Blueprint("staff", __name__, url_prefix="/staff")


def staff_required(view):
    """Log in first (redirect), then staff only (403 for everyone else)."""

    @login_required
    @wraps(view)
    def wrapped(*args, **kwargs):
        if not current_user.is_staff:
            abort(403)
        return view(*args, **kwargs)

    return wrapped


def _status() -> dict:
    return ladder_status(db.session, current_app.config)


@bp.get("")
@staff_required
def status():
    return render_template("staff/status.html", status=_status(), forget_s=WORKER_FORGET_S)


@bp.get("/status.json")
@staff_required
def status_json():
    response = jsonify(_status())
    response.headers["Cache-Control"] = "no-store"
    return response
