"""The Tradewinds ladder: `create_app`, the app factory.

The layers, each a package, top to bottom: `web` (blueprints and the API),
`jobs` (the Celery app, its thin tasks, heartbeat and leases: the only layer that
imports Celery) and `cli` (the `ladder` command); `services` (commands: they
change state) and `queries` (what pages and the API read); `broker` (the Redis
names and announcing work after a commit), `ranking` (ratings and matchmaking,
pure), `tournaments` (schedules and standings, pure), `artifacts`, `models`,
`errors`; and below them all `workers` and `engine`. Beside them `settings`,
`extensions` and `transactions` (the unit of work a view, task or command opens and
commits around the services it calls).
"""

from __future__ import annotations

import os

from flask import Flask, current_app
from werkzeug.middleware.proxy_fix import ProxyFix

from ladder import settings
from ladder.extensions import csrf, db, login_manager

# Scripts and styles only from the site's own files, never inline (scripts set
# styles through the DOM, which a policy does not restrict); no <base> may move
# relative URLs elsewhere, and forms post to this site only.
CSP = (
    "default-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none';"
    " base-uri 'none'; form-action 'self'"
)
# Behind HTTPS (COOKIE_SECURE) browsers are told to use nothing else for a year.
HSTS = "max-age=31536000"


def _security_headers(response):
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if response.mimetype == "text/html":
        response.headers.setdefault("Content-Security-Policy", CSP)
    if current_app.config.get("SESSION_COOKIE_SECURE"):
        response.headers.setdefault("Strict-Transport-Security", HSTS)
    return response


def create_app(config: dict | None = None) -> Flask:
    """Build the web app: settings from the environment, then `config` on top."""
    app = Flask(__name__)
    env = dict(os.environ)
    if config and config.get("SECRET_KEY"):
        env["SECRET_KEY"] = config["SECRET_KEY"]  # no need to make var/secret_key then
    app.config.from_mapping(settings.from_env(env))
    if config:
        app.config.from_mapping(config)
    # Anything larger than a bot file plus its form is refused before it is read (413).
    if app.config.get("MAX_CONTENT_LENGTH") is None:
        app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_BOT_BYTES"] + 64 * 1024
    app.config["SESSION_COOKIE_SAMESITE"] = app.config.get("SESSION_COOKIE_SAMESITE") or "Lax"

    hops = int(app.config.get("PROXY_HOPS") or 0)
    if hops:
        # The client's address and scheme come from the proxies' X-Forwarded-* headers.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)
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
