"""Replay viewer endpoints: thin wrappers over `queries.replays`.

Stored matches are read with GET; a file the user opens is POSTed (with its
CSRF token) to the same two endpoints under /replays/open. JSON endpoints answer
errors as JSON, so the viewer can show the reason.
"""

from __future__ import annotations

import hashlib

from flask import Blueprint, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from ladder.errors import ServiceError
from ladder.extensions import app_settings, db
from ladder.queries import replays
from ladder.services import matches, viewer
from ladder.transactions import unit_of_work
from ladder.web.cache import shared_page
from ladder.web.errors import MESSAGES
from ladder.web.replays import caching

bp = Blueprint("replays", __name__)


def _is_json() -> bool:
    return request.path.endswith(".json")


@bp.errorhandler(ServiceError)
def _service_error(exc: ServiceError):
    if not _is_json():
        raise exc
    return jsonify({"error": str(exc)}), exc.status, getattr(exc, "headers", {})


@bp.errorhandler(CSRFError)
def _csrf_error(exc: CSRFError):
    if not _is_json():
        raise exc
    return jsonify({"error": "The page expired or the request was not sent from this site."}), 400


@bp.errorhandler(HTTPException)
def _http_error(exc: HTTPException):
    if not _is_json():
        raise exc
    code = exc.code or 500
    return jsonify({"error": MESSAGES.get(code) or exc.description}), code


# -- stored matches ------------------------------------------------------------
# Worked out once and kept (`services.viewer`); the first read commits what it kept.
def _checked(match_id: int):
    """The match, its replay checked present (NotFound otherwise)."""
    found = matches.get_match(db.session, match_id)
    viewer.replay_key(db.session, app_settings(), found)
    return found


@bp.get("/matches/<id:match_id>/replay/summary.json")
@shared_page
def match_summary(match_id: int):
    found = _checked(match_id)
    cached = caching.not_modified(found, "summary", "summary-gz")
    if cached is not None:
        return cached
    with unit_of_work(db.session):
        body = viewer.summary(db.session, app_settings(), found)
    return caching.json_body(body, found, "summary")


@bp.get("/matches/<id:match_id>/replay/frames.json")
@shared_page
def match_frames(match_id: int):
    found = _checked(match_id)
    args = request.args
    # One ETag per window and view: the query string is part of the URL.
    kind = "frames-" + hashlib.sha256(request.query_string).hexdigest()[:12]
    cached = caching.not_modified(found, kind, kind + "-gz")
    if cached is not None:
        return cached
    with unit_of_work(db.session):
        body = viewer.frames(
            db.session,
            app_settings(),
            found,
            args.get("view"),
            args.get("start"),
            args.get("count"),
        )
    return caching.json_body(body, found, kind)


def _frames(replay: replays.Replay, args) -> dict:
    perspective = replays.parse_perspective(args.get("view"), replay)
    start, count = replays.parse_window(args.get("start"), args.get("count"), replay)
    return replays.frames(replay, perspective, start, count)


# -- a file the user opens -------------------------------------------------------
@bp.get("/replays/open")
def open_page():
    return render_template("replays/open.html")


def _uploaded() -> replays.Replay:
    upload = request.files.get("file")
    if upload is None:
        raise replays.ReplayError("choose a replay file")
    try:
        data = upload.read(replays.MAX_FILE_BYTES + 1)
    finally:
        upload.close()  # a large upload is spooled to a temporary file: close it now
    return replays.load(replays.parse_file(data))


@bp.post("/replays/open/summary.json")
def open_summary():
    return jsonify(replays.summary(_uploaded()))


@bp.post("/replays/open/frames.json")
def open_frames():
    return jsonify(_frames(_uploaded(), request.form))
