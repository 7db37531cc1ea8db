"""The collusion check's staff page (staff only, a planted pair listed with its matches)
and `ladder staff collusion GAME`."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from ladder.cli import main
from ladder.services.accounts import set_staff
from tests.unit.ladder import collusion_ladder
from tests.unit.ladder.conftest import login, make_user

URL = "/staff/collusion?game=toyrace"


@pytest.fixture
def planted(session, config):
    return collusion_ladder.build(session, config)


def test_visitors_log_in_first_and_ordinary_users_are_refused(client, session, planted):
    response = client.get(URL)
    assert response.status_code == 302 and response.headers["Location"].startswith("/login")
    login(client)  # alice: not staff
    response = client.get(URL)
    assert response.status_code == 403
    assert "alice" not in response.get_data(as_text=True).split("</header>")[-1]


def test_staff_see_the_planted_pair_with_its_matches(client, session, planted):
    make_user(session, "sam")
    set_staff(session, "sam", True)
    session.commit()
    login(client, "sam")
    status = client.get("/staff").get_data(as_text=True)
    assert 'href="/staff/collusion" id="collusion-link"' in status
    response = client.get(URL)
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    sections = re.findall(r'<section class="collusion-pair".*?</section>', page, re.S)
    assert len(sections) == 1
    assert "<h3>alice → bob</h3>" in sections[0]
    linked = [int(i) for i in re.findall(r'href="/matches/(\d+)"', sections[0])]
    assert linked == planted["planted"]
    assert "z = 5.69" in sections[0]
    assert "24 rated matches · 10 pairs examined" in page
    # Without a game the first one is shown; an unknown game is a 404.
    assert client.get("/staff/collusion").status_code == 200
    assert client.get("/staff/collusion?game=chess").status_code == 404


def test_no_flag_says_so(client, session):
    make_user(session, "sam")
    set_staff(session, "sam", True)
    session.commit()
    login(client, "sam")
    page = client.get(URL).get_data(as_text=True)
    assert 'id="no-flags"' in page and "0 rated matches" in page


@pytest.fixture
def cli_env(config, monkeypatch):
    for key in ("DATABASE_URL", "SECRET_KEY", "LADDER_VAR", "UPLOAD_DIR", "REPLAY_DIR"):
        monkeypatch.setenv(key, str(config.get(key, "")) or "x")
    monkeypatch.delenv("REDIS_URL", raising=False)


def test_the_command_lists_the_flagged_pair_and_its_matches(cli_env, planted):
    result = CliRunner().invoke(main, ["staff", "collusion", "toyrace"])
    assert result.exit_code == 0, result.output
    assert "24 rated matches, 10 pairs examined" in result.output
    assert "1 flagged at alpha 0.05" in result.output
    assert "alice -> bob (owners): 12 shared matches, z +5.69" in result.output
    for match_id in planted["planted"]:
        assert f"match {match_id}: alice/b v1 rank 4, bob/b v1 rank 1 of 4" in result.output
    data = json.loads(CliRunner().invoke(main, ["staff", "collusion", "toyrace", "--json"]).output)
    flagged = [p for p in data["pairs"] if p["flagged"]]
    assert [(p["helper"], p["beneficiary"]) for p in flagged] == [("alice", "bob")]
    assert [s["match"] for s in flagged[0]["shared"]] == planted["planted"]
    strict = CliRunner().invoke(main, ["staff", "collusion", "toyrace", "--alpha", "1e-9"])
    assert "0 flagged at alpha 1e-09" in strict.output


def test_the_command_refuses_an_unknown_game(cli_env):
    result = CliRunner().invoke(main, ["staff", "collusion", "chess"])
    assert result.exit_code == 2 and "unknown game 'chess'" in result.output
