"""The bot guide and the API reference as pages, the favicon, and short addresses people
type (`/upload`)."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, url_for

import engine
from ladder import settings
from ladder.extensions import app_settings
from ladder.web import markdown
from ladder.web.api import reference
from ladder.web.api.openapi import document

bp = Blueprint("pages", __name__)

# The guide bot authors read in the repository is the one the site shows.
BOT_GUIDE = settings.ROOT / "bots" / "README.md"


@bp.get("/docs/bots")
def bot_guide():
    guide = markdown.render_file(BOT_GUIDE)
    if guide is None:
        abort(404)
    return render_template("pages/bot_guide.html", guide=guide)


@bp.get("/docs/api")
def api_reference():
    """The API for people: every call of the OpenAPI document, laid out to read."""
    doc = document(engine.game_names(), app_settings())
    return render_template(
        "pages/api_reference.html",
        about=markdown.render(doc["info"]["description"], shift=1),
        operations=reference.operations(doc),
    )


@bp.get("/upload")
def upload():
    return redirect(url_for("bots.upload"), 301)


@bp.get("/favicon.ico")
def favicon():
    # Pages name the SVG icon; this answers clients that ask the old address anyway.
    return redirect(url_for("static", filename="favicon.svg"), 301)
