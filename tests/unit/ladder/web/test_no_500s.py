"""Bad input is a 400 (JSON where the caller reads JSON), never a 500.

Numbers are ASCII digits only: '²' and '٣' pass `str.isdigit()`, and `int()` then
refuses the one and reads the other as 3.
"""

from __future__ import annotations

import gzip
import io
import json

import pytest
from sqlalchemy import func, select

from ladder import artifacts
from ladder.extensions import app_settings
from ladder.models import Match
from ladder.services import storage
from tests.unit.ladder.conftest import csrf_token, login, make_active_bot
from tests.unit.ladder.helpers import stored_match

NOT_ASCII = ["²", "٣", "1²", " 1", "1 ", "+1", "-1", "0x1", "1_0", "1.0", "9" * 30]


@pytest.fixture
def world(client, session, config, alice, bob):
    """A logged-in alice, a bot each, and a finished match with a replay."""
    mine = make_active_bot(session, config, alice, name="mine")
    theirs = make_active_bot(session, config, bob, name="theirs")
    match, _record = stored_match(session, config, [alice, bob, alice])
    login(client)
    return {"mine": mine, "theirs": theirs, "match": match}


@pytest.mark.parametrize(
    ("url", "json_body"),
    [
        ("/leaderboard/toyrace?page={}", False),
        ("/matches?page={}", False),
        ("/matches?bot={}", False),
        ("/bots/upload?bot={}", None),  # the form's prefill: ignored, the page shows
        ("/api/v1/matches?page={}", True),
        ("/api/v1/matches?per_page={}", True),
        ("/api/v1/matches?bot={}", True),
        ("/api/v1/games/toyrace/leaderboard?per_page={}", True),
        ("/matches/{match}/replay/frames.json?view={}", True),
        ("/matches/{match}/replay/frames.json?start={}", True),
        ("/matches/{match}/replay/frames.json?count={}", True),
    ],
)
def test_numeric_arguments_take_ascii_digits_only(client, world, url, json_body):
    url = url.replace("{match}", str(world["match"].id))
    for raw in NOT_ASCII:
        response = client.get(url.format(raw))
        if json_body is None:
            assert response.status_code == 200, raw
            continue
        assert response.status_code == 400, (raw, response.get_data(as_text=True)[:300])
        if json_body:
            assert "error" in response.get_json()


def test_a_challenge_takes_ascii_digits_only(client, session, world):
    mine, theirs = str(world["mine"].id), str(world["theirs"].id)
    token = csrf_token(client, f"/bots/{world['mine'].bot_id}")
    for raw in ["²", "٣", " 1", "1²"]:
        form = {"version_id": raw, "opponents": theirs, "csrf_token": token}
        assert client.post("/challenges", data=form).status_code == 400
    for field, raw in [("seed", "²"), ("seed", "٣"), ("seed", "1²"), ("opponents", "٣")]:
        form = {"version_id": mine, "opponents": theirs, field: raw, "csrf_token": token}
        response = client.post("/challenges", data=form, follow_redirects=True)
        assert response.status_code == 200
        assert "Challenge not started" in response.get_data(as_text=True), (field, raw)
    assert session.scalar(select(func.count(Match.id))) == 1  # only the played one


def test_an_opened_replay_file_view_takes_ascii_digits_only(client, session, world):
    config = app_settings(client.application)
    store = artifacts.store(config, session)
    record = storage.load_replay(store, world["match"].replay_key)
    data = gzip.compress(json.dumps(record).encode())
    token = csrf_token(client, "/replays/open")
    for raw in ["²", "٣"]:
        response = client.post(
            "/replays/open/frames.json",
            data={"file": (io.BytesIO(data), "r.json.gz"), "view": raw, "csrf_token": token},
        )
        assert response.status_code == 400
        assert "view must be" in response.get_json()["error"]
