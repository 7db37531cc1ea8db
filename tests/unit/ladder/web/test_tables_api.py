"""The live tables API: status codes of the fixed contract, token and session callers,
moves carried to the runner through the app's Redis client, spectators kept blind."""

from __future__ import annotations

import pytest

from ladder.broker import store
from ladder.extensions import BROKER
from ladder.services import accounts
from ladder.web.api import tables as table_views
from tests.unit.ladder.conftest import ListRedis, csrf_token, login


@pytest.fixture
def redis(app, monkeypatch):
    """The app's Redis client, a list-backed stand-in; moves wait no time for the runner."""
    fake = ListRedis()
    app.extensions[BROKER].client = fake
    monkeypatch.setattr(table_views, "MOVE_WAIT_S", 0.0)
    return fake


@pytest.fixture
def tokens(session, alice, bob):
    _t, a = accounts.create_token(session, alice, "tests")
    _t, b = accounts.create_token(session, bob, "tests")
    session.commit()
    return {"alice": {"Authorization": f"Bearer {a}"}, "bob": {"Authorization": f"Bearer {b}"}}


def create(client, headers, **body):
    return client.post("/api/v1/tables", json=body, headers=headers)


def test_create_read_and_move(client, redis, tokens, house):
    made = create(client, tokens["alice"], game="toyrace", players=2, seat=0, opponents=["random"])
    assert made.status_code == 201, made.get_json()
    created = made.get_json()
    assert created == {"id": created["id"], "seat": 0, "url": f"/tables/{created['id']}"}
    url = f"/api/v1/tables/{created['id']}"
    mine = client.get(url, headers=tokens["alice"]).get_json()
    assert (mine["state"], mine["seat"], mine["to_move"]) == ("playing", 0, 0)
    assert mine["legal"] == [{"add": 1}, {"add": 2}, {"add": 3}]
    assert mine["time_left_ms"] == 300_000 and mine["view"]["seat"] == 0
    watched = client.get(url).get_json()  # anyone, no token
    assert "legal" not in watched and watched["seat"] is None and watched["view"]["spectator"]

    refused = client.post(f"{url}/move", json={"action": {"add": 7}}, headers=tokens["alice"])
    assert refused.status_code == 400 and "not a legal action" in refused.get_json()["error"]
    assert (
        client.post(f"{url}/move", json={"action": {"add": 1}}, headers=tokens["bob"]).status_code
        == 403
    )
    assert redis.messages(store.moves_key(created["id"])) == []  # nothing changed

    moved = client.post(f"{url}/move", json={"action": {"add": 2}}, headers=tokens["alice"])
    assert moved.status_code == 200 and moved.get_json()["id"] == created["id"]
    assert redis.messages(store.moves_key(created["id"])) == [
        {"seat": 0, "step": 0, "action": {"add": 2}}
    ]
    assert client.post(f"{url}/resign", headers=tokens["bob"]).status_code == 403
    resigned = client.post(f"{url}/resign", headers=tokens["alice"])
    assert resigned.status_code == 200
    assert resigned.get_json()["seats"][0]["error"] == "resigned"
    assert (
        client.post(f"{url}/move", json={"action": {"add": 1}}, headers=tokens["alice"]).status_code
        == 409
    )


@pytest.mark.parametrize(
    ("body", "status", "words", "field"),
    [
        ({"game": "chess", "players": 2, "opponents": ["random"]}, 400, "unknown game", "game"),
        ({"game": 3, "players": 2, "opponents": ["random"]}, 400, "game must be", "game"),
        ({"game": "toyrace", "players": 7, "opponents": ["random"]}, 400, "players", "players"),
        (
            {"game": "toyrace", "players": 2, "seat": 4, "opponents": ["random"]},
            400,
            "seat",
            "seat",
        ),
        (
            {"game": "toyrace", "players": 2, "opponents": [12345]},
            404,
            "no bot version",
            "opponents[0]",
        ),
    ],
)
def test_create_refusals(client, redis, tokens, house, body, status, words, field):
    """The answer says why, and which field of the request it is about."""
    answer = create(client, tokens["alice"], **body)
    assert answer.status_code == status and words in answer.get_json()["error"]
    assert answer.get_json()["field"] == field


def test_writes_need_a_caller_and_the_limit_answers_429(client, app, redis, tokens, house):
    assert create(client, {}, game="toyrace", players=2, opponents=["random"]).status_code == 401
    assert client.get("/api/v1/tables/999").status_code == 404
    app.extensions["ladder.settings"] = app.extensions["ladder.settings"].with_overrides(
        {"TABLE_OPEN_PER_USER": 1}
    )
    assert (
        create(client, tokens["alice"], game="toyrace", players=2, opponents=["random"]).status_code
        == 201
    )
    over = create(client, tokens["alice"], game="toyrace", players=2, opponents=["random"])
    assert over.status_code == 429 and over.headers["Retry-After"] == "60"


def test_join_by_invitation(client, redis, tokens, house):
    made = create(client, tokens["alice"], game="toyrace", players=2, seat=0, opponents=[None])
    created = made.get_json()
    (invitation,) = created["invitations"]
    url = f"/api/v1/tables/{created['id']}"
    assert invitation["url"] == f"/tables/{created['id']}/join/{invitation['token']}"
    assert client.get(url).get_json()["state"] == "waiting"
    wrong = client.post(f"{url}/join", json={"token": "nope"}, headers=tokens["bob"])
    assert wrong.status_code == 403
    joined = client.post(f"{url}/join", json={"token": invitation["token"]}, headers=tokens["bob"])
    assert joined.status_code == 200
    assert (joined.get_json()["state"], joined.get_json()["seat"]) == ("playing", 1)
    # Bob is not to move: alice (seat 0) is.
    early = client.post(f"{url}/move", json={"action": {"add": 1}}, headers=tokens["bob"])
    assert early.status_code == 409


def test_a_session_write_needs_its_csrf_token(app, client, redis, alice, house):
    app.config["WTF_CSRF_ENABLED"] = True
    login(client)
    body = {"game": "toyrace", "players": 2, "opponents": ["random"]}
    assert client.post("/api/v1/tables", json=body).status_code == 400  # no CSRF token
    token = csrf_token(client, "/bots/upload")
    made = client.post("/api/v1/tables", json=body, headers={"X-CSRFToken": token})
    assert made.status_code == 201
    table = client.get(f"/api/v1/tables/{made.get_json()['id']}").get_json()
    assert table["seat"] == made.get_json()["seat"] and "legal" in table
