"""The JSON API under /api/v1: reads are public, writes need a bearer token."""

from __future__ import annotations

from flask import Flask

from ladder.extensions import csrf


def register(app: Flask) -> None:
    from ladder.web.api import tables  # noqa: F401 - its views join the blueprint
    from ladder.web.api.routes import bp

    # Token-authenticated JSON calls carry no cookie session, so no CSRF token either.
    csrf.exempt(bp)
    app.register_blueprint(bp)
