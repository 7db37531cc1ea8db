"""Friendly error pages (HTML) and JSON errors under /api; never a stack trace."""

from __future__ import annotations

import logging

from flask import Flask, jsonify, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, InternalServerError

from ladder.errors import ServiceError

log = logging.getLogger(__name__)

MESSAGES = {
    400: "The request could not be understood.",
    403: "You are not allowed to do that.",
    404: "There is nothing here.",
    405: "That method is not allowed here.",
    410: "That is gone for good.",
    413: "The upload is too large.",
    429: "Too many requests; try again later.",
    500: "Something went wrong on our side. It has been logged.",
}


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def respond(status: int, message: str | None = None, field: str | None = None):
    """An error response in the shape the caller expects; `field` names the part of
    the request refused, in a JSON answer."""
    message = message or MESSAGES.get(status, "Error.")
    if _wants_json():
        body = {"error": message} if field is None else {"error": message, "field": field}
        return jsonify(body), status
    return render_template("error.html", status=status, message=message), status


def register(app: Flask) -> None:
    @app.errorhandler(ServiceError)
    def _service(exc: ServiceError):
        body, status = respond(exc.status, str(exc), getattr(exc, "field", None))
        return body, status, getattr(exc, "headers", {})  # a RateLimited's Retry-After

    @app.errorhandler(CSRFError)
    def _csrf(exc: CSRFError):
        return respond(400, "The form expired or was not sent from this site; reload and retry.")

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        if isinstance(exc, InternalServerError):
            return _crash(exc)
        code = exc.code or 500
        message = MESSAGES.get(code) if code in (403, 404, 405, 413, 429) else exc.description
        body, status = respond(code, message)
        allow = getattr(exc, "valid_methods", None)
        headers = {"Allow": ", ".join(allow)} if code == 405 and allow else {}
        return body, status, headers

    @app.errorhandler(Exception)
    def _crash(exc: Exception):
        log.exception("unhandled error on %s %s", request.method, request.path)
        return respond(500)
