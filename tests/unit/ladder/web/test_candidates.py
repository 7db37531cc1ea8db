"""Candidate versions on the site: the upload form's boxes and the API's fields, the
test page and `GET /api/v1/versions/<id>/test` (checked against the OpenAPI document),
promotion by hand and who may do it."""

from __future__ import annotations

import io
import re

import pytest
import schemathesis
from sqlalchemy import select

from ladder.models import Match, VersionState, VersionTest, VersionTestState
from ladder.services import accounts, bots, matches, version_tests
from tests.unit.ladder.conftest import (
    BOT_SOURCE,
    csrf_token,
    login,
    make_active_bot,
    make_user,
    override_settings,
)
from tests.unit.ladder.helpers import outcome_for


@pytest.fixture
def site(session, config, alice, bob):
    """alice's bot with an active version, the toy game's house bots, API tokens."""
    demo = make_user(session, "demo")
    for name in ("greedy", "search"):
        make_active_bot(session, config, demo, name=name)
    old = make_active_bot(session, config, alice, name="b")
    _t, alice_token = accounts.create_token(session, alice, "tests")
    _t, bob_token = accounts.create_token(session, bob, "tests")
    session.commit()
    return {
        "old": old,
        "alice": {"Authorization": f"Bearer {alice_token}"},
        "bob": {"Authorization": f"Bearer {bob_token}"},
    }


def api_upload(client, headers, **fields):
    data = {"game": "toyrace", "name": "b", "file": (io.BytesIO(BOT_SOURCE), "bot.py")}
    data.update(fields)
    return client.post("/api/v1/versions", data=data, headers=headers)


def validated(session, version_id):
    version = bots.finish_validation(session, version_id, True, "passed")
    session.commit()
    return version


def test_api_upload_of_a_candidate_and_its_test(client, app, session, config, site):
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    response = api_upload(client, site["alice"], candidate="true", promote="false")
    assert response.status_code == 201, response.get_json()
    version_id = response.get_json()["id"]
    test = client.get(f"/api/v1/versions/{version_id}/test")
    assert test.status_code == 200
    schema["/versions/{version_id}/test"]["GET"].validate_response(test)
    body = test.get_json()
    assert (body["state"], body["promote"], body["verdict"]) == ("waiting", False, None)

    validated(session, version_id)
    test_id = session.scalar(select(VersionTest.id).where(VersionTest.version_id == version_id))
    version_tests.advance(session, config, test_id)
    match = session.scalars(select(Match).where(Match.queue == "tests")).first()
    seats = {s.version_id: s.seat for s in match.seats}
    ranks = list(range(1, match.players + 1))  # seat 0 first
    matches.record_match(session, config, match.id, outcome_for(match, ranks))
    session.commit()
    body = client.get(f"/api/v1/versions/{version_id}/test").get_json()
    assert body["state"] == "running" and body["baseline_id"] == site["old"].id
    assert body["table_size"] == 4 and len(body["opponents"]) == 2
    assert version_id in seats and site["old"].id in seats
    schema["/versions/{version_id}/test"]["GET"].validate_response(
        client.get(f"/api/v1/versions/{version_id}/test")
    )
    version = client.get(f"/api/v1/versions/{version_id}").get_json()
    assert version["state"] == "candidate" and version["rating"] is None


@pytest.mark.parametrize(
    ("fields", "message"),
    [({"candidate": "maybe"}, "candidate is true or false"), ({"promote": "2"}, "promote is")],
)
def test_api_refuses_a_yes_no_field_that_is_neither(client, session, site, fields, message):
    response = api_upload(client, site["alice"], **fields)
    assert response.status_code == 400 and message in response.get_json()["error"]
    assert session.scalar(select(VersionTest.id)) is None


def test_a_version_without_a_test_is_a_clear_404(client, site):
    response = client.get(f"/api/v1/versions/{site['old'].id}/test")
    assert response.status_code == 404 and "not a candidate" in response.get_json()["error"]
    assert client.get(f"/versions/{site['old'].id}/test").status_code == 404


def test_promote_by_api_is_the_owners_alone(client, session, site):
    version_id = api_upload(client, site["alice"], candidate="true").get_json()["id"]
    validated(session, version_id)
    refused = client.post(f"/api/v1/versions/{version_id}/promote", headers=site["bob"])
    assert refused.status_code == 403
    done = client.post(f"/api/v1/versions/{version_id}/promote", headers=site["alice"])
    assert done.status_code == 200 and done.get_json()["state"] == "active"
    again = client.post(f"/api/v1/versions/{version_id}/promote", headers=site["alice"])
    assert again.status_code == 409 and "not a candidate" in again.get_json()["error"]
    session.expire_all()
    test = session.scalar(select(VersionTest).where(VersionTest.version_id == version_id))
    assert test.state == VersionTestState.CANCELLED and "by hand" in test.note


def test_upload_form_makes_a_candidate_and_its_page_shows_the_test(client, session, site):
    login(client)
    token = csrf_token(client, "/bots/upload")
    response = client.post(
        "/bots/upload",
        data={
            "csrf_token": token,
            "game": "toyrace",
            "name": "b",
            "file": (io.BytesIO(BOT_SOURCE), "bot.py"),
            "candidate": "y",
        },
    )
    assert response.status_code == 302
    test = session.scalar(select(VersionTest))
    assert test is not None and test.promote is False  # an unticked box is a no
    validated(session, test.version_id)
    page = client.get(f"/versions/{test.version_id}/test").get_data(as_text=True)
    assert "Is b v2 better than b v1?" in page
    assert "Under way" in page and 'id="llr-chart"' in page and "<polyline" in page
    assert "Make b v2 the active version" in page  # the owner's button
    bot_page = client.get(f"/bots/{site['old'].bot_id}").get_data(as_text=True)
    assert "Tests of new versions" in bot_page
    assert f'href="/versions/{test.version_id}/test">candidate</a>' in bot_page

    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    done = client.post(f"/versions/{test.version_id}/promote", data={"csrf_token": token})
    assert done.status_code == 302
    session.expire_all()
    assert session.get(type(site["old"]), test.version_id).state == VersionState.ACTIVE


def test_anyone_may_watch_a_test_but_not_promote(client, app, session, config, site):
    override_settings(app, PAGE_CACHE_S=0)
    version = bots.upload_version(
        session,
        config,
        site["old"].bot.owner,
        "toyrace",
        "b",
        "bot.py",
        BOT_SOURCE,
        candidate=True,
    )
    validated(session, version.id)
    page = client.get(f"/versions/{version.id}/test").get_data(as_text=True)
    assert "Under way" in page and "active version</button>" not in page
    login(client, "bob")
    token = csrf_token(client, "/bots/upload")
    refused = client.post(f"/versions/{version.id}/promote", data={"csrf_token": token})
    assert refused.status_code == 403
