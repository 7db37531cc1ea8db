"""Front page, leaderboards and game pages."""

from __future__ import annotations

from flask import (
    Blueprint,
    abort,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from flask_login import current_user

import engine
from ladder.extensions import app_settings, db
from ladder.queries import boards as queries
from ladder.queries import certainty, home, resolved
from ladder.web.boards import charts, games
from ladder.web.cache import shared_data, shared_page
from ladder.web.paging import page_arg
from ladder.web.tables.routes import play_form

bp = Blueprint("boards", __name__)


@bp.get("/")
@shared_page
def index():
    """The ladder at a glance: what is being played, what just finished, tournaments,
    each game's top bots, the newest bots, and what skill means."""
    names = engine.game_names()
    front = shared_data(
        ("front page", resolved.resolve_stamps(db.session)),
        lambda: {
            "playing": home.playing_matches(db.session),
            "tables": home.live_tables(db.session),
            "recent": home.recent_matches(db.session, names),
            "tournaments": home.tournaments(db.session),
            "boards": home.top_boards(db.session, names, rating=app_settings().rating_shown),
            "bots": home.newest_bots(db.session),
        },
    )
    return render_template(
        "index.html",
        skill=home.skill_facts(),
        certainty=certainty.LIMITS,
        rating_shown=app_settings().rating_shown,
        **front,
    )


@bp.get("/leaderboard")
def leaderboard_pick():
    names = engine.game_names()
    game = request.args.get("game") or (names[0] if names else None)
    if game is None:
        return render_template(
            "boards/leaderboard.html", board=None, game=None, chart_library=False
        )
    return redirect(url_for("boards.leaderboard", game=games.known_game(game)))


@bp.get("/leaderboard/<game>")
@shared_page
def leaderboard(game: str):
    """A game's board, ordered by either rating (?rating=online|resolved, RATING_SHOWN
    when not asked); its data is keyed on the last re-solve too, so a new one shows."""
    page, per_page = page_arg(), app_settings().page_size
    default = app_settings().rating_shown
    rating = certainty.check_rating(request.args.get("rating"), default)
    stamp = resolved.resolve_stamp(db.session, games.known_game(game))
    board, distribution = shared_data(
        ("leaderboard page", game, page, per_page, rating, stamp),
        lambda: (
            queries.leaderboard(db.session, game, page, per_page, rating),
            charts.skill_distribution(db.session, game),
        ),
    )
    return render_template(
        "boards/leaderboard.html",
        board=board,
        game=game,
        default_rating=default,
        certainty=certainty.LIMITS,
        distribution=distribution,
        chart_library=charts.library_ready(),
    )


@bp.get("/games")
def game_list():
    """Every game, with the ways into it: its rules, leaderboard, matches and a table."""
    return render_template(
        "boards/games.html", games=[games.game_info(name) for name in engine.game_names()]
    )


@bp.get("/games/<game>")
@shared_page
def game(game: str):
    games.known_game(game)
    return render_template(
        "boards/game.html",
        info=games.game_info(game),
        rules=games.rules_html(game),
        example=games.example_turn(game),
        starter=games.starter_path(app_settings().starter_dir, game) is not None,
        # The play form for a logged-in reader (whose page is never kept); a link for others.
        play=play_form(game) if current_user.is_authenticated else None,
    )


@bp.get("/games/<game>/starter/bot.py")
def starter(game: str):
    path = games.starter_path(app_settings().starter_dir, games.known_game(game))
    if path is None:
        abort(404)
    return send_file(path, mimetype="text/plain", as_attachment=True, download_name="bot.py")
