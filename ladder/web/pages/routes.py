"""The bot guide as a page, the favicon, and short addresses people type (`/upload`)."""

from __future__ import annotations

from flask import Blueprint, abort, redirect, render_template, url_for

from ladder import settings
from ladder.web import markdown

bp = Blueprint("pages", __name__)

# The guide bot authors read in the repository is the one the site shows.
BOT_GUIDE = settings.ROOT / "bots" / "README.md"


@bp.get("/docs/bots")
def bot_guide():
    guide = markdown.render_file(BOT_GUIDE)
    if guide is None:
        abort(404)
    return render_template("pages/bot_guide.html", guide=guide)


@bp.get("/upload")
def upload():
    return redirect(url_for("bots.upload"), 301)


@bp.get("/favicon.ico")
def favicon():
    # Pages name the SVG icon; this answers clients that ask the old address anyway.
    return redirect(url_for("static", filename="favicon.svg"), 301)
