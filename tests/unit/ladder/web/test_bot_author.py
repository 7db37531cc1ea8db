"""What a bot author sees of faults: version tables, paused versions, stderr links, replays."""

from __future__ import annotations

import io
import zipfile

import pytest

from ladder.models import BotVersion
from ladder.services import accounts
from tests.unit.ladder.conftest import csrf_token, login, make_active_bot, make_user
from tests.unit.ladder.helpers import play


@pytest.fixture
def world(session, config, alice, bob):
    carol = make_user(session, "carol")
    versions = [
        make_active_bot(session, config, u, name=f"{u.username}-bot") for u in (alice, bob, carol)
    ]
    ids = [play(session, config, versions, ["crash", "ok", "ok"]) for _ in range(5)]
    return versions, ids


def test_the_bot_page_shows_counts_the_last_fault_and_the_pause(client, world):
    versions, ids = world
    page = client.get(f"/bots/{versions[0].bot_id}").get_data(as_text=True)
    assert "v1 is paused from matchmaking" in page
    assert "its last 5 ladder matches all faulted (5 crash)" in page
    assert "5 crash" in page and f'href="/matches/{ids[-1]}">#{ids[-1]}</a> crash' in page
    assert "Resume v1" not in page  # not the owner
    assert f"/api/v1/bots/{versions[0].bot_id}/replays" in page
    login(client)
    page = client.get(f"/bots/{versions[0].bot_id}").get_data(as_text=True)
    assert "Resume v1" in page
    assert f'href="/matches/{ids[-1]}#stderr-seat-0"' in page
    assert f"/api/v1/bots/{versions[0].bot_id}/replays" in page
    mine = client.get("/bots/mine").get_data(as_text=True)
    assert "5 crash" in mine and "paused" in mine


def test_the_owner_resumes_from_the_page(client, session, world):
    versions, _ = world
    login(client)
    token = csrf_token(client, f"/bots/{versions[0].bot_id}")
    done = client.post(f"/versions/{versions[0].id}/resume", data={"csrf_token": token})
    assert done.status_code == 302
    session.expire_all()
    assert session.get(BotVersion, versions[0].id).paused_at is None
    page = client.get(f"/bots/{versions[0].bot_id}").get_data(as_text=True)
    assert "is paused" not in page


def test_resume_needs_the_owner_and_a_csrf_token(app, session, world):
    versions, _ = world
    client = app.test_client()
    login(client, "bob")
    token = csrf_token(client, f"/bots/{versions[0].bot_id}")
    assert (
        client.post(f"/versions/{versions[0].id}/resume", data={"csrf_token": token}).status_code
        == 403
    )
    mine = app.test_client()
    login(mine)
    assert mine.post(f"/versions/{versions[0].id}/resume").status_code == 400  # no CSRF token
    session.expire_all()
    assert session.get(BotVersion, versions[0].id).paused_at is not None


def test_the_api_shows_the_pause_and_resumes_with_the_owners_token(
    client, session, world, alice, bob
):
    versions, _ = world
    body = client.get(f"/api/v1/versions/{versions[0].id}").get_json()
    assert body["paused"]["reason"].startswith("its last 5 ladder matches all faulted")
    url = f"/api/v1/versions/{versions[0].id}/resume"
    assert client.post(url).status_code == 401
    bobs = accounts.create_token(session, bob, "t")[1]
    session.commit()
    assert client.post(url, headers={"Authorization": f"Bearer {bobs}"}).status_code == 403
    alices = accounts.create_token(session, alice, "t")[1]
    session.commit()
    resumed = client.post(url, headers={"Authorization": f"Bearer {alices}"})
    assert resumed.status_code == 200 and resumed.get_json()["paused"] is None
    again = client.post(url, headers={"Authorization": f"Bearer {alices}"})
    assert again.status_code == 409


def test_a_faulted_status_links_to_the_owners_stderr_heading(client, world):
    _, ids = world
    page = client.get(f"/matches/{ids[0]}").get_data(as_text=True)
    assert "stderr-seat-0" not in page and "stderr of seat 0" not in page
    login(client)
    page = client.get(f"/matches/{ids[0]}").get_data(as_text=True)
    assert '<a href="#stderr-seat-0" title="your bot\'s stderr">crash</a>' in page
    assert 'id="stderr-seat-0">Stderr of your bot alice-bot v1 (seat 0, crash)</h2>' in page
    assert "stderr of seat 0" in page and "stderr of seat 1" not in page


def test_the_replays_zip_is_streamed_with_its_filters(client, world):
    versions, ids = world
    answer = client.get(f"/api/v1/bots/{versions[1].bot_id}/replays?limit=3")
    assert answer.status_code == 200 and answer.mimetype == "application/zip"
    assert answer.is_streamed
    assert "bob-bot" in answer.headers["Content-Disposition"]
    names = zipfile.ZipFile(io.BytesIO(answer.get_data())).namelist()
    assert names == [f"match-{i}.json.gz" for i in ids[:-4:-1]] + ["index.json", "manifest.json"]
    none = client.get(f"/api/v1/bots/{versions[1].bot_id}/replays?since=2999-01-01")
    assert zipfile.ZipFile(io.BytesIO(none.get_data())).namelist() == [
        "index.json",
        "manifest.json",
    ]
    for bad in ("since=yesterday", "limit=0", "limit=5000", "version=x"):
        assert client.get(f"/api/v1/bots/{versions[1].bot_id}/replays?{bad}").status_code == 400
    assert client.get("/api/v1/bots/999999/replays").status_code == 404
