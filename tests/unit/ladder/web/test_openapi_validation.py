"""Real requests and responses of /api/v1, recorded through the test client and checked
against the served document with openapi-core, a validator outside clients use.

Every response must match the document. Every request is checked too: one the
document allows must be allowed by openapi-core, and one the server refuses for
breaking the document (an argument outside its schema, no token) must be refused
by openapi-core as well, so the document's schemas and the views' checks agree.
"""

from __future__ import annotations

import gzip
import io
import json
import zipfile
from dataclasses import dataclass

import pytest
from openapi_core import OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest, WerkzeugOpenAPIResponse
from werkzeug.test import EnvironBuilder, TestResponse
from werkzeug.wrappers import Request

from ladder.models import MAX_ID, utcnow
from ladder.services import resolve
from ladder.services.uploads import too_large
from tests.unit.ladder.conftest import BOT_SOURCE, override_settings
from tests.unit.ladder.helpers import finished_table

OCTETS = {"Accept": "application/octet-stream"}
UNREAD = object()  # a REFUSALS message worded from the request sent (`told_unread`)


@dataclass
class Exchange:
    """One call as sent and as answered (the request's body kept for the validator)."""

    request: Request
    response: TestResponse


def call(client, method: str, url: str, headers: dict | None = None, **body) -> Exchange:
    """Send one request (`body`: json= or data=) and keep both sides of it."""
    builder = EnvironBuilder(path=url, method=method, headers=headers, **body)
    try:
        request = builder.get_request()
    finally:
        builder.close()
    raw = request.get_data()  # cached on the request: the app reads its own copy
    request.input_stream.close()  # a large body is encoded into a temporary file
    with client.open(
        url, method=method, headers=headers, data=raw, content_type=request.content_type
    ) as response:
        response.get_data()  # a streamed zip is read whole while its context lives
    return Exchange(request, response)


def request_errors(api: OpenAPI, exchange: Exchange) -> list[Exception]:
    return list(api.iter_request_errors(WerkzeugOpenAPIRequest(exchange.request)))


def check(api: OpenAPI, exchange: Exchange, status: int, request_valid: bool = True) -> None:
    """The response has `status` and matches the document; the request is as valid as said."""
    response = exchange.response
    assert response.status_code == status, response.get_data(as_text=True)[:300]
    api.validate_response(
        WerkzeugOpenAPIRequest(exchange.request), WerkzeugOpenAPIResponse(response)
    )
    errors = request_errors(api, exchange)
    assert (not errors) == request_valid, errors


@pytest.fixture
def api(client) -> OpenAPI:
    """The validator, built from the document the app serves."""
    return OpenAPI.from_dict(client.get("/api/v1/openapi.json").get_json())


def bot_upload(name: str = "validated", filename: str = "bot.py", data: bytes = BOT_SOURCE):
    return {"game": "toyrace", "name": name, "file": (io.BytesIO(data), filename)}


def zipped_bot() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", BOT_SOURCE.decode())
        archive.writestr("helper.py", "X = 1\n")
    return buffer.getvalue()


def test_reads_and_downloads_match_the_document(api, client, session, config, world):
    match_id, bot_id, version_id = world["match"].id, world["a"].bot_id, world["a"].id
    resolve.resolve_game(session, config, "toyrace")  # so the re-solved figures are read too
    session.commit()
    reads = [
        "/api/v1/games",
        "/api/v1/games/toyrace/leaderboard",
        "/api/v1/games/toyrace/leaderboard?page=2&per_page=1",
        "/api/v1/games/toyrace/leaderboard?rating=resolved",
        f"/api/v1/bots/{bot_id}/compare/{world['b'].bot_id}",
        f"/api/v1/bots/{bot_id}",
        f"/api/v1/versions/{version_id}",
        "/api/v1/matches",
        f"/api/v1/matches?game=toyrace&bot={bot_id}&page=1&per_page=100",
        f"/api/v1/matches/{match_id}",
        f"/api/v1/matches/{world['queued'].id}",
        "/api/v1/tournaments",
        "/api/v1/tournaments/1",
        "/api/v1/tournaments/1/standings",
        "/api/v1/tournaments/1/schedule",
        f"/api/v1/bots/{bot_id}/replays?limit=5&since=2000-01-01T00:00:00Z",
        f"/api/v1/bots/{bot_id}/replays?version=1&since=2000-01-01",
    ]
    for url in reads:
        check(api, call(client, "GET", url), 200)
        check(api, call(client, "GET", url, world["alice"]), 200)  # a token changes nothing

    # Yours (token only: no read without one), and your seats' stderr in a match.
    check(api, call(client, "GET", "/api/v1/me", world["alice"]), 200)
    own = call(client, "GET", f"/api/v1/matches/{match_id}", world["alice"])
    assert own.response.get_json()["seats"][0]["stderr"] == "stderr of seat 0"

    # The owner's token shows the log; the public read needs none (no security declared).
    own = call(client, "GET", f"/api/v1/versions/{version_id}", world["alice"])
    assert own.response.get_json()["validation_log"] == "alice's private log"
    assert "security" not in api.spec["paths"]["/versions/{version_id}"]["get"]

    replay = f"/api/v1/matches/{match_id}/replay"
    for headers, media_type in ((None, "application/gzip"), (OCTETS, "application/octet-stream")):
        got = call(client, "GET", replay, headers)
        check(api, got, 200)
        assert got.response.mimetype == media_type
        assert json.loads(gzip.decompress(got.response.get_data()))["seed"] == 4
    for headers, media_type in ((None, "application/zip"), (OCTETS, "application/octet-stream")):
        got = call(client, "GET", f"/api/v1/bots/{bot_id}/replays", headers)
        check(api, got, 200)
        assert got.response.mimetype == media_type
        names = zipfile.ZipFile(io.BytesIO(got.response.get_data())).namelist()
        assert f"match-{match_id}.json.gz" in names and names[-2:] == [
            "index.json",
            "manifest.json",
        ]


def test_writes_match_the_document(api, client, session, world):
    alice = world["alice"]
    created = call(client, "POST", "/api/v1/versions", alice, data=bot_upload())
    check(api, created, 201)
    assert created.response.get_json()["kind"] == "py"
    packed = call(
        client,
        "POST",
        "/api/v1/versions",
        alice,
        data=bot_upload("zipped", "bot.zip", zipped_bot()),
    )
    check(api, packed, 201)
    assert packed.response.get_json()["kind"] == "zip"

    body = {"version_id": world["a"].id, "opponents": [world["b"].id], "seed": 7}
    check(api, call(client, "POST", "/api/v1/challenges", alice, json=body), 201)
    check(api, call(client, "POST", "/api/v1/challenges", alice, json={**body, "seed": None}), 201)

    world["a"].paused_at, world["a"].paused_reason = utcnow(), "its last 3 matches crashed"
    session.commit()
    check(api, call(client, "GET", f"/api/v1/versions/{world['a'].id}"), 200)  # paused: shown
    resumed = call(client, "POST", f"/api/v1/versions/{world['a'].id}/resume", alice)
    check(api, resumed, 200)
    assert resumed.response.get_json()["paused"] is None


# (who, method, url with {A} a version, {B} its bot, {Q} a queued match; body, status,
# whether the document allows the request, the message)
REFUSALS = [
    ("none", "GET", "/api/v1/matches?page=0", {}, 400, False, "page must be"),
    ("none", "GET", "/api/v1/matches?per_page=101", {}, 400, False, "from 1 to 100"),
    ("none", "GET", f"/api/v1/matches?bot={MAX_ID + 1}", {}, 400, False, "bot must be"),
    ("none", "GET", "/api/v1/matches?bot=0", {}, 400, False, "bot must be"),
    ("none", "GET", "/api/v1/matches?game=chess", {}, 400, False, "unknown game 'chess'"),
    ("none", "GET", "/api/v1/bots/{B}/replays?since=yesterday", {}, 400, False, "since must"),
    ("none", "GET", "/api/v1/bots/{B}/replays?limit=1001", {}, 400, False, "limit must"),
    ("none", "GET", "/api/v1/games/chess/leaderboard", {}, 404, False, "unknown game 'chess'"),
    ("none", "GET", "/api/v1/games/toyrace/leaderboard?rating=best", {}, 400, False, "rating is"),
    ("none", "GET", "/api/v1/bots/{B}/compare/{B}", {}, 400, True, "not with itself"),
    ("none", "GET", "/api/v1/bots/{B}/compare/999", {}, 404, True, "no bot 999"),
    ("none", "GET", "/api/v1/bots/999", {}, 404, True, "no bot 999"),
    ("none", "GET", "/api/v1/versions/999", {}, 404, True, "no bot version 999"),
    ("none", "GET", "/api/v1/matches/999", {}, 404, True, "no match 999"),
    ("none", "GET", "/api/v1/matches/{Q}/replay", {}, 404, True, "no replay yet"),
    ("none", "GET", "/api/v1/tournaments/999", {}, 404, True, "999"),
    ("none", "GET", "/api/v1/tournaments/999/schedule", {}, 404, True, "999"),
    ("none", "GET", "/api/v1/bots/999/replays", {}, 404, True, "no bot 999"),
    # An id in a path outside 1..MAX_ID names nothing: 404, as the document says.
    ("none", "GET", "/api/v1/bots/0", {}, 404, False, "nothing here"),
    ("none", "GET", f"/api/v1/matches/{MAX_ID + 1}", {}, 404, False, "nothing here"),
    ("none", "GET", "/api/v1/versions/-3", {}, 404, False, "nothing here"),
    ("bad", "GET", "/api/v1/bots/{B}", {}, 401, True, "unknown or revoked"),
    ("none", "GET", "/api/v1/me", {}, 401, False, "needs an API token"),
    ("bad", "GET", "/api/v1/me", {}, 401, True, "unknown or revoked"),
    ("bad", "GET", "/api/v1/matches/{Q}", {}, 401, True, "unknown or revoked"),
    ("none", "POST", "/api/v1/versions", {"data": "upload"}, 401, False, "needs an API token"),
    ("bad", "POST", "/api/v1/versions", {"data": "upload"}, 401, True, "unknown or revoked"),
    ("none", "POST", "/api/v1/challenges", {"json": "challenge"}, 401, False, "needs an API"),
    ("none", "POST", "/api/v1/versions/{A}/resume", {}, 401, False, "needs an API token"),
    ("alice", "POST", "/api/v1/versions", {"data": "not a bot"}, 400, True, "does not define"),
    ("alice", "POST", "/api/v1/versions", {"data": "chess"}, 400, False, "unknown game"),
    ("alice", "POST", "/api/v1/versions", {"data": "no name"}, 400, False, "bot name is"),
    ("alice", "POST", "/api/v1/versions", {"data": "blank name"}, 400, True, "bot name is"),
    ("alice", "POST", "/api/v1/versions", {"data": "no file"}, 400, False, "field 'file'"),
    # The file's own size (read in the view), or the body's (refused unread): that one
    # counts the random multipart boundary, so its words come from the length sent.
    ("alice", "POST", "/api/v1/versions", {"data": "too large"}, 413, True, "is 512.1 KiB;"),
    ("alice", "POST", "/api/v1/versions", {"data": "huge body"}, 413, True, UNREAD),
    ("alice", "POST", "/api/v1/challenges", {"json": [1, 2]}, 400, False, "JSON object"),
    ("alice", "POST", "/api/v1/challenges", {"json": "id 0"}, 400, False, "from 1 to"),
    ("alice", "POST", "/api/v1/challenges", {"json": "huge id"}, 400, False, "from 1 to"),
    ("alice", "POST", "/api/v1/challenges", {"json": "no one"}, 400, False, "at least one"),
    ("alice", "POST", "/api/v1/challenges", {"json": "bad seed"}, 400, False, "seed must"),
    ("alice", "POST", "/api/v1/challenges", {"json": "absent"}, 404, True, "no bot version"),
    ("bob", "POST", "/api/v1/challenges", {"json": "challenge"}, 403, True, "your own bot"),
    ("bob", "POST", "/api/v1/versions/{A}/resume", {}, 403, True, "owner"),
    ("alice", "POST", "/api/v1/versions/{A}/resume", {}, 409, True, "is not paused"),
    ("alice", "POST", "/api/v1/versions/999/resume", {}, 404, True, "no version 999"),
]


def told_unread(exchange: Exchange, limit: int) -> str:
    """What a body refused unread is told: the Content-Length the client really sent."""
    sent = int(exchange.response.request.headers["Content-Length"])
    return too_large("bot.py", sent, limit, unread=True)


def refusal_body(world, config, kind: str, name: str):
    """The body a REFUSALS row names, made fresh for each call."""
    a, b = world["a"].id, world["b"].id
    challenges = {
        "challenge": {"version_id": a, "opponents": [b]},
        "id 0": {"version_id": 0, "opponents": [b]},
        "huge id": {"version_id": a, "opponents": [MAX_ID + 1]},
        "no one": {"version_id": a, "opponents": []},
        "bad seed": {"version_id": a, "opponents": [b], "seed": "x"},
        "absent": {"version_id": a, "opponents": [424242]},
    }
    if kind == "json":
        return challenges[name] if isinstance(name, str) else name
    limit = config["MAX_BOT_BYTES"]
    uploads = {
        "upload": bot_upload(),
        "not a bot": bot_upload(data=b"x = 1\n"),
        "chess": {**bot_upload(), "game": "chess"},
        "no name": {**bot_upload(), "name": ""},
        "blank name": {**bot_upload(), "name": "   "},
        "no file": {"game": "toyrace", "name": "x"},
        "too large": bot_upload(data=BOT_SOURCE + b"#" * limit),
        "huge body": bot_upload(data=BOT_SOURCE + b"#" * (limit + 128 * 1024)),
    }
    return uploads[name]


def test_refusals_match_the_document(api, client, config, world):
    ids = {"B": world["a"].bot_id, "A": world["a"].id, "Q": world["queued"].id}
    tokens = {"none": None, "bad": {"Authorization": "Bearer tw_nope"}}
    for who, method, url, body, status, request_valid, message in REFUSALS:
        url = url.format(**ids)
        headers = tokens[who] if who in tokens else world[who]
        kwargs = {kind: refusal_body(world, config, kind, name) for kind, name in body.items()}
        got = call(client, method, url, headers, **kwargs)
        check(api, got, status, request_valid)
        if message is UNREAD:
            message = told_unread(got, config["MAX_BOT_BYTES"])
            assert message.startswith("the upload of bot.py is about 64")
        assert message in got.response.get_json()["error"], (url, got.response.get_json())
        if status == 401:
            assert got.response.headers["WWW-Authenticate"].startswith("Bearer")


def test_limits_answer_429_with_retry_after_as_documented(api, app, client, world):
    override_settings(app, UPLOADS_PER_HOUR=1, CHALLENGES_IN_FLIGHT=1)  # the world used each once
    limited = call(client, "POST", "/api/v1/versions", world["alice"], data=bot_upload())
    check(api, limited, 429)
    assert "uploads an hour" in limited.response.get_json()["error"]
    assert 1 <= int(limited.response.headers["Retry-After"]) <= 3600
    body = {"version_id": world["a"].id, "opponents": [world["b"].id]}
    busy = call(client, "POST", "/api/v1/challenges", world["alice"], json=body)
    check(api, busy, 429)
    assert int(busy.response.headers["Retry-After"]) >= 1


def test_a_live_tables_match_matches_the_document(api, client, session, config, alice, house):
    """A person's seat (no bot, no version) is a Seat the document allows."""
    _table, match = finished_table(session, config, alice, ["random"])
    bot_id = house["random"].bot_id
    urls = [f"/api/v1/matches/{match.id}", "/api/v1/matches", f"/api/v1/matches?bot={bot_id}"]
    for url in urls:
        got = call(client, "GET", url)
        check(api, got, 200)
        body = got.response.get_json()
        seats = body["seats"] if "seats" in body else body["matches"][0]["seats"]
        assert [s["person"] for s in seats] == ["alice", None], url
