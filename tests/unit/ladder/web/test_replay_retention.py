"""A match whose replay expired: its page says so, every way of reading the replay
answers 410 Gone with the reason, and `ladder replay --server` repeats it."""

from __future__ import annotations

import threading

import pytest
from click.testing import CliRunner
from werkzeug.serving import make_server

from ladder.cli import main
from ladder.services import retention
from tests.unit.ladder.helpers import aged_matches

EXPIRED = "expired on"
KEPT_FOR = "replays of ladder matches are kept 30 days"


@pytest.fixture
def pruned(session, config, alice, bob):
    ids = aged_matches(session, config, alice, bob)
    assert retention.prune_replays(session, config).matches == 2
    return ids


def test_the_match_page_says_the_replay_expired(client, pruned):
    page = client.get(f"/matches/{pruned['ladder']}").get_data(as_text=True)
    assert 'id="replay-expired"' in page and EXPIRED in page and KEPT_FOR in page
    assert "replay.json.gz" not in page and "viewer" not in page.lower()
    kept = client.get(f"/matches/{pruned['challenge']}").get_data(as_text=True)
    assert "replay.json.gz" in kept and EXPIRED not in kept


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/matches/{id}/replay",
        "/matches/{id}/replay/summary.json",
        "/matches/{id}/replay/frames.json",
    ],
)
def test_json_readers_get_a_410_with_the_reason(client, pruned, url):
    response = client.get(url.format(id=pruned["ladder"]))
    assert response.status_code == 410
    assert EXPIRED in response.json["error"] and KEPT_FOR in response.json["error"]


def test_the_download_is_a_410_page(client, pruned):
    response = client.get(f"/matches/{pruned['ladder']}/replay.json.gz")
    assert response.status_code == 410
    assert EXPIRED in response.get_data(as_text=True)
    assert client.get(f"/matches/{pruned['recent']}/replay.json.gz").status_code == 200


def test_the_match_json_has_no_replay_and_the_rows_remain(client, pruned):
    found = client.get(f"/api/v1/matches/{pruned['ladder']}").json
    assert found["has_replay"] is False and found["state"] == "finished"
    assert [s["rank"] for s in found["seats"]] == [1, 2]
    assert all(s["mu_after"] is not None for s in found["seats"])


def test_ladder_replay_from_the_server_says_it_expired(app, pruned):
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        result = CliRunner().invoke(
            main,
            ["replay", str(pruned["ladder"]), "toyrace/random", "--seat", "0", "--server", url],
        )
    finally:
        server.shutdown()
        thread.join()
    assert result.exit_code == 1
    assert "answered 410 gone" in result.output.lower()
    assert EXPIRED in result.output and KEPT_FOR in result.output
