"""Replay viewer routes: the match page's viewer, frames of stored matches, and
files a user opens, all rebuilt by the engine."""

from __future__ import annotations

import gzip
import io
import json
import re

import pytest
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

import engine
from ladder import artifacts
from ladder.queries import replays
from ladder.services import matches
from tests.unit.ladder.conftest import login, make_active_bot
from tests.unit.ladder.helpers import played, stored_match


@pytest.fixture
def manila_match(session, config, alice, bob):
    return stored_match(session, config, [alice, bob, alice])


def test_match_page_carries_the_viewer_and_owner_only_stderr(client, manila_match):
    match, record = manila_match
    page = client.get(f"/matches/{match.id}").get_data(as_text=True)
    for needle in (
        'id="replay-viewer"',
        f'data-frames-url="/matches/{match.id}/replay/frames.json"',
        'id="seat-view"',
        'id="move-list"',
        'id="board"',
        'id="step-events"',
        'id="board-status"',
        'id="game-over"',
        'id="zoom-controls"',
        "/static/js/viewer.js",
        "/static/js/words.js",
        "/static/js/viewer-panels.js",
        "/static/js/zoom.js",
        "/static/js/labels.js",
        "/static/js/draw-manila.js",
        "/static/css/viewer.css",
    ):
        assert needle in page
    assert "<script>" not in page  # no inline script: the CSP allows files only
    # Scores as the games count them: whole numbers, not 45.0.
    for score in record["result"]["scores"]:
        assert f'<td class="n">{score}</td>' in page
    assert ".0</td>" not in page
    assert "stderr of seat" not in page
    login(client, "bob")
    own = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert "stderr of seat 1" in own and "stderr of seat 0" not in own


def test_summary_and_frames_of_a_stored_match(client, manila_match):
    match, record = manila_match
    summary = client.get(f"/matches/{match.id}/replay/summary.json").get_json()
    assert summary["game"] == "manila" and summary["steps"] == len(record["actions"])
    assert summary["perspectives"] == ["spectator", "0", "1", "2"]
    assert [[m["seat"], m["action"]] for m in summary["moves"]] == record["actions"]
    assert "stderr" not in json.dumps(summary)

    state = engine.get_game("manila").new_game(3, seed=record["seed"])
    for _seat, action in record["actions"][:5]:
        state.apply(action)
    spectator = client.get(f"/matches/{match.id}/replay/frames.json?start=5&count=3").get_json()
    assert spectator["view"] == "spectator" and spectator["start"] == 5
    assert [f["step"] for f in spectator["frames"]] == [5, 6, 7]
    assert spectator["frames"][0]["state"] == json.loads(json.dumps(state.spectate()))
    seat2 = client.get(f"/matches/{match.id}/replay/frames.json?view=2&start=5&count=1").get_json()
    assert seat2["frames"][0]["state"] == json.loads(json.dumps(state.view(2)))
    assert seat2["frames"][0]["state"] != spectator["frames"][0]["state"]


def test_a_long_game_comes_in_bounded_chunks(client, session, config, alice, bob):
    match, record = stored_match(session, config, [alice, bob], game="caravelas", seed=3)
    steps = len(record["actions"])
    assert steps > replays.MAX_CHUNK  # the point of chunking
    url = f"/matches/{match.id}/replay/frames.json"
    response = client.get(f"{url}?count={replays.MAX_CHUNK}")
    assert len(response.get_json()["frames"]) == replays.MAX_CHUNK
    assert len(response.data) < 2_000_000
    tail = client.get(f"{url}?start={steps - 1}&count=50").get_json()["frames"]
    assert [f["step"] for f in tail] == [steps - 1, steps]
    too_many = client.get(f"{url}?count={replays.MAX_CHUNK + 1}")
    assert too_many.status_code == 400 and "count must" in too_many.get_json()["error"]
    summary = client.get(f"/matches/{match.id}/replay/summary.json").get_json()
    assert "lisboa" in summary["board"]["where"]
    page = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert "/static/js/draw-caravelas.js" in page


@pytest.mark.parametrize(
    ("query", "message"),
    [("view=7", "view must be"), ("view=x", "view must be"), ("start=-2", "start from 0")],
)
def test_bad_frame_requests_get_a_json_400(client, manila_match, query, message):
    match, _ = manila_match
    response = client.get(f"/matches/{match.id}/replay/frames.json?{query}")
    assert response.status_code == 400 and message in response.get_json()["error"]


def test_missing_matches_and_replays_are_json_404s(client, session, config, alice, bob):
    for url in ("/matches/999/replay/summary.json", "/matches/999/replay/frames.json"):
        response = client.get(url)
        assert response.status_code == 404 and response.get_json()["error"]
    a, b = make_active_bot(session, config, alice), make_active_bot(session, config, bob)
    queued = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True)
    session.commit()
    assert client.get(f"/matches/{queued.id}/replay/summary.json").status_code == 404
    assert 'id="replay-viewer"' not in client.get(f"/matches/{queued.id}").get_data(as_text=True)


def test_a_stored_replay_whose_game_differs_from_the_match_is_refused(
    client, session, config, alice, bob
):
    match, _ = stored_match(session, config, [alice, bob, alice])
    record = played("meuterer", 3)
    artifacts.store(config, session).put(
        match.replay_key, gzip.compress(json.dumps(record).encode())
    )
    session.commit()
    response = client.get(f"/matches/{match.id}/replay/summary.json")
    assert response.status_code == 400 and "not 'manila'" in response.get_json()["error"]


# -- opening a file ----------------------------------------------------------------
def csrf_token(client, url: str) -> str:
    """The CSRF token the viewer's scripts send, from the page's data-csrf."""
    found = re.search(r'data-csrf="([^"]+)"', client.get(url).get_data(as_text=True))
    assert found, f"no data-csrf on {url}"
    return found.group(1)


def post_file(client, url, data: bytes, token: str | None, **fields):
    form = {"file": FileStorage(io.BytesIO(data), filename="replay.json"), **fields}
    if token is not None:
        form["csrf_token"] = token
    # Encoded here, in memory: the test client's own encoder leaks a temp file for large bodies.
    boundary, body = encode_multipart(form)
    return client.post(url, data=body, content_type=f"multipart/form-data; boundary={boundary}")


def test_open_page_has_the_drop_zone_and_viewer(client):
    page = client.get("/replays/open").get_data(as_text=True)
    for needle in ('id="drop-zone"', 'id="replay-file"', 'id="replay-viewer"', "open-replay.js"):
        assert needle in page
    assert "script-src 'self'" in client.get("/replays/open").headers["Content-Security-Policy"]


@pytest.mark.parametrize("packing", ["plain", "gzip"])
def test_an_opened_file_gives_the_same_frames_as_the_engine(client, packing):
    record = played("meuterer", 4)
    data = json.dumps(record, indent=1).encode()
    if packing == "gzip":
        data = gzip.compress(data)
    token = csrf_token(client, "/replays/open")
    summary = post_file(client, "/replays/open/summary.json", data, token).get_json()
    assert summary["game"] == "meuterer" and summary["steps"] == len(record["actions"])
    frames = post_file(
        client, "/replays/open/frames.json", data, token, view="spectator", start="0", count="2"
    ).get_json()["frames"]
    state = engine.get_game("meuterer").new_game(4, seed=record["seed"])
    assert frames[0]["state"] == json.loads(json.dumps(state.spectate()))
    state.apply(record["actions"][0][1])
    assert frames[1]["state"] == json.loads(json.dumps(state.spectate()))


def test_opening_needs_the_csrf_token(client):
    data = json.dumps(played("manila", 3)).encode()
    response = post_file(client, "/replays/open/summary.json", data, None)
    assert response.status_code == 400 and "expired" in response.get_json()["error"]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"this is not json", "not JSON"),
        (json.dumps({"game": "chess", "seed": 1, "players": 2, "actions": []}).encode(), "unknown"),
        (b"\x1f\x8b" + b"\x00" * 40, "does not unzip"),
        (b"{" + b" " * replays.MAX_FILE_BYTES + b"}", "at most"),
    ],
    ids=["garbage", "wrong-game", "bad-gzip", "too-big"],
)
def test_bad_files_get_a_clear_400(client, data, message):
    token = csrf_token(client, "/replays/open")
    response = post_file(client, "/replays/open/summary.json", data, token)
    assert response.status_code == 400 and message in response.get_json()["error"]


def test_a_tampered_file_is_refused(client):
    record = played("manila", 3)
    record["actions"][3][1] = {"type": "bid", "amount": 999}
    token = csrf_token(client, "/replays/open")
    response = post_file(client, "/replays/open/summary.json", json.dumps(record).encode(), token)
    assert response.status_code == 400 and "move 3" in response.get_json()["error"]


def test_a_file_larger_than_any_upload_is_a_json_413(client, app):
    token = csrf_token(client, "/replays/open")
    data = b" " * (app.config["MAX_CONTENT_LENGTH"] + 1)
    response = post_file(client, "/replays/open/frames.json", data, token)
    assert response.status_code == 413 and response.get_json()["error"]


def test_no_file_is_a_400(client):
    token = csrf_token(client, "/replays/open")
    response = client.post("/replays/open/summary.json", data={"csrf_token": token})
    assert response.status_code == 400 and "choose a replay file" in response.get_json()["error"]
