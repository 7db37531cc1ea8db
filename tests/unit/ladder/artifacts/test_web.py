"""The site reads replays and bot files through the store: served byte for byte from
either backend, and a missing artifact is a clear 404, never a 500."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from ladder import artifacts
from ladder.models import Blob
from tests.unit.ladder.conftest import BOT_SOURCE, login, override_settings
from tests.unit.ladder.helpers import stored_match

REPLAY_URLS = (
    "/matches/{id}/replay.json.gz",
    "/api/v1/matches/{id}/replay",
    "/matches/{id}/replay/summary.json",
    "/matches/{id}/replay/frames.json",
)


@pytest.mark.parametrize("store_kind", ["database", "directory"])
def test_replays_and_bot_files_are_served_from_either_store(
    client, session, config, alice, bob, store_kind
):
    config["ARTIFACT_STORE"] = store_kind
    override_settings(client.application, ARTIFACT_STORE=store_kind)
    match, record = stored_match(session, config, [alice, bob, alice])
    stored = artifacts.store(config, session).get(match.replay_key)
    for url in REPLAY_URLS[:2]:
        response = client.get(url.format(id=match.id))
        assert response.status_code == 200 and response.data == stored  # unchanged bytes
        assert response.mimetype == "application/gzip"
    summary = client.get(f"/matches/{match.id}/replay/summary.json").get_json()
    assert summary["steps"] == len(record["actions"])
    version = match.seats[0].version
    login(client)
    download = client.get(f"/versions/{version.id}/download")
    assert download.status_code == 200 and download.data == BOT_SOURCE
    blobs = session.scalar(select(func.count()).select_from(Blob))
    assert (blobs > 0) == (store_kind == "database")  # the directory store leaves no rows


def test_a_missing_replay_is_a_404_everywhere(client, session, config, alice, bob):
    match, _ = stored_match(session, config, [alice, bob, alice])
    assert artifacts.store(config, session).delete(match.replay_key)
    session.commit()
    for url in REPLAY_URLS:
        response = client.get(url.format(id=match.id))
        assert response.status_code == 404, url
    api = client.get(f"/api/v1/matches/{match.id}/replay").get_json()
    assert "missing from the store" in api["error"]
    viewer = client.get(f"/matches/{match.id}/replay/summary.json").get_json()
    assert viewer["error"]  # the viewer shows a reason, as JSON
    assert client.get(f"/matches/{match.id}").status_code == 200  # the page itself stays


def test_a_missing_bot_file_is_a_404_for_its_owner(client, session, config, alice, bob):
    match, _ = stored_match(session, config, [alice, bob, alice])
    version = match.seats[0].version
    assert artifacts.store(config, session).delete(version.file_key)
    session.commit()
    login(client)
    assert client.get(f"/versions/{version.id}/download").status_code == 404
    assert client.get(f"/bots/{version.bot_id}").status_code == 200
