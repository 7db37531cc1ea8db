"""The JSON API: token auth for writes, clear errors, responses that match the OpenAPI document."""

from __future__ import annotations

import gzip
import io
import json

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance
from sqlalchemy import func, select

import engine
from ladder import settings as ladder_settings
from ladder.extensions import app_settings
from ladder.models import BotVersion, Match
from ladder.services import accounts
from ladder.web.api.openapi import document
from tests.unit.ladder.conftest import BOT_SOURCE, make_active_bot, make_user, override_settings


@pytest.fixture
def api_schema(app, world):
    override_settings(app, UPLOADS_PER_HOUR=10_000, REFUSED_UPLOADS_PER_HOUR=10_000)
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)


def validate(api_schema, path: str, method: str, response) -> None:
    """Check one real response against the documented schema for its status."""
    api_schema[path][method].validate_response(response)


def test_reads_match_the_document(client, api_schema, world):
    match_id, bot_id, version_id = world["match"].id, world["a"].bot_id, world["a"].id
    cases = [
        ("/games", "/api/v1/games"),
        ("/games/{game}/leaderboard", "/api/v1/games/toyrace/leaderboard?per_page=1&page=2"),
        ("/bots/{bot_id}", f"/api/v1/bots/{bot_id}"),
        ("/versions/{version_id}", f"/api/v1/versions/{version_id}"),
        ("/matches", "/api/v1/matches?game=toyrace"),
        ("/matches/{match_id}", f"/api/v1/matches/{match_id}"),
        ("/matches/{match_id}", f"/api/v1/matches/{world['queued'].id}"),
        ("/matches/{match_id}", "/api/v1/matches/999"),
        ("/tournaments", "/api/v1/tournaments"),
        ("/tournaments/{tournament_id}", "/api/v1/tournaments/1"),
        ("/tournaments/{tournament_id}", "/api/v1/tournaments/999"),
        ("/tournaments/{tournament_id}/standings", "/api/v1/tournaments/1/standings"),
        ("/tournaments/{tournament_id}/schedule", "/api/v1/tournaments/1/schedule"),
    ]
    for path, url in cases:
        response = client.get(url, headers=world["alice"])
        validate(api_schema, path, "GET", response)
    board = client.get("/api/v1/games/toyrace/leaderboard").get_json()
    assert [e["bot"] for e in board["entries"]] == ["anchor", "<script>x</script>"]
    assert board["entries"][0]["games"] == 1


def test_match_detail_and_replay(client, world):
    detail = client.get(f"/api/v1/matches/{world['match'].id}").get_json()
    assert [s["rank"] for s in detail["seats"]] == [1, 2]
    assert detail["seats"][0]["skill_change"] > 0 > detail["seats"][1]["skill_change"]
    assert "stderr" not in json.dumps(detail)
    url = f"/api/v1/matches/{world['match'].id}/replay"
    with client.get(url) as response:
        assert response.mimetype == "application/gzip"
        assert json.loads(gzip.decompress(response.get_data()))["seed"] == 4
        name = f"match-{world['match'].id}.json.gz"
        assert response.headers["Content-Disposition"] == f"attachment; filename={name}"
    # The same bytes as application/octet-stream, the binary type generated clients know.
    with client.get(url, headers={"Accept": "application/octet-stream"}) as octets:
        assert octets.mimetype == "application/octet-stream"
        assert octets.get_data() == response.get_data()
    missing = client.get(f"/api/v1/matches/{world['queued'].id}/replay")
    assert missing.status_code == 404 and "no replay yet" in missing.get_json()["error"]


def test_logs_only_for_the_owner_token(client, world):
    url = f"/api/v1/bots/{world['a'].bot_id}"
    assert "validation_log" not in client.get(url).get_json()["versions"][0]
    assert "validation_log" not in client.get(url, headers=world["bob"]).get_json()["versions"][0]
    own = client.get(url, headers=world["alice"]).get_json()
    assert own["versions"][0]["validation_log"] == "alice's private log"


def upload(client, headers, **fields):
    """POST /versions; a `file` given as (bytes, name) is sent as a fresh file each call."""
    data = {"game": "toyrace", "name": "api-bot", "file": (BOT_SOURCE, "bot.py")}
    data.update(fields)
    if isinstance(data["file"], tuple) and isinstance(data["file"][0], bytes):
        data["file"] = (io.BytesIO(data["file"][0]), data["file"][1])
    return client.post("/api/v1/versions", data=data, headers=headers)


def test_upload_with_token(client, api_schema, world, session):
    response = upload(client, world["alice"])
    assert response.status_code == 201
    validate(api_schema, "/versions", "POST", response)
    body = response.get_json()
    assert (body["state"], body["number"], body["validation_log"]) == ("pending", 1, "")


@pytest.mark.parametrize(
    ("headers", "fields", "status", "message"),
    [
        ({}, {}, 401, "needs an API token"),
        ({"Authorization": "Bearer tw_nope"}, {}, 401, "unknown or revoked"),
        ({"Authorization": "Basic abc"}, {}, 401, "Bearer <token>"),
        (None, {"game": "chess"}, 400, "unknown game 'chess'"),
        (None, {"file": (b"x = 1\n", "bot.py")}, 400, "does not define act"),
        (None, {"name": ""}, 400, "bot name is 1 to 60"),
    ],
)
def test_upload_refusals(client, world, session, headers, fields, status, message):
    response = upload(client, world["alice"] if headers is None else headers, **fields)
    assert response.status_code == status
    assert message in response.get_json()["error"]
    assert session.scalar(select(func.count(BotVersion.id))) == 2
    if status == 401:
        assert response.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    ("query", "status", "body"),
    [
        # nginx's redirect after refusing a body over its own limit (deploy/nginx).
        (
            "?refused_bytes=3145728",
            413,
            {"error": "the upload is about 3 MiB; the limit is 512 KiB", "field": "file"},
        ),
        ("", 405, {"error": "upload a bot with POST /api/v1/versions"}),
        ("?refused_bytes=100", 405, {"error": "upload a bot with POST /api/v1/versions"}),
        ("?refused_bytes=lots", 405, {"error": "upload a bot with POST /api/v1/versions"}),
    ],
)
def test_a_get_of_the_upload_says_why_nginx_refused_it_or_to_post(client, query, status, body):
    response = client.get(f"/api/v1/versions{query}")
    assert (response.status_code, response.get_json()) == (status, body)
    if status == 405:
        assert response.headers["Allow"] == "POST"


def test_upload_without_file_and_rate_limit(client, app, world):
    response = client.post("/api/v1/versions", data={"game": "toyrace"}, headers=world["alice"])
    assert response.status_code == 400 and "field 'file'" in response.get_json()["error"]
    override_settings(app, UPLOADS_PER_HOUR=2)  # alice's first bot was one upload
    assert upload(client, world["alice"]).status_code == 201
    limited = upload(client, world["alice"])
    assert limited.status_code == 429 and "uploads an hour" in limited.get_json()["error"]


def test_challenge_with_token(client, api_schema, world, session):
    body = {"version_id": world["a"].id, "opponents": [world["b"].id], "seed": 11}
    response = client.post("/api/v1/challenges", json=body, headers=world["alice"])
    assert response.status_code == 201
    validate(api_schema, "/challenges", "POST", response)
    created = session.get(Match, response.get_json()["id"])
    assert (created.ranked, created.seed, created.state) == (False, 11, "queued")


@pytest.mark.parametrize(
    ("who", "body", "status", "message"),
    [
        ("bob", {"version_id": "A", "opponents": ["B"]}, 403, "your own bot"),
        ("alice", {"version_id": "A", "opponents": []}, 400, "at least one opponent"),
        ("alice", {"version_id": "A", "opponents": "B"}, 400, "list of version ids"),
        ("alice", {"version_id": True, "opponents": ["B"]}, 400, "version_id must be an integer"),
        ("alice", {"version_id": "A", "opponents": ["B"], "seed": "x"}, 400, "seed must be"),
        ("alice", {"version_id": "A", "opponents": [424242]}, 404, "no bot version 424242"),
        ("alice", [1, 2], 400, "send a JSON object"),
    ],
)
def test_challenge_refusals(client, world, who, body, status, message):
    if isinstance(body, dict):
        ids = {"A": world["a"].id, "B": world["b"].id}
        body = {k: ids.get(v, v) if isinstance(v, str) else v for k, v in body.items()}
        if isinstance(body.get("opponents"), list):
            body["opponents"] = [ids.get(o, o) for o in body["opponents"]]
    response = client.post("/api/v1/challenges", json=body, headers=world[who])
    assert response.status_code == status
    assert message in response.get_json()["error"]


@pytest.mark.parametrize(
    ("url", "status", "message"),
    [
        ("/api/v1/matches?page=0", 400, "page must be an integer"),
        ("/api/v1/matches?per_page=101", 400, "per_page must be an integer from 1 to 100"),
        ("/api/v1/matches?bot=x", 400, "bot must be an integer"),
        ("/api/v1/matches?game=", 400, "unknown game ''"),
        ("/api/v1/games/chess/leaderboard", 404, "unknown game 'chess'; known games: "),
        ("/api/v1/matches?game=chess", 400, "unknown game 'chess'; known games: "),
        ("/api/v1/bots/999", 404, "no bot 999"),
        ("/api/v1/versions/999", 404, "no bot version 999"),
        ("/api/v1/nowhere", 404, "nothing here"),
    ],
)
def test_read_refusals_are_json(client, world, url, status, message):
    response = client.get(url)
    assert response.status_code == status
    assert message in response.get_json()["error"]


def test_revoked_token_cannot_write(client, session, world, bob):
    token, plain = accounts.create_token(session, bob, "short-lived")
    session.commit()
    accounts.revoke_token(session, bob, token.id)
    session.commit()
    response = upload(client, {"Authorization": f"Bearer {plain}"})
    assert response.status_code == 401


def test_api_writes_need_no_csrf_but_site_forms_do(client, world):
    assert upload(client, world["alice"]).status_code == 201
    assert client.post("/bots/upload", data={}).status_code in (302, 400)


def test_filter_matches_by_bot(client, world, session, config):
    other = make_active_bot(session, config, make_user(session, "carol"), name="lone")
    listing = client.get(f"/api/v1/matches?bot={other.bot_id}").get_json()
    assert listing["total"] == 0
    listing = client.get(f"/api/v1/matches?bot={world['a'].bot_id}").get_json()
    assert listing["total"] == 3  # the rated match, the challenge, the tournament final


def test_served_document_is_the_one_tested(app, client):
    override_settings(
        app, PAGE_SIZE=20, MAX_BOT_BYTES=1000, UPLOADS_PER_HOUR=7, REFUSED_UPLOADS_PER_HOUR=21
    )
    served = client.get("/api/v1/openapi.json").get_json()
    assert served == document(engine.game_names(), app_settings(app))
    assert "toyrace" in served["components"]["schemas"]["GameName"]["enum"]
    # The site's own limits: the default page size, the upload size.
    leaderboard = served["paths"]["/games/{game}/leaderboard"]["get"]
    assert {p["name"]: p["schema"].get("default") for p in leaderboard["parameters"]} == {
        "game": None,
        "page": 1,
        "per_page": 20,
        "rating": "online",  # RATING_SHOWN
    }
    upload = served["paths"]["/versions"]["post"]
    assert "at most 1,000 bytes:" in upload["description"]
    # Both hourly buckets, by the site's own numbers.
    assert "7 uploads stored, and 21 refused for what was sent" in upload["description"]
    assert upload["responses"]["429"]["description"] == (
        "over 7 stored or 21 refused uploads an hour"
    )


def test_per_page_defaults_to_the_documented_page_size(app, client, world):
    override_settings(app, PAGE_SIZE=1)
    listing = client.get("/api/v1/matches").get_json()
    assert (listing["per_page"], len(listing["matches"]), listing["pages"]) == (1, 1, 3)
    override_settings(app, PAGE_SIZE=1000)  # above the ceiling: the ceiling
    assert client.get("/api/v1/matches").get_json()["per_page"] == 100


# Built from the same function the app serves (the test above proves they agree), for
# the real games and the toy one the fixtures register; schemathesis's lazy fixture
# loader does not run under this pytest.
schema = schemathesis.openapi.from_dict(
    document(
        [*engine.game_names(), "toyrace"], ladder_settings.Settings.from_env({"SECRET_KEY": "x"})
    )
)


@schema.parametrize()
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_api_conforms_to_its_openapi_document(case, app, world):
    """schemathesis: generated calls (with a valid token) get documented answers."""
    override_settings(app, UPLOADS_PER_HOUR=10_000, REFUSED_UPLOADS_PER_HOUR=10_000)
    excluded = []
    if case.method == "POST":
        # Whether a file is a Python bot, or a table fits a game's player count, is beyond
        # JSON Schema: such schema-valid requests are rightly refused with a 400.
        excluded.append(positive_data_acceptance)
    if case.path == "/versions" and case.method == "GET":
        # nginx's question about an upload it refused: never a 2xx (a 413 or a 405).
        excluded.append(positive_data_acceptance)
    if case.path == "/bots/{bot_id}/compare/{other_id}":
        # So is whether two ids name two rated bots of one board (the same id twice is a 400).
        excluded.append(positive_data_acceptance)
    # The probes schemathesis sends on its own (the same call without the token, to see
    # that it is refused) go through the operation's and the schema's app, not the call's.
    case.operation.app = case.operation.schema.app = app
    case.call_and_validate(app=app, headers=world["alice"], excluded_checks=excluded)
