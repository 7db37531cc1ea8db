"""JSON bodies of the API: a missing field and a field the call does not take are named,
on every call the OpenAPI document gives a JSON body, with the names the document has."""

from __future__ import annotations

import pytest

import engine
from ladder.extensions import app_settings
from ladder.services import accounts
from ladder.web.api.bodies import fields
from ladder.web.api.openapi import document


@pytest.fixture
def token(session, alice):
    _t, plain = accounts.create_token(session, alice, "tests")
    session.commit()
    return {"Authorization": f"Bearer {plain}"}


def _json_calls(app) -> list[tuple[str, str]]:
    """(path, schema name) of every documented call that takes a JSON body."""
    with app.app_context():
        doc = document(engine.game_names(), app_settings())
    calls = []
    for path, methods in doc["paths"].items():
        for operation in methods.values():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                schema = content["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
                calls.append((path, schema))
    return calls


def test_every_json_call_is_checked_against_its_schema(app, client, token):
    calls = _json_calls(app)
    assert {schema for _path, schema in calls} >= {"ChallengeRequest", "TableRequest"}
    for path, schema in calls:
        url = "/api/v1" + path.replace("{table_id}", "1")
        required, _optional = fields(schema)
        answer = client.post(url, json={"nonsense": 1}, headers=token)
        assert answer.status_code == 400, url
        error = answer.get_json()
        assert "nonsense is not a field of this call" in error["error"], url
        assert error["error"].startswith(f"{', '.join(required)} ") and "missing" in error["error"]
        assert error["field"] == required[0], url


def test_a_bot_id_for_a_version_id_is_named_both_ways(client, token):
    answer = client.post("/api/v1/challenges", json={"bot_id": 3, "opponents": [4]}, headers=token)
    assert answer.status_code == 400
    error = answer.get_json()
    assert error["field"] == "version_id"
    assert error["error"].startswith("version_id is missing; bot_id is not a field of this call")
    assert "version_id, opponents, optionally seed" in error["error"]


def test_several_missing_and_unknown_fields_are_all_named(client, token):
    answer = client.post("/api/v1/tables", json={"gmae": "x", "size": 2}, headers=token)
    error = answer.get_json()["error"]
    assert "game, players, opponents are missing" in error
    assert "gmae, size are not fields" in error


def test_a_body_that_is_no_object_is_told_the_fields(client, token):
    answer = client.post("/api/v1/tables/1/move", json=[1], headers=token)
    assert answer.status_code == 400
    assert answer.get_json()["error"] == "send a JSON object with the fields action"


def test_the_fields_are_the_documents():
    assert fields("ChallengeRequest") == (("version_id", "opponents"), ("seed",))
    assert fields("TableRequest") == (("game", "players", "opponents"), ("seat",))
    assert fields("JoinRequest") == (("token",), ())
