"""The bot guide and the API reference as pages, the bot author's kit for download, the
favicon, and short addresses people type (`/upload`)."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, abort, redirect, render_template, request, send_from_directory, url_for

import engine
from ladder import settings
from ladder.extensions import app_settings
from ladder.web import markdown
from ladder.web.api import reference
from ladder.web.api.openapi import document
from ladder.web.pages import kit

bp = Blueprint("pages", __name__)

# The guide bot authors read in the repository is the one the site shows.
BOT_GUIDE = settings.ROOT / "bots" / "README.md"


@bp.get("/docs/bots")
def bot_guide():
    guide = markdown.render_file(BOT_GUIDE)
    if guide is None:
        abort(404)
    # The guide's commands name this site, at the address its reader came to.
    return render_template("pages/bot_guide.html", guide=markdown.at_site(guide, request.url_root))


@bp.get("/download/<name>")
def download(name: str):
    """The kit this site runs, as a wheel or an sdist; a 404 page saying how to build it
    when its file is not there."""
    files = kit.files()
    if name not in files:
        abort(404)
    folder = Path(app_settings().kit_dir)
    if not (folder / name).is_file():
        page = render_template("pages/kit_missing.html", name=name)
        return page, 404
    return send_from_directory(folder, name, mimetype=files[name], as_attachment=True)


@bp.get("/docs/api")
def api_reference():
    """The API for people: every call of the OpenAPI document, laid out to read."""
    doc = document(engine.game_names(), app_settings())
    return render_template(
        "pages/api_reference.html",
        about=markdown.render(doc["info"]["description"], shift=1),
        operations=reference.operations(doc),
        schemas=reference.schemas(doc),
    )


@bp.get("/upload")
def upload():
    return redirect(url_for("bots.upload"), 301)


@bp.get("/favicon.ico")
def favicon():
    # Pages name the SVG icon; this answers clients that ask the old address anyway.
    return redirect(url_for("static", filename="favicon.svg"), 301)
