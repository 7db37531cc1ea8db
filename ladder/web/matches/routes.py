"""Match views: thin wrappers over `services.matches` and `queries.boards`."""

from __future__ import annotations

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_login import current_user, login_required

from ladder.errors import RateLimited, ServiceError
from ladder.extensions import app_settings, db
from ladder.inputs import whole_number
from ladder.models import version_label
from ladder.queries import boards as queries
from ladder.queries import owner as owner_queries
from ladder.services import bots, matches, storage, viewer
from ladder.transactions import unit_of_work
from ladder.web.boards.games import known_game
from ladder.web.cache import keep_longer, shared_data, shared_page
from ladder.web.matches.forms import ChallengeForm
from ladder.web.paging import page_arg
from ladder.web.replays import caching

bp = Blueprint("matches", __name__)

CHALLENGE_CHOICES = 200


def opponent_choices(version) -> list[tuple[int, str]]:
    """Active versions of the same game to challenge, best first."""
    board = queries.leaderboard(db.session, version.bot.game, 1, CHALLENGE_CHOICES)
    return [
        (
            e["version_id"],
            f"{version_label(e['bot'], e['version'])} by {e['owner']} (skill {e['skill']:.1f})",
        )
        for e in board["entries"]
        if e["version_id"] != version.id
    ]


@bp.get("/matches")
@shared_page
def match_list():
    game = request.args.get("game") or None
    if game is not None:
        known_game(game)
    bot_arg = request.args.get("bot", "")
    bot_id = whole_number(bot_arg)
    if bot_arg and bot_id is None:
        abort(400, "bot must be a bot id")
    page, per_page = page_arg(), app_settings().page_size
    listing = shared_data(
        ("matches", page, per_page, game, bot_id),
        lambda: queries.match_list(db.session, page, per_page, game=game, bot_id=bot_id),
    )
    return render_template("matches/list.html", listing=listing, game=game, bot=bot_arg)


@bp.get("/matches/<id:match_id>")
@shared_page  # an anonymous visitor's page: a seat owner's (their stderr) is never kept
def match(match_id: int):
    found = matches.get_match(db.session, match_id)
    keep_longer(found.over)
    detail = queries.match_detail(db.session, found)
    table = queries.match_table(db.session, found, detail["seats"], app_settings().house_user)
    # The stderr of a seat is shown to that bot's owner only (as the API gives it).
    reader = current_user.id if current_user.is_authenticated else None
    own_stderr = owner_queries.own_stderr(found, reader)
    expired = storage.replay_expired(found, app_settings().replay_keep_days)
    return render_template(
        "matches/match.html", match=detail, table=table, own_stderr=own_stderr, expired=expired
    )


@bp.get("/matches/<id:match_id>/replay.json.gz")
@shared_page
def replay(match_id: int):
    found = matches.get_match(db.session, match_id)
    viewer.replay_key(db.session, app_settings(), found)  # there, before a 304 says so
    cached = caching.not_modified(found, "file")
    if cached is not None:
        return cached
    data = matches.replay_bytes(db.session, app_settings(), found)  # 404 without one, 410 expired
    # The bytes whole (not a streamed file): an anonymous visitor's answer can be kept.
    name = f"tradewinds-{found.game}-match-{found.id}.json.gz"
    response = Response(
        data,
        mimetype="application/gzip",
        headers={"Content-Disposition": f"attachment; filename={name}"},
    )
    return caching.lasting(response, found, "file")


@bp.post("/challenges")
@login_required
def challenge():
    form = ChallengeForm()
    version_id = whole_number(form.version_id.data)
    if version_id is None:
        abort(400, "choose your bot")
    version = bots.get_version(db.session, version_id)
    if version.bot.owner_id != current_user.id:
        abort(403)
    form.opponents.choices = opponent_choices(version)
    if not form.validate_on_submit():
        for errors in form.errors.values():
            for error in errors:
                flash(f"Challenge not started: {error}")
        return redirect(url_for("bots.bot", bot_id=version.bot_id))
    try:
        with unit_of_work(db.session):
            started = matches.create_challenge(
                db.session,
                app_settings(),
                current_user,
                version.id,
                list(form.opponents.data),
                seed=form.seed.data,
            )
    except RateLimited as exc:
        # Refused with its status and Retry-After: the bot page again, saying why.
        flash(f"Challenge not started: {exc}")
        page = current_app.view_functions["bots.bot"](bot_id=version.bot_id)
        return page, exc.status, exc.headers
    except ServiceError as exc:
        flash(f"Challenge not started: {exc}")
        return redirect(url_for("bots.bot", bot_id=version.bot_id))
    flash("Challenge queued.")
    return redirect(url_for("matches.match", match_id=started.id))
