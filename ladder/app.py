"""The app factory, `create_app`: settings, extensions, security headers, blueprints
and the Celery app wired together (imported from `ladder` as `ladder.create_app`).

Kept out of `ladder/__init__.py` so that importing any part of the ladder (the
`ladder play` command, a worker's match code) does not import Flask with it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from ladder.extensions import app_settings, csrf, db, login_manager, use_settings
from ladder.settings import KEYS, Settings

# Scripts and styles only from the site's own files, never inline (scripts set
# styles through the DOM, which a policy does not restrict); no plugin content
# (<object>, <embed>: named, since scanners do not count the default-src fallback);
# no <base> may move relative URLs elsewhere, and forms post to this site only.
CSP = (
    "default-src 'self'; style-src 'self'; script-src 'self'; object-src 'none';"
    " frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
# Behind HTTPS (COOKIE_SECURE) browsers are told to use nothing else for a year.
HSTS = "max-age=31536000"


def _security_headers(response):
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if response.mimetype == "text/html":
        response.headers.setdefault("Content-Security-Policy", CSP)
    if app_settings().session_cookie_secure:
        response.headers.setdefault("Strict-Transport-Security", HSTS)
    return response


def create_app(config: Mapping[str, object] | None = None) -> Flask:
    """Build the web app: settings from the environment, then `config` on top.

    `config` holds upper-case keys: the settings' (`Settings.with_overrides`, which
    refuses a misspelt one) and Flask's or its extensions' own (TESTING,
    WTF_CSRF_ENABLED), which go to app.config as they are.
    """
    app = Flask("ladder")  # the package: its templates and static files, its logger name
    overrides = dict(config or {})
    env = dict(os.environ)
    if overrides.get("SECRET_KEY"):
        env["SECRET_KEY"] = str(overrides["SECRET_KEY"])  # no need to make var/secret_key then
    found = Settings.from_env(env).with_overrides(overrides, others=app.config)
    use_settings(app, found)
    app.config.from_mapping({key: value for key, value in overrides.items() if key not in KEYS})
    # Anything larger than a bot file plus its form is refused before it is read (413).
    if app.config.get("MAX_CONTENT_LENGTH") is None:
        app.config["MAX_CONTENT_LENGTH"] = found.max_bot_bytes + 64 * 1024
    app.config["SESSION_COOKIE_SAMESITE"] = app.config.get("SESSION_COOKIE_SAMESITE") or "Lax"

    hops = found.proxy_hops
    if hops:
        # The client's address and scheme come from the proxies' X-Forwarded-* headers.
        # Flask documents wrapping wsgi_app so; mypy sees a method assigned.
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops
        )
    app.after_request(_security_headers)
    db.init_app(app)
    csrf.init_app(app)
    login_manager.init_app(app)
    login_manager.login_view = "accounts.login"

    from ladder import web
    from ladder.jobs.celery_app import celery_init_app

    web.register(app)
    celery_init_app(app)
    return app
