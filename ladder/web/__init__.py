"""The site and the JSON API: one blueprint per area, named like its templates folder.

`register(app)` binds them all to an app, with what they share: the `id` URL
converter, the error pages, the login loader and the template helpers. Views
are thin: they read the request, call `ladder.services`, and render.
"""

from __future__ import annotations

from datetime import datetime

from flask import Flask
from werkzeug.routing import IntegerConverter

import engine
from ladder.extensions import login_manager
from ladder.models import MAX_ID, utcnow


class IdConverter(IntegerConverter):
    """A row id: 1 to 2**31 - 1, so a huge number in a URL is a 404, not a database error."""

    def __init__(self, url_map) -> None:
        super().__init__(url_map, min=1, max=MAX_ID)


def how_long_ago(moment: str, now: datetime | None = None) -> str:
    """A UTC time as the queries give it (ISO 8601 with a Z) in words, from `now`:
    "just now", "5 min ago", "3 h ago", "2 days ago"; past a week, its date."""
    then = datetime.fromisoformat(moment.removesuffix("Z"))
    seconds = ((now or utcnow()) - then).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    if seconds < 7 * 86400:
        days = int(seconds // 86400)
        return f"{days} day{'s' * (days > 1)} ago"
    return then.date().isoformat()


def register(app: Flask) -> None:
    """Bind the site's blueprints, the API, the error pages and the template helpers."""
    from ladder.web import api, cache, errors
    from ladder.web.accounts.routes import bp as accounts
    from ladder.web.accounts.routes import load_user
    from ladder.web.boards.routes import bp as boards
    from ladder.web.bots.routes import bp as bots
    from ladder.web.matches.routes import bp as matches
    from ladder.web.pages.routes import bp as pages
    from ladder.web.replays.routes import bp as replays
    from ladder.web.staff.routes import bp as staff
    from ladder.web.tables.routes import bp as tables
    from ladder.web.tournaments.routes import bp as tournaments

    app.url_map.converters["id"] = IdConverter  # before any rule uses it
    cache.init_app(app)
    for blueprint in (
        accounts,
        boards,
        bots,
        matches,
        pages,
        replays,
        staff,
        tables,
        tournaments,
    ):
        app.register_blueprint(blueprint)
    api.register(app)
    errors.register(app)

    # A cookie logs in only while its server-side session lives (see web.accounts).
    login_manager.user_loader(load_user)

    @app.context_processor
    def _globals():
        return {"game_names": engine.game_names()}

    @app.template_filter("when")
    def _when(value: str | None) -> str:
        return "—" if not value else value.replace("T", " ").removesuffix("Z")

    @app.template_filter("ago")
    def _ago(value: str | None) -> str:
        return "—" if not value else how_long_ago(value)

    @app.template_filter("num")
    def _num(value, places: int = 2) -> str:
        return "—" if value is None else f"{value:.{places}f}"
