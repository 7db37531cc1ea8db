"""API views: read arguments, call a service or query, answer JSON.

A view that changes state is one unit of work (`ladder.transactions`), rolled back
before a ServiceError reaches its JSON handler; the token check (`user_for_token`)
and an upload own their transactions and are called outside one.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

from flask import Blueprint, Response, jsonify, redirect, request, stream_with_context, url_for
from flask_login import current_user
from werkzeug.exceptions import RequestEntityTooLarge

import engine
from ladder.errors import ServiceError
from ladder.extensions import app_settings, csrf, db
from ladder.inputs import whole_number
from ladder.models import MAX_ID, valid_id
from ladder.queries import boards as queries
from ladder.queries import certainty, replay_archive, resolved, table_mix
from ladder.queries import owner as owner_queries
from ladder.queries import tournaments as tournament_queries
from ladder.queries import version_tests as test_queries
from ladder.services import accounts, bots, matches, triage, version_tests, viewer
from ladder.services.bots import check_game
from ladder.services.uploads import too_large
from ladder.transactions import unit_of_work
from ladder.web.api.bodies import json_body
from ladder.web.api.openapi import document
from ladder.web.boards.games import game_info, known_game
from ladder.web.cache import keep_longer, keep_while, shared_data, shared_page
from ladder.web.errors import respond
from ladder.web.paging import MAX_PER_PAGE, default_per_page, int_arg, page_arg
from ladder.web.replays import caching
from ladder.web.uploads import read_bot_file, refused_body

bp = Blueprint("api", __name__, url_prefix="/api/v1")

OCTET_STREAM = "application/octet-stream"


class Unauthorized(ServiceError):
    status = 401


def _token_user():
    """The user of the bearer token, None when there is none; 401 for a bad one."""
    header = request.headers.get("Authorization", "")
    if not header:
        return None
    scheme, _, plain = header.partition(" ")
    if scheme.lower() != "bearer" or not plain.strip():
        raise Unauthorized("send the token as 'Authorization: Bearer <token>'")
    user = accounts.user_for_token(db.session, plain.strip())
    if user is None:
        raise Unauthorized("the API token is unknown or revoked")
    return user


def _caller(write: bool = False):
    """The bearer token's user, else the logged-in session's (CSRF-checked for a `write`:
    the session's cookie goes with any page's request), else None (401 for a bad token)."""
    user = _token_user()
    if user is None and current_user.is_authenticated:
        if write:
            csrf.protect()
        user = current_user._get_current_object()
    return user


def _known_caller(write: bool = False):
    """`_caller`, or 401 when the call has neither a token nor a session."""
    user = _caller(write)
    if user is None:
        raise Unauthorized(
            "this call needs an API token ('Authorization: Bearer <token>') or a logged-in session"
        )
    return user


def _owns(user, owner_id: int) -> bool:
    return user is not None and user.id == owner_id


def _private(response: Response) -> Response:
    """An answer that carries what only its caller may see: kept by no cache on the way.
    (`shared_page` keeps no answer to a caller with a token or a session either.)"""
    response.headers["Cache-Control"] = "private, no-store"
    return response


def _required_user():
    user = _token_user()
    if user is None:
        raise Unauthorized("this call needs an API token: 'Authorization: Bearer <token>'")
    return user


@bp.errorhandler(Unauthorized)
def _unauthorized(exc: Unauthorized):
    response = jsonify({"error": str(exc)})
    response.headers["WWW-Authenticate"] = 'Bearer realm="tradewinds"'
    return response, 401


def _paging() -> tuple[int, int]:
    default = default_per_page(app_settings())
    return page_arg(), int_arg("per_page", default, 1, MAX_PER_PAGE)


def _download_type(media_type: str) -> str:
    """`media_type`, or application/octet-stream for a client whose Accept prefers it
    (the binary type generated clients know); on a tie, `media_type`."""
    return request.accept_mimetypes.best_match([media_type, OCTET_STREAM], default=media_type)


def _id_list(value) -> bool:
    return isinstance(value, list) and all(valid_id(item) for item in value)


@bp.get("/", strict_slashes=False)
def landing():
    """Where the API starts: links for a program, the reference page for a browser."""
    if request.accept_mimetypes.best_match(["application/json", "text/html"]) == "text/html":
        return redirect(url_for("pages.api_reference"))
    return jsonify(
        {
            "name": "Tradewinds ladder API",
            "version": "1",
            "openapi": url_for("api.openapi", _external=True),
            "reference": url_for("pages.api_reference", _external=True),
            "games": url_for("api.games", _external=True),
        }
    )


@bp.get("/openapi.json")
def openapi():
    return jsonify(document(engine.game_names(), app_settings()))


@bp.get("/games")
def games():
    return jsonify({"games": [game_info(name) for name in engine.game_names()]})


@bp.get("/games/<game>/leaderboard")
@shared_page
def leaderboard(game: str):
    page, per_page = _paging()
    rating = certainty.check_rating(request.args.get("rating"), app_settings().rating_shown)
    stamp = resolved.resolve_stamp(db.session, known_game(game))  # a re-solve shows at once
    return jsonify(
        shared_data(
            ("leaderboard", game, page, per_page, rating, stamp),
            lambda: queries.leaderboard(db.session, game, page, per_page, rating),
        )
    )


@bp.get("/me")
def me():
    """The caller (token or session), their bots with every version, and their ratings at
    live tables: what their own pages show."""
    user = _known_caller()
    return _private(jsonify(_me_links(owner_queries.me(db.session, user))))


def _me_links(body: dict) -> dict:
    """`body` (`queries.owner.me`) with the addresses of each thing, on the site and here."""

    def link(endpoint: str, **values) -> str:
        return url_for(endpoint, _external=True, **values)

    body["links"] = {
        "page": link("bots.mine"),
        "account": link("accounts.account"),
        "upload": link("api.upload"),
    }
    for bot in body["bots"]:
        bot["links"] = {
            "page": link("bots.bot", bot_id=bot["id"]),
            "api": link("api.bot", bot_id=bot["id"]),
            "matches": link("api.match_list", bot=bot["id"]),
            "replays": link("api.bot_replays", bot_id=bot["id"]),
        }
        for version in bot["versions"]:
            version["links"] = {
                "api": link("api.version", version_id=version["id"]),
                "download": link("bots.download", version_id=version["id"]),
            }
            if version["test"] is not None:
                version["test"]["links"] = {
                    "page": link("bots.version_test", version_id=version["id"]),
                    "api": link("api.version_test", version_id=version["id"]),
                }
    return body


@bp.get("/bots/<id:bot_id>")
@shared_page  # an anonymous caller's answer: the owner's (validation logs) is never kept
def bot(bot_id: int):
    keep_while(lambda: queries.bot_revision(db.session, bot_id))  # kept until the bot changes
    found = bots.get_bot(db.session, bot_id)
    owner_view = _owns(_caller(), found.owner_id)
    answer = jsonify(
        {
            **queries.bot_summary(found, owner_view),
            "table_record": table_mix.table_record(db.session, bot_id, found.game),
        }
    )
    return _private(answer) if owner_view else answer


@bp.get("/bots/<id:bot_id>/compare/<id:other_id>")
@shared_page
def compare(bot_id: int, other_id: int):
    """Two bots of one board: the chance the first is stronger, and the matches to 95 %."""
    keep_while(
        lambda: (
            queries.bot_revision(db.session, bot_id),
            queries.bot_revision(db.session, other_id),
        )
    )
    found = bots.get_bot(db.session, bot_id)
    return jsonify(certainty.compare(db.session, found, other_id))


@bp.get("/versions/<id:version_id>")
def version(version_id: int):
    found = bots.get_version(db.session, version_id)
    owner_view = _owns(_caller(), found.bot.owner_id)
    answer = jsonify(queries.version_summary(found, owner_view))
    return _private(answer) if owner_view else answer


@bp.post("/versions/<id:version_id>/resume")
def resume_version(version_id: int):
    """Put a version that crash triage paused back into matchmaking (owner's token)."""
    user = _required_user()
    with unit_of_work(db.session):
        resumed = triage.resume(db.session, user, version_id)
    return jsonify(queries.version_summary(resumed, True))


@bp.get("/versions/<id:version_id>/test")
def version_test(version_id: int):
    """A candidate's test as it stands: sets, LLR and bounds, score, verdict (public)."""
    found = test_queries.test_of_version(db.session, version_id)
    return jsonify(test_queries.test_detail(db.session, found))


@bp.post("/versions/<id:version_id>/promote")
def promote_version(version_id: int):
    """Make a candidate the bot's active version, whatever its test says (owner's token)."""
    user = _required_user()
    with unit_of_work(db.session):
        test = version_tests.promote(db.session, user, version_id)
    return jsonify(queries.version_summary(test.version, True))


@bp.get("/bots/<id:bot_id>/replays")
def bot_replays(bot_id: int):
    """The bot's replays as one zip, streamed (filters: version, since, limit)."""
    found = bots.get_bot(db.session, bot_id)
    version = int_arg("version", 0, 1, MAX_ID) if "version" in request.args else None
    limit = int_arg("limit", replay_archive.DEFAULT_LIMIT, 1, replay_archive.MAX_LIMIT)
    since = _since_arg()
    found_entries = replay_archive.entries(db.session, found.id, version, since, limit)
    settings, session = app_settings(), db.session

    def load(match_id: int) -> bytes:
        return matches.replay_bytes(session, settings, matches.get_match(session, match_id))

    chunks = replay_archive.stream(found_entries, load, replay_archive.about(found))
    name = replay_archive.archive_name(found.name, found.id)
    return Response(
        stream_with_context(chunks),
        mimetype=_download_type("application/zip"),
        headers={"Content-Disposition": f"attachment; filename={name}"},
    )


def _since_arg():
    """The `since` query argument: an ISO date or date-time (UTC), or None."""
    raw = request.args.get("since")
    if raw is None:
        return None
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ServiceError(f"since must be an ISO date or date-time, not {raw!r}") from None
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


@bp.post("/versions")
def upload():
    user = _required_user()
    upload = request.files.get("file")  # a body over MAX_CONTENT_LENGTH: _body_too_large
    if upload is None:
        raise ServiceError("send the bot as a multipart form field 'file'", field="file")
    settings = app_settings()
    # A file over MAX_BOT_BYTES is a 413 (the site's words, `web.uploads`), counted in
    # neither hourly bucket; what the bytes say is the service's (400, counted).
    data = read_bot_file(upload, settings.max_bot_bytes)
    created = bots.upload_version(
        db.session,
        settings,
        user,
        request.form.get("game", ""),
        request.form.get("name", ""),
        upload.filename or "",
        data,
        candidate=_flag("candidate", False),
        promote=_flag("promote", True),
    )
    return jsonify(queries.version_summary(created, True)), 201


@bp.get("/versions")
def upload_refused_by_the_proxy():
    """Where nginx sends an upload over its own body limit (deploy/nginx), as a GET with
    the body's size: the 413 the app gives a file over the limit, in JSON, not nginx's
    HTML. Any other GET is told to POST."""
    limit = app_settings().max_bot_bytes
    refused = whole_number(request.args.get("refused_bytes"))
    if refused is None or refused <= limit:
        body, status = respond(405, "upload a bot with POST /api/v1/versions")
        return body, status, {"Allow": "POST"}
    return respond(413, too_large("", refused, limit, unread=True), "file")


@bp.errorhandler(RequestEntityTooLarge)
def _body_too_large(exc: RequestEntityTooLarge):
    """A body over MAX_CONTENT_LENGTH, refused unread: an upload's says what the upload
    form says (the file's name and size, the limit)."""
    if request.endpoint != "api.upload":
        return respond(413)
    return respond(413, refused_body(app_settings().max_bot_bytes).message, "file")


FLAGS = {
    "true": True,
    "1": True,
    "yes": True,
    "on": True,
    "false": False,
    "0": False,
    "no": False,
    "off": False,
}


def _flag(name: str, default: bool) -> bool:
    """A yes/no form field (`true` or `false`; absent: `default`)."""
    raw = request.form.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() not in FLAGS:
        raise ServiceError(f"{name} is true or false, not {raw[:20]!r}")
    return FLAGS[raw.lower()]


@bp.get("/matches")
@shared_page
def match_list():
    page, per_page = _paging()
    game = request.args.get("game")  # absent: every game; empty or unknown: refused
    if game is not None:
        check_game(game)
    bot_id = int_arg("bot", 0, 1, MAX_ID) if "bot" in request.args else None
    return jsonify(
        shared_data(
            ("matches", page, per_page, game, bot_id),
            lambda: queries.match_list(db.session, page, per_page, game=game, bot_id=bot_id),
        )
    )


@bp.get("/matches/<id:match_id>")
@shared_page  # an anonymous caller's answer: a seat owner's (their stderr) is never kept
def match(match_id: int):
    reader = _caller()
    found = matches.get_match(db.session, match_id)
    keep_longer(found.over)
    # Each seat's stderr goes to that bot's owner only, as on the match page.
    stderr = owner_queries.own_stderr(found, reader.id if reader else None)
    answer = jsonify(owner_queries.with_stderr(queries.match_detail(db.session, found), stderr))
    return _private(answer) if stderr else answer


@bp.get("/matches/<id:match_id>/replay")
@shared_page
def replay(match_id: int):
    found = matches.get_match(db.session, match_id)
    mimetype = _download_type("application/gzip")
    kind = "file" if mimetype == "application/gzip" else "file-octet"
    viewer.replay_key(db.session, app_settings(), found)  # there, before a 304 says so
    cached = caching.not_modified(found, kind)
    if cached is not None:
        return cached
    # The stored bytes as they are: gzipped JSON (NotFound, 404, without one).
    response = Response(
        matches.replay_bytes(db.session, app_settings(), found),
        mimetype=mimetype,
        headers={"Content-Disposition": f"attachment; filename=match-{found.id}.json.gz"},
    )
    response.vary.add("Accept")
    return caching.lasting(response, found, kind)


@bp.post("/challenges")
def challenge():
    user = _required_user()
    body = json_body("ChallengeRequest")
    version_id, opponents, seed = body["version_id"], body["opponents"], body.get("seed")
    # Ids in a body are input: outside 1..MAX_ID is a 400, as in a query (openapi.ABOUT).
    if not valid_id(version_id):
        raise ServiceError(f"version_id must be an integer from 1 to {MAX_ID}", field="version_id")
    if not _id_list(opponents):
        raise ServiceError(
            f"opponents must be a list of version ids (integers from 1 to {MAX_ID})",
            field="opponents",
        )
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ServiceError("seed must be an integer", field="seed")
    with unit_of_work(db.session):
        started = matches.create_challenge(
            db.session,
            app_settings(),
            user,
            cast(int, version_id),
            cast(list, opponents),
            seed=seed,
        )
    return jsonify(queries.match_detail(db.session, started)), 201


@bp.get("/tournaments")
def tournament_list():
    return jsonify(tournament_queries.listing(db.session))


def _tournament_detail(tournament_id: int) -> dict:
    found = tournament_queries.get_tournament(db.session, tournament_id)
    return tournament_queries.detail(db.session, found)


@bp.get("/tournaments/<id:tournament_id>")
def tournament(tournament_id: int):
    info = _tournament_detail(tournament_id)
    keep = ("standings", "schedule", "bracket")
    return jsonify({k: v for k, v in info.items() if k not in keep})


@bp.get("/tournaments/<id:tournament_id>/standings")
def tournament_standings(tournament_id: int):
    info = _tournament_detail(tournament_id)
    return jsonify({"id": info["id"], "state": info["state"], "standings": info["standings"]})


@bp.get("/tournaments/<id:tournament_id>/schedule")
def tournament_schedule(tournament_id: int):
    info = _tournament_detail(tournament_id)
    keep = ("id", "state", "format", "schedule", "bracket")
    return jsonify({k: info[k] for k in keep})
