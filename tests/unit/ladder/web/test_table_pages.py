"""The live table pages: the play form and its refusals, the table from a seat and from
the rail, invitations, the list of live tables, the bot owner's switch and the people's
leaderboard. The moves themselves go through the API (test_tables_api.py)."""

from __future__ import annotations

import json
import re

import pytest

from ladder.extensions import BROKER
from ladder.models import Bot, HumanRating, LiveTable
from ladder.services import tables
from ladder.web.api import tables as table_views
from tests.unit.ladder.conftest import ListRedis, csrf_token, login, make_active_bot


@pytest.fixture
def redis(app, monkeypatch):
    fake = ListRedis()
    app.extensions[BROKER].client = fake
    monkeypatch.setattr(table_views, "MOVE_WAIT_S", 0.0)
    return fake


def play(client, game="toyrace", **fields):
    data = {"players": "2", "seat": "0", "opponents-0": "house:random"}
    data.update(fields)
    data["csrf_token"] = csrf_token(client, f"/play/{game}")
    return client.post(f"/play/{game}", data=data)


def error_under(page: str, field_id: str) -> str:
    """The error shown right under the field `field_id`."""
    found = re.search(rf'id="{field_id}".*?</label>\s*<div class="error">([^<]+)</div>', page, re.S)
    assert found, f"no error under {field_id}"
    return found.group(1)


def test_the_form_needs_a_login(client, house):
    answer = client.get("/play/toyrace")
    assert answer.status_code == 302 and "/login" in answer.headers["Location"]
    assert "/login" in client.post("/play/toyrace", data={}).headers.get("Location", "/login")
    assert "Log in</a> to sit down" in client.get("/games/toyrace").get_data(as_text=True)


def test_the_form_offers_house_bots_and_allowed_bots(session, config, client, alice, bob, house):
    theirs = make_active_bot(session, config, bob, name="shy")
    open_bot = make_active_bot(session, config, bob, name="friendly")
    open_bot.bot.human_play = True
    mine = make_active_bot(session, config, alice, name="mine")
    session.commit()
    login(client)
    page = client.get("/play/toyrace").get_data(as_text=True)
    assert 'value="house:random"' in page and 'value="house:greedy"' in page
    assert f'value="v:{open_bot.id}"' in page and f'value="v:{mine.id}"' in page
    assert f'value="v:{theirs.id}"' not in page
    assert "Open seat (invite a friend)" in page
    assert 'id="players"' in client.get("/games/toyrace").get_data(as_text=True)


def test_a_table_made_from_the_form_is_the_services(session, client, redis, alice, house):
    login(client)
    answer = play(client)
    assert answer.status_code == 302
    table_id = int(answer.headers["Location"].rsplit("/", 1)[1])
    table = session.get(LiveTable, table_id)
    assert (table.state, table.players, table.created_by_id) == ("playing", 2, alice.id)
    assert [s.version_id for s in table.seats] == [None, house["random"].id]
    page = client.get(f"/tables/{table_id}").get_data(as_text=True)
    assert "You play seat 0." in page and 'id="action-list"' in page and "Resign" in page


def test_each_refusal_is_shown_under_its_field(session, config, client, redis, alice, bob, house):
    login(client)
    page = play(client, seat="3").get_data(as_text=True)
    assert "seats 0 to 1" in error_under(page, "seat")
    page = play(client, players="9").get_data(as_text=True)
    assert "Not a valid choice" in error_under(page, "players")
    for seat in ("toyrace", "-1", ""):  # not a seat at all: the field says so, no 500
        answer = play(client, seat=seat)
        assert answer.status_code == 400
        assert "Not a valid choice" in error_under(answer.get_data(as_text=True), "seat")

    theirs = make_active_bot(session, config, bob, name="shy")
    theirs.bot.human_play = True  # offered when the form is drawn...
    session.commit()
    token = csrf_token(client, "/play/toyrace")
    theirs.bot.human_play = False  # ...and refused by the service when it is sent
    session.commit()
    answer = client.post(
        "/play/toyrace",
        data={"players": "2", "seat": "0", "opponents-0": f"v:{theirs.id}", "csrf_token": token},
    )
    assert answer.status_code == 400  # not among the choices any more
    assert "Not a valid choice" in error_under(answer.get_data(as_text=True), "opponents-0")

    for _ in range(config["TABLE_OPEN_PER_USER"]):
        assert play(client).status_code == 302
    refused = play(client)
    assert refused.status_code == 429 and refused.headers["Retry-After"]
    assert "live tables not yet over" in refused.get_data(as_text=True)


def test_a_service_refusal_lands_under_the_opponent_it_names(
    session, config, client, redis, alice, bob, house, monkeypatch
):
    from ladder.errors import Forbidden

    def refuse(*args, **kwargs):  # a refusal the form's choices cannot foresee
        raise Forbidden("the owner refuses", field="opponents[1]")

    monkeypatch.setattr(tables, "create_table", refuse)
    login(client)
    answer = play(
        client, players="3", **{"opponents-0": "house:random", "opponents-1": "house:greedy"}
    )
    assert answer.status_code == 403
    assert "owner refuses" in error_under(answer.get_data(as_text=True), "opponents-1")


def test_a_csrf_less_post_is_refused(client, alice, house):
    login(client)
    answer = client.post("/play/toyrace", data={"players": "2", "seat": "0"})
    assert answer.status_code == 400


@pytest.fixture
def meuterer_house(session, config):
    from tests.unit.ladder.conftest import make_user

    user = make_user(session, config["HOUSE_USER"])
    return [make_active_bot(session, config, user, name=n, game="meuterer") for n in ("a", "b")]


def _data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="table-data">(.*?)</script>', page, re.S)
    assert found
    return json.loads(found.group(1))


def test_a_seat_sees_its_hand_and_a_spectator_never(session, client, redis, alice, meuterer_house):
    login(client)
    answer = play(
        client, game="meuterer", players="3", **{"opponents-0": "house:a", "opponents-1": "house:b"}
    )
    assert answer.status_code == 302, answer.get_data(as_text=True)
    url = answer.headers["Location"]
    mine = client.get(url).get_data(as_text=True)
    seat = _data(mine)["table"]
    assert seat["seat"] is not None and seat["view"]["hand"]
    client.post("/logout", data={"csrf_token": csrf_token(client, "/account")})
    watched = client.get(url).get_data(as_text=True)
    public = _data(watched)["table"]
    assert public["seat"] is None and "legal" not in public
    assert "hand" not in public["view"] and "private" not in public["view"]
    assert '"hand":' not in watched and '"private"' not in watched and "Resign" not in watched
    assert "spectator" in watched
    log = client.get(f"{url}/log.json").get_json()
    assert log["step"] == 0 and "round" in [e["event"] for e in log["events"]]
    draws = [e for e in log["events"] if e["event"] == "draw"]
    assert draws and all(isinstance(e["cards"], int) for e in draws)  # how many, never which


def test_join_by_invitation_link(session, app, client, redis, alice, bob, house):
    login(client)
    answer = play(client, **{"opponents-0": "open"})
    url = answer.headers["Location"]
    page = client.get(url).get_data(as_text=True)
    link = re.search(r'value="(http://[^"]+/join/([^"]+))"', page)
    assert link and "Invite a friend" in page
    path, token = link.group(1).removeprefix("http://localhost"), link.group(2)

    other = app.test_client()
    assert "/login" in other.get(path).headers["Location"]  # logged-in users only
    login(other, "bob")
    wrong = ("y" if token[0] == "x" else "x") + token[1:]  # never the token itself
    bad = other.post(path[: -len(token)] + wrong, data={"csrf_token": csrf_token(other, path)})
    assert bad.status_code == 403
    assert other.get(path).status_code == 200  # a page with a button: a link takes nothing
    table_id = int(url.rsplit("/", 1)[1])
    assert session.get(LiveTable, table_id).state == "waiting"
    taken = other.post(path, data={"csrf_token": csrf_token(other, path)})
    assert taken.status_code == 302 and taken.headers["Location"].endswith(url)
    session.expire_all()
    table = session.get(LiveTable, table_id)
    assert table.state == "playing" and table.seats[1].user_id == bob.id
    assert "You play seat 1." in other.get(url).get_data(as_text=True)
    assert "Invite a friend" not in client.get(url).get_data(as_text=True)


def test_the_live_list_shows_tables_not_over(session, config, client, redis, alice, house):
    login(client)
    first = play(client).headers["Location"]
    second = play(client).headers["Location"]
    tables.resign(session, alice, int(second.rsplit("/", 1)[1]), lambda *a: None)
    session.commit()
    session.get(LiveTable, int(second.rsplit("/", 1)[1])).state = "over"
    session.commit()
    anyone = client.application.test_client()
    page = anyone.get("/tables").get_data(as_text=True)
    assert f'href="{first}"' in page and f'href="{second}"' not in page
    assert 'href="/tables">Live tables</a>' in page
    assert anyone.get(first).status_code == 200


def test_the_human_play_switch_is_the_owners(session, config, app, client, alice, bob):
    version = make_active_bot(session, config, alice, name="mine")
    bot_id = version.bot_id
    login(client)
    page = client.get(f"/bots/{bot_id}").get_data(as_text=True)
    assert "Let people play against this bot" in page
    token = csrf_token(client, f"/bots/{bot_id}")
    answer = client.post(f"/bots/{bot_id}/human-play", data={"allowed": "y", "csrf_token": token})
    assert answer.status_code == 302
    session.expire_all()
    assert session.get(Bot, bot_id).human_play is True

    other = app.test_client()
    login(other, "bob")
    assert "Let people play against this bot" not in other.get(f"/bots/{bot_id}").get_data(
        as_text=True
    )
    token = csrf_token(other, "/account")
    refused = other.post(f"/bots/{bot_id}/human-play", data={"csrf_token": token})
    assert refused.status_code == 403
    session.expire_all()
    assert session.get(Bot, bot_id).human_play is True
    answer = client.post(
        f"/bots/{bot_id}/human-play", data={"csrf_token": token_of(client, bot_id)}
    )
    session.expire_all()
    assert answer.status_code == 302 and session.get(Bot, bot_id).human_play is False


def token_of(client, bot_id: int) -> str:
    return csrf_token(client, f"/bots/{bot_id}")


def test_the_peoples_leaderboard_and_account_rating(session, client, alice, bob):
    session.add(
        HumanRating(user_id=alice.id, game="toyrace", mu=27.0, sigma=6.0, skill=9.0, games=3)
    )
    session.add(
        HumanRating(user_id=bob.id, game="toyrace", mu=30.0, sigma=5.0, skill=15.0, games=4)
    )
    session.commit()
    page = client.get("/leaderboard/toyrace/people").get_data(as_text=True)
    assert page.index("bob") < page.index("alice") and "15.00" in page
    assert client.get("/leaderboard/chess/people").status_code == 404
    assert 'href="/leaderboard/toyrace/people"' in client.get("/leaderboard/toyrace").get_data(
        as_text=True
    )
    login(client)
    account = client.get("/account").get_data(as_text=True)
    assert "Your rating at live tables" in account and "9.00" in account


def test_a_finished_table_shows_its_result_best_first(session, config, client, redis, alice, house):
    import random

    from tests.unit.ladder.helpers import played_out

    login(client)
    url = play(client).headers["Location"]
    table = session.get(LiveTable, int(url.rsplit("/", 1)[1]))
    outcome = played_out(table, random.Random(3))
    match = tables.finish(session, config, table.id, outcome)
    session.commit()
    page = client.get(url).get_data(as_text=True)
    assert 'id="table-result"' in page and "Play again" in page
    assert f'href="/matches/{match.id}"' in page
    mine = outcome.ranks[0]
    assert ("You won" if mine == 1 else f"You finished {mine}") in page
    best = min(range(2), key=lambda i: (outcome.ranks[i], i))
    rows = re.findall(r"<td>(\d)</td>\s*<td><span class=\"swatch seat-(\d)", page)
    assert rows[0] == (str(outcome.ranks[best]), str(best))


@pytest.mark.parametrize(
    ("field", "shown_under"),
    [("seat", "seat"), ("players", "players"), ("opponents", "opponents-0"), (None, None)],
)
def test_a_service_refusal_goes_where_its_field_says(
    client, redis, alice, house, monkeypatch, field, shown_under
):
    from ladder.errors import ServiceError

    def refuse(*args, **kwargs):
        raise ServiceError("the service says no", field=field)

    monkeypatch.setattr(tables, "create_table", refuse)
    login(client)
    page = play(client).get_data(as_text=True)
    if shown_under is None:  # naming no field: above the form
        assert re.search(r'class="error" role="alert">the service says no<', page)
    else:
        assert "the service says no" in error_under(page, shown_under)
