"""Binds the site's blueprints, the login loader and template helpers to an app."""

from __future__ import annotations

from flask import Flask
from werkzeug.routing import IntegerConverter

import engine
from ladder.extensions import db, login_manager
from ladder.models import MAX_ID, User


class IdConverter(IntegerConverter):
    """A row id: 1 to 2**31 - 1, so a huge number in a URL is a 404, not a database error."""

    def __init__(self, url_map) -> None:
        super().__init__(url_map, min=1, max=MAX_ID)


def register_converters(app: Flask) -> None:
    app.url_map.converters["id"] = IdConverter


def register(app: Flask) -> None:
    from ladder.accounts.routes import bp as accounts
    from ladder.boards.routes import bp as boards
    from ladder.botpages.routes import bp as botpages
    from ladder.matchpages.routes import bp as matchpages
    from ladder.replays.routes import bp as replays
    from ladder.staff.routes import bp as staff

    for blueprint in (accounts, boards, botpages, matchpages, replays, staff):
        app.register_blueprint(blueprint)

    @login_manager.user_loader
    def _load(user_id: str):
        return db.session.get(User, int(user_id)) if user_id.isdigit() else None

    @app.context_processor
    def _globals():
        return {"game_names": engine.game_names()}

    @app.template_filter("when")
    def _when(value: str | None) -> str:
        return "—" if not value else value.replace("T", " ").removesuffix("Z")

    @app.template_filter("num")
    def _num(value, places: int = 2) -> str:
        return "—" if value is None else f"{value:.{places}f}"
