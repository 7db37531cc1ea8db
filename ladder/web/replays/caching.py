"""HTTP caching of what a stored match's replay URLs serve: the download and the viewer's
summary and frames.

A finished match's replay never changes, so its answers are `public, immutable` with
an ETag, and a client (or nginx) that asks again with If-None-Match gets a 304. The
freshness is one day, not a year: a replay a retention policy drops is refused from
then on (`services.viewer.replay_key`), and a cached copy outlives that by a day at
most. A 304 comes after that same lookup, so a dropped replay is never confirmed as
still fresh.
"""

from __future__ import annotations

from flask import Response, request

from ladder.models import Match
from ladder.services import viewer
from ladder.web.cache import keep_longer

MAX_AGE_S = 24 * 3600
LASTING = f"public, max-age={MAX_AGE_S}, immutable"


def _etag(match: Match, kind: str) -> str:
    return f"{viewer.etag(match)}-{kind}"


def not_modified(match: Match, *kinds: str) -> Response | None:
    """A 304 when the client already holds one of these representations, else None."""
    for kind in kinds:
        tag = _etag(match, kind)
        if tag in request.if_none_match:
            response = Response(status=304)
            response.set_etag(tag)
            response.headers["Cache-Control"] = LASTING
            return response
    return None


def lasting(response: Response, match: Match, kind: str) -> Response:
    """Mark `response` as the never-changing representation `kind` of the match's replay
    (and kept the longer time in the page cache, for an anonymous reader)."""
    keep_longer()
    response.set_etag(_etag(match, kind))
    response.headers["Cache-Control"] = LASTING
    return response


def json_body(body: viewer.Body, match: Match, kind: str) -> Response:
    """A kept JSON body: as kept (gzip) to a client that takes it, else unzipped."""
    if "gzip" in request.accept_encodings:
        response = Response(body.gzipped, mimetype="application/json")
        response.headers["Content-Encoding"] = "gzip"
        kind += "-gz"
    else:
        response = Response(body.plain(), mimetype="application/json")
    response.vary.add("Accept-Encoding")
    return lasting(response, match, kind)
