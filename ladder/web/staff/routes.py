"""The staff pages: the status page (HTML and JSON), thin over `queries.status`, with the
versions whose two ratings disagree (`queries.resolved`), and the collusion check, thin
over `queries.collusion`."""

from __future__ import annotations

from functools import wraps

from flask import Blueprint, abort, jsonify, render_template, request
from flask_login import current_user, login_required

import engine
from ladder.broker.store import WORKER_FORGET_S
from ladder.extensions import app_settings, db
from ladder.queries import collusion, resolved
from ladder.queries.status import ladder_status
from ladder.web.boards.games import known_game

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
    return ladder_status(db.session, app_settings())


@bp.get("")
@staff_required
def status():
    disagree = {
        game: {
            "run": resolved.last_run(db.session, game),
            "rows": resolved.disagreements(db.session, game),
        }
        for game in engine.game_names()
    }
    return render_template(
        "staff/status.html",
        status=_status(),
        forget_s=WORKER_FORGET_S,
        disagreements=disagree,
        threshold=resolved.DISAGREEMENT,
    )


@bp.get("/status.json")
@staff_required
def status_json():
    response = jsonify(_status())
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/collusion")
@staff_required
def collusion_check():
    """Pairs of owners whose results together beat their ratings, for one game (?game=)."""
    names = engine.game_names()
    if not names:
        abort(404)
    game = known_game(request.args.get("game") or names[0])
    report = collusion.examine(db.session, app_settings(), game)
    return render_template("staff/collusion.html", report=report, games=names)
