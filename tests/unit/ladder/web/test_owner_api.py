"""What an owner's API gives that their pages show: `GET /api/v1/me`, each of their seats'
stderr in a match's JSON (never to anyone else, never through the page cache), and the
replay zip's manifest with the bot's seats in each match."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
import schemathesis
from jsonschema import Draft202012Validator
from sqlalchemy import select

from ladder.models import Match, VersionTest
from ladder.services import accounts, bots, matches, version_tests
from tests.unit.ladder.conftest import (
    BOT_SOURCE,
    login,
    make_active_bot,
    make_user,
    override_settings,
)
from tests.unit.ladder.helpers import outcome_for


@pytest.fixture
def owned(session, config, alice, bob):
    """alice's bot `b`: v1 active, v2 a candidate whose test played one match (both
    versions at its table); her bot `broken` whose only version failed validation; two
    ladder matches against bob's bot with alice in seat 1 (crashing), then in seat 0."""
    demo = make_user(session, "demo")
    for name in ("greedy", "search"):
        make_active_bot(session, config, demo, name=name)
    old = make_active_bot(session, config, alice, name="b")
    theirs = make_active_bot(session, config, bob, name="theirs")
    broken = bots.upload_version(session, config, alice, "toyrace", "broken", "bot.py", BOT_SOURCE)
    bots.finish_validation(session, broken.id, False, "SyntaxError: invalid syntax (line 1)")
    crashed = matches.create_match(session, config, "toyrace", [theirs.id, old.id], ranked=True)
    matches.record_match(session, config, crashed.id, outcome_for(crashed, [1, 2], ["ok", "crash"]))
    won = matches.create_match(session, config, "toyrace", [old.id, theirs.id], ranked=True)
    matches.record_match(session, config, won.id, outcome_for(won, [1, 2]))
    session.commit()
    candidate = bots.upload_version(
        session, config, alice, "toyrace", "b", "bot.py", BOT_SOURCE, candidate=True
    )
    bots.finish_validation(session, candidate.id, True, "passed")
    session.commit()
    test_id = session.scalar(select(VersionTest.id).where(VersionTest.version_id == candidate.id))
    version_tests.advance(session, config, test_id)
    tested = session.scalars(select(Match).where(Match.queue == "tests")).first()
    matches.record_match(
        session, config, tested.id, outcome_for(tested, list(range(1, tested.players + 1)))
    )
    _row, alice_token = accounts.create_token(session, alice, "tests")
    _row, bob_token = accounts.create_token(session, bob, "tests")
    session.commit()
    return {
        "old": old,
        "candidate": candidate,
        "broken": broken,
        "theirs": theirs,
        "crashed": crashed,
        "won": won,
        "tested": tested,
        "alice": {"Authorization": f"Bearer {alice_token}"},
        "bob": {"Authorization": f"Bearer {bob_token}"},
    }


@pytest.fixture
def api_schema(app):
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)


def test_me_with_a_token_gives_every_bot_and_version(client, api_schema, owned, alice):
    response = client.get("/api/v1/me", headers=owned["alice"])
    assert response.status_code == 200
    api_schema["/me"]["GET"].validate_response(response)
    assert response.headers["Cache-Control"] == "private, no-store"
    me = response.get_json()
    assert me["user"] == {"id": alice.id, "name": "alice"}
    assert [b["name"] for b in me["bots"]] == ["b", "broken"]
    b, broken = me["bots"]
    assert b["active_version"] == {"id": owned["old"].id, "number": 1}
    assert b["paused"] is False and b["rating"]["games"] == 2
    assert b["record"]["games"] == 2 and b["record"]["wins"] == 1
    assert b["links"]["page"].endswith(f"/bots/{b['id']}")
    assert b["links"]["replays"].endswith(f"/api/v1/bots/{b['id']}/replays")
    v1, v2 = b["versions"]
    assert (v1["number"], v1["state"], v1["validation_log"]) == (1, "active", "passed")
    assert v1["matches"] == 2 and v1["seat_results"]["crash"] == 1
    assert v1["last_fault"]["match_id"] == owned["crashed"].id
    assert v1["last_fault"]["seat"] == 1 and v1["test"] is None
    assert v1["links"]["download"].endswith(f"/versions/{v1['id']}/download")
    assert (v2["state"], v2["test"]["state"], v2["test"]["sets"]) == ("candidate", "running", 0)
    assert v2["test"]["links"]["api"].endswith(f"/api/v1/versions/{v2['id']}/test")
    (failed,) = broken["versions"]
    assert failed["state"] == "failed" and failed["validation_log"].startswith("SyntaxError")
    assert broken["active_version"] is None and broken["rating"] is None


def test_me_with_a_session_and_with_nothing_owned(app, client, session, owned):
    login(client)
    me = client.get("/api/v1/me")
    assert me.status_code == 200 and me.headers["Cache-Control"] == "private, no-store"
    assert me.get_json()["user"]["name"] == "alice" and len(me.get_json()["bots"]) == 2
    carol = make_user(session, "carol")
    other = app.test_client()
    login(other, "carol")
    nothing = other.get("/api/v1/me").get_json()
    assert nothing["user"] == {"id": carol.id, "name": "carol"}
    assert (nothing["bots"], nothing["table_ratings"]) == ([], [])
    assert nothing["links"]["page"].endswith("/bots/mine")


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({}, "needs an API token"),
        ({"Authorization": "Bearer tw_nope"}, "unknown or revoked"),
        ({"Authorization": "Basic abc"}, "Bearer <token>"),
    ],
)
def test_me_refuses_a_caller_it_cannot_name(client, owned, headers, message):
    response = client.get("/api/v1/me", headers=headers)
    assert response.status_code == 401 and message in response.get_json()["error"]
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def stderr_of(body: dict) -> dict:
    return {s["seat"]: s["stderr"] for s in body["seats"] if "stderr" in s}


def test_match_json_gives_stderr_to_the_seats_owner_only(client, app, api_schema, owned):
    override_settings(app, PAGE_CACHE_S=60)  # the page cache on, as in production
    url = f"/api/v1/matches/{owned['crashed'].id}"
    own = client.get(url, headers=owned["alice"])
    api_schema["/matches/{match_id}"]["GET"].validate_response(own)
    assert stderr_of(own.get_json()) == {1: "stderr of seat 1"}
    assert own.headers["Cache-Control"] == "private, no-store"
    # Read by the owner first, then by anyone: the owner's answer was not kept.
    anonymous = client.get(url)
    assert "stderr" not in json.dumps(anonymous.get_json())
    assert "Cache-Control" not in anonymous.headers
    assert client.get(url).get_data() == anonymous.get_data()  # the kept answer, still none
    theirs = client.get(url, headers=owned["bob"]).get_json()
    assert stderr_of(theirs) == {0: "stderr of seat 0"}
    # A logged-in owner's session reads it too; the kept anonymous answer is not theirs.
    login(client)
    assert stderr_of(client.get(url).get_json()) == {1: "stderr of seat 1"}
    # Both seats of a candidate's test are alice's.
    tested = client.get(f"/api/v1/matches/{owned['tested'].id}", headers=owned["alice"])
    seats = [s["seat"] for s in tested.get_json()["seats"] if s["owner"] == "alice"]
    assert sorted(stderr_of(tested.get_json())) == seats and len(seats) == 2


def test_a_bad_token_on_a_match_is_401_even_when_kept(client, app, owned):
    override_settings(app, PAGE_CACHE_S=60)
    url = f"/api/v1/matches/{owned['crashed'].id}"
    assert client.get(url).status_code == 200  # kept for anonymous callers
    refused = client.get(url, headers={"Authorization": "Bearer tw_nope"})
    assert refused.status_code == 401


def test_the_replay_zip_manifest_names_the_bots_seat_in_each_match(client, owned):
    answer = client.get(f"/api/v1/bots/{owned['old'].bot_id}/replays")
    archive = zipfile.ZipFile(io.BytesIO(answer.get_data()))
    ids = [owned[k].id for k in ("tested", "won", "crashed")]
    assert archive.namelist() == [f"match-{i}.json.gz" for i in ids] + [
        "index.json",
        "manifest.json",
    ]
    manifest = json.loads(archive.read("manifest.json"))
    assert manifest["bot"] == {
        "id": owned["old"].bot_id,
        "name": "b",
        "game": "toyrace",
        "owner": "alice",
    }
    listed = {m["match_id"]: m for m in manifest["matches"]}
    assert [m["match_id"] for m in manifest["matches"]] == ids
    crashed, won = listed[owned["crashed"].id], listed[owned["won"].id]
    assert (crashed["my_seats"], won["my_seats"]) == ([1], [0])
    assert crashed["file"] == f"match-{owned['crashed'].id}.json.gz" and not crashed["missing"]
    assert crashed["game"] == "toyrace" and crashed["finished_at"].endswith("Z")
    assert [(s["bot"], s["owner"], s["version"]) for s in crashed["seats"]] == [
        ("theirs", "bob", 1),
        ("b", "alice", 1),
    ]
    assert [(s["rank"], s["status"]) for s in crashed["seats"]] == [(1, "ok"), (2, "crash")]
    # A candidate's test seats two versions of the bot: both seats are its own, the
    # replay is in the zip once.
    tested = listed[owned["tested"].id]
    mine = [s["seat"] for s in tested["seats"] if s["bot"] == "b"]
    assert tested["my_seats"] == mine and len(mine) == 2
    assert {tested["seats"][i]["version"] for i in mine} == {1, 2}
    index = json.loads(archive.read("index.json"))["matches"]
    assert [(r["match"], r["seat"]) for r in index][-2:] == [
        (owned["won"].id, 0),
        (owned["crashed"].id, 1),
    ]


def test_the_manifest_matches_its_schema_and_marks_a_missing_replay(client, session, owned):
    """The manifest is a ReplayManifest; a replay gone from the store is listed as missing."""
    doc = client.get("/api/v1/openapi.json").get_json()
    schema = {"$ref": "#/components/schemas/ReplayManifest", **doc}
    won = session.get(Match, owned["won"].id)
    won.replay_key = "replays/gone.json.gz"
    session.commit()
    answer = client.get(f"/api/v1/bots/{owned['old'].bot_id}/replays?version=1")
    archive = zipfile.ZipFile(io.BytesIO(answer.get_data()))
    manifest = json.loads(archive.read("manifest.json"))
    Draft202012Validator(schema).validate(manifest)
    gone = next(m for m in manifest["matches"] if m["match_id"] == won.id)
    assert (gone["missing"], gone["file"], gone["my_seats"]) == (True, None, [0])
    assert f"match-{won.id}.json.gz" not in archive.namelist()


def test_the_reference_page_shows_the_owners_schemas(client):
    """The answers name their schema, and each schema lists its fields."""
    page = client.get("/docs/api").get_data(as_text=True)
    me = page.split('id="getMe"')[1].split("</section>")[0]
    assert '<a href="#schema-Me"><code>Me</code></a>' in me
    seat = page.split('id="schema-Seat"')[1].split("</details>")[0]
    assert "<code>stderr</code></td>" in seat and "Present only for the caller" in seat
    assert "<code>seat</code> (required)" in seat
    manifest = page.split('id="schema-ManifestMatch"')[1].split("</details>")[0]
    assert "<code>my_seats</code> (required)" in manifest
    zipped = page.split('id="getBotReplays"')[1].split("</section>")[0]
    assert "manifest.json" in zipped and "ReplayManifest" in zipped
    status = page.split('id="schema-SeatStatus"')[1].split("</details>")[0]
    assert "<code>crash</code>" in status
