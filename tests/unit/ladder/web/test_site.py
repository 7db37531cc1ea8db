"""The web site: accounts, CSRF, uploads, pages, access rules, escaping, errors."""

from __future__ import annotations

import gzip
import io
import json
import re
import zipfile

import pytest
from sqlalchemy import func, select
from werkzeug.datastructures import FileStorage
from werkzeug.test import encode_multipart

import engine
from ladder.models import BotVersion, Match, utcnow
from ladder.queries import boards
from ladder.queries import tournaments as tournament_queries
from ladder.services import bots, matches, tournaments
from tests.unit.ladder.conftest import (
    BOT_SOURCE,
    csrf_token,
    login,
    make_active_bot,
    make_user,
    override_settings,
)
from tests.unit.ladder.helpers import outcome_for


def upload(client, name="racer", data=BOT_SOURCE, filename="bot.py", game="toyrace"):
    token = csrf_token(client, "/bots/upload")
    fields = {
        "game": game,
        "name": name,
        "file": FileStorage(io.BytesIO(data), filename),
        "csrf_token": token,
    }
    # Encoded here, in memory: the test client's own encoder leaks a temp file for large bodies.
    boundary, body = encode_multipart(fields)
    return client.post(
        "/bots/upload", data=body, content_type=f"multipart/form-data; boundary={boundary}"
    )


def fetch(client, url):
    """GET a file response and close it (send_file streams from an open file)."""
    with client.get(url) as response:
        return response.status_code, response.mimetype, response.get_data()


@pytest.fixture
def logged_in(client, alice):
    assert login(client).status_code == 302
    return client


# -- accounts and CSRF ------------------------------------------------------
def test_register_logs_in_and_shows_name(client):
    token = csrf_token(client, "/register")
    form = {
        "username": "dora",
        "password": "seaworthy",
        "confirm": "seaworthy",
        "csrf_token": token,
    }
    assert client.post("/register", data=form).status_code == 302
    assert "Log out dora" in client.get("/").get_data(as_text=True)


def _error_under(page: str, name: str) -> list[str]:
    """The errors the page shows under the form field `name` (each field is a <label>)."""
    for part in page.split("<label>")[1:]:
        if f'name="{name}"' in part:
            return re.findall(r'<div class="error">([^<]*)</div>', part)
    raise AssertionError(f"no field {name}")


@pytest.mark.parametrize(
    ("form", "field", "message"),
    [
        ({"username": "dora", "password": "seaworthy", "confirm": "other"}, "confirm", "differ"),
        (
            {"username": "d", "password": "seaworthy", "confirm": "seaworthy"},
            "username",
            "3 and 40",
        ),
        (
            {"username": "alice", "password": "seaworthy", "confirm": "seaworthy"},
            "username",
            "taken",
        ),
        (
            {"username": "a b c", "password": "seaworthy", "confirm": "seaworthy"},
            "username",
            "is 3",
        ),
        ({"username": "dora", "password": "short", "confirm": "short"}, "password", "between 8"),
        (
            {"username": "dora", "password": "password1", "confirm": "password1"},
            "password",
            "common",
        ),
        (
            {"username": "doramarin", "password": "DoraMarin", "confirm": "DoraMarin"},
            "password",
            "the username",
        ),
    ],
)
def test_register_refusals_are_shown_under_their_field(client, alice, form, field, message):
    form["csrf_token"] = csrf_token(client, "/register")
    response = client.post("/register", data=form)
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    errors = _error_under(page, field)
    assert len(errors) == 1 and message in errors[0]
    assert page.count('class="error"') == 1  # under that field only


def test_a_registration_limit_is_shown_above_the_form(app, client):
    override_settings(app, REGISTRATIONS_PER_HOUR=1)
    for name, status in (("dora", 302), ("emil", 429)):
        client.post("/logout", data={"csrf_token": csrf_token(client, "/register")})
        form = {"username": name, "password": "seaworthy", "confirm": "seaworthy"}
        form["csrf_token"] = csrf_token(client, "/register")
        response = client.post("/register", data=form)
        assert response.status_code == status
    page = response.get_data(as_text=True)
    assert '<p class="error" role="alert">' in page and "registrations an hour" in page
    assert all(not _error_under(page, name) for name in ("username", "password", "confirm"))


def test_wrong_password_is_refused(client, alice):
    response = login(client, password="not the one")
    assert response.status_code == 400
    assert "wrong username or password" in response.get_data(as_text=True)


def test_every_form_post_without_csrf_is_refused(client, alice, session, config):
    version = make_active_bot(session, config, alice)
    login(client)
    for url in (
        "/login",
        "/register",
        "/logout",
        "/bots/upload",
        "/account/tokens",
        f"/bots/{version.bot_id}/retire",
        "/challenges",
        "/account/tokens/1/revoke",
        "/account/password",
        "/account/logout-everywhere",
    ):
        response = client.post(url, data={"name": "x"})
        assert response.status_code == 400, url
        assert "form expired" in response.get_data(as_text=True)


def test_login_next_is_never_an_open_redirect(client, alice):
    token = csrf_token(client, "/login")
    form = {"username": "alice", "password": "correct horse", "csrf_token": token}
    response = client.post("/login?next=//evil.example/x", data=form)
    assert response.headers["Location"] == "/"


def test_logout(logged_in):
    token = csrf_token(logged_in, "/account/tokens")
    logged_in.post("/logout", data={"csrf_token": token})
    assert logged_in.get("/bots/mine").status_code == 302


def test_pages_that_need_login_redirect(client):
    for url in ("/bots/upload", "/bots/mine", "/account/tokens"):
        response = client.get(url)
        assert response.status_code == 302 and "/login" in response.headers["Location"]


def test_tokens_page_shows_token_once(logged_in):
    token = csrf_token(logged_in, "/account/tokens")
    page = logged_in.post("/account/tokens", data={"name": "ci", "csrf_token": token})
    text = page.get_data(as_text=True)
    assert "shown only now" in text and "tw_" in text
    again = logged_in.get("/account/tokens").get_data(as_text=True)
    assert "shown only now" not in again and "ci" in again


# -- uploads ----------------------------------------------------------------
def test_upload_creates_pending_version(logged_in, session):
    response = upload(logged_in)
    assert response.status_code == 302
    page = logged_in.get(response.headers["Location"]).get_data(as_text=True)
    assert "racer" in page and "pending" in page


@pytest.mark.parametrize(
    ("filename", "data", "status", "message"),
    [
        ("bot.txt", BOT_SOURCE, 400, "upload a .py file"),
        ("bot.py", b"print(1)\n", 400, "does not define act"),
        ("bot.zip", b"PK not really", 400, "not a readable zip"),
    ],
)
def test_bad_upload_is_explained_and_not_stored(
    logged_in, session, filename, data, status, message
):
    response = upload(logged_in, data=data, filename=filename)
    assert response.status_code == status
    assert message in response.get_data(as_text=True)
    assert session.scalar(select(func.count(BotVersion.id))) == 0


def test_upload_rate_limit_answers_429(logged_in, app):
    override_settings(app, UPLOADS_PER_HOUR=1)
    assert upload(logged_in).status_code == 302
    response = upload(logged_in)
    assert response.status_code == 429
    assert "at most 1 accepted uploads an hour" in response.get_data(as_text=True)
    assert 3590 <= int(response.headers["Retry-After"]) <= 3600


# -- bot pages, access, escaping --------------------------------------------
def test_script_names_render_as_text(client, session, config, alice):
    version = make_active_bot(session, config, alice, name="<script>alert(1)</script>")
    for url in (f"/bots/{version.bot_id}", "/leaderboard/toyrace", "/"):
        text = client.get(url).get_data(as_text=True)
        assert "<script>alert(1)" not in text, url
        assert "&lt;script&gt;alert(1)" in text, url


def test_owner_sees_log_and_code_others_do_not(client, session, config, alice, bob):
    version = make_active_bot(session, config, alice)
    version.validation_log = "secret log line"
    session.commit()
    login(client, "bob")
    page = client.get(f"/bots/{version.bot_id}").get_data(as_text=True)
    assert "secret log line" not in page
    assert f"/versions/{version.id}/download" not in page  # the code link is the owner's
    assert client.get(f"/versions/{version.id}/download").status_code == 403
    client.post("/logout", data={"csrf_token": csrf_token(client, "/account/tokens")})
    login(client, "alice")
    page = client.get(f"/bots/{version.bot_id}").get_data(as_text=True)
    assert "secret log line" in page
    assert fetch(client, f"/versions/{version.id}/download")[::2] == (200, BOT_SOURCE)


def test_retire_through_the_site_asks_for_confirmation(logged_in, session, config, alice, bob):
    mine = make_active_bot(session, config, alice)
    theirs = make_active_bot(session, config, bob)
    page = logged_in.get(f"/bots/{mine.bot_id}").get_data(as_text=True)
    assert f'href="/bots/{mine.bot_id}/retire"' in page  # a link to a page that asks first
    asking = logged_in.get(f"/bots/{mine.bot_id}/retire").get_data(as_text=True)
    assert "for good" in asking and "cannot be undone" in asking and 'name="confirm"' in asking
    token = csrf_token(logged_in, f"/bots/{mine.bot_id}/retire")
    response = logged_in.post(f"/bots/{theirs.bot_id}/retire", data={"csrf_token": token})
    assert response.status_code == 403
    assert logged_in.get(f"/bots/{theirs.bot_id}/retire").status_code == 403
    # Without the box ticked nothing happens: the page asks again.
    unconfirmed = logged_in.post(f"/bots/{mine.bot_id}/retire", data={"csrf_token": token})
    assert unconfirmed.status_code == 400
    assert "tick the box to confirm" in unconfirmed.get_data(as_text=True)
    session.expire_all()
    assert session.get(BotVersion, mine.id).state == "active"
    confirmed = {"csrf_token": token, "confirm": "y"}
    assert logged_in.post(f"/bots/{mine.bot_id}/retire", data=confirmed).status_code == 302
    session.expire_all()
    assert session.get(BotVersion, mine.id).state == "retired"
    assert "This bot is retired" in logged_in.get(f"/bots/{mine.bot_id}").get_data(as_text=True)
    again = logged_in.post(f"/bots/{mine.bot_id}/retire", data=confirmed, follow_redirects=True)
    assert "already retired" in again.get_data(as_text=True)


def test_bot_page_shows_history_and_head_to_head(client, session, config, alice, bob):
    a = make_active_bot(session, config, alice, name="anchor")
    b = make_active_bot(session, config, bob, name="boatswain")
    for ranks in ([1, 2], [1, 2], [2, 1]):
        match = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True)
        matches.record_match(session, config, match.id, outcome_for(match, ranks))
        session.commit()
    page = client.get(f"/bots/{a.bot_id}").get_data(as_text=True)
    assert "<polyline" in page
    assert "over the last 3 rated matches" in page
    row = page.split("boatswain</a>")[1].split("</tr>")[0]
    assert [cell.split(">")[-1] for cell in row.split("</td>")[1:5]] == ["bob", "3", "2", "1"]
    assert "Finished matches: 3 · wins: 2" in page


def test_bot_page_tables_only_the_newest_ratings(client, session, config, alice, bob, monkeypatch):
    monkeypatch.setattr(boards, "HISTORY_TABLE_ROWS", 2)
    a = make_active_bot(session, config, alice, name="anchor")
    b = make_active_bot(session, config, bob, name="boatswain")
    ids = []
    for _ in range(3):
        match = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True)
        matches.record_match(session, config, match.id, outcome_for(match, [1, 2]))
        session.commit()
        ids.append(match.id)
    page = client.get(f"/bots/{a.bot_id}").get_data(as_text=True)
    table = page.split("Rating history as a table")[1].split("</table>")[0]
    assert table.startswith(" (the last 2 matches)")
    assert f">#{ids[2]}</a>" in table and f">#{ids[1]}</a>" in table
    assert f">#{ids[0]}</a>" not in table
    assert "over the last 3 rated matches" in page  # the chart keeps every point


def test_leaderboard_orders_by_skill_and_paginates(client, app, session, config, alice):
    override_settings(app, PAGE_SIZE=2)
    versions = [make_active_bot(session, config, alice, name=f"bot{i}") for i in range(3)]
    match = matches.create_match(session, config, "toyrace", [v.id for v in versions], ranked=True)
    matches.record_match(session, config, match.id, outcome_for(match, [3, 1, 2]))
    session.commit()
    first = client.get("/leaderboard/toyrace").get_data(as_text=True)
    assert first.index("bot1") < first.index("bot2") and "bot0" not in first
    assert "Page 1 of 2" in first
    second = client.get("/leaderboard/toyrace?page=2").get_data(as_text=True)
    assert "bot0" in second
    assert client.get("/leaderboard?game=toyrace").headers["Location"] == "/leaderboard/toyrace"
    assert client.get("/leaderboard/toyrace?page=zero").status_code == 400


def test_a_paused_version_is_marked_on_the_leaderboard(client, session, config, alice):
    versions = [make_active_bot(session, config, alice, name=f"bot{i}") for i in range(2)]
    match = matches.create_match(session, config, "toyrace", [v.id for v in versions], ranked=True)
    matches.record_match(session, config, match.id, outcome_for(match, [1, 2]))
    versions[1].paused_at, versions[1].paused_reason = utcnow(), "its last 3 matches crashed"
    session.commit()
    page = client.get("/leaderboard/toyrace").get_data(as_text=True)
    rows = {name: page.split(f">{name}</a>")[1].split("</tr>")[0] for name in ("bot0", "bot1")}
    assert "paused-mark" not in rows["bot0"]
    assert 'class="paused-mark" title="Paused: ' in rows["bot1"]
    assert ">paused</span>" in rows["bot1"]
    board = client.get("/api/v1/games/toyrace/leaderboard").get_json()
    assert {e["bot"]: e["paused"] for e in board["entries"]} == {"bot0": False, "bot1": True}


def test_game_page_has_api_example_and_starter_link(client, config, tmp_path):
    assert "No starter bot" in client.get("/games/toyrace").get_data(as_text=True)
    starter = tmp_path / "starter" / "toyrace"
    starter.mkdir(parents=True)
    (starter / "bot.py").write_text("def act(view, legal):\n    return legal[0]\n")
    page = client.get("/games/toyrace").get_data(as_text=True)
    assert "def act(view: dict, legal: list[dict])" in page
    assert "&#34;add&#34;: 1" in page or "&quot;add&quot;: 1" in page or '"add": 1' in page
    assert "/games/toyrace/starter/bot.py" in page
    assert fetch(client, "/games/toyrace/starter/bot.py")[2].startswith(b"def act")
    assert client.get("/games/chess").status_code == 404


def test_the_games_page_lists_every_game_and_the_menu_links_it(client):
    """/games (the menu's one link to the games, so the menu fits one line) lists each
    registered game with its rules page, leaderboard, matches and play links."""
    page = client.get("/games").get_data(as_text=True)
    for name in engine.game_names():
        for path in (f"/games/{name}", f"/leaderboard/{name}", f"/matches?game={name}"):
            assert f'href="{path}"' in page, path
        assert f'href="/games/{name}#play"' in page
    menu = client.get("/").get_data(as_text=True).split('<nav class="site-nav"')[1]
    menu = menu.split("</nav>")[0]
    assert 'href="/games"' in menu
    assert not any(f'href="/games/{name}"' in menu for name in engine.game_names())


# -- matches ----------------------------------------------------------------
def test_match_page_stderr_for_owner_only_and_replay(client, session, config, alice, bob):
    a = make_active_bot(session, config, alice)
    b = make_active_bot(session, config, bob)
    match = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True)
    session.commit()
    outcome = outcome_for(match, [1, 2], statuses=["ok", "crash"])
    matches.record_match(session, config, match.id, outcome)
    session.commit()
    public = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert "stderr of seat" not in public and "crash" in public
    login(client, "bob")
    own = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert "stderr of seat 1" in own and "stderr of seat 0" not in own
    status, mimetype, data = fetch(client, f"/matches/{match.id}/replay.json.gz")
    assert (status, mimetype) == (200, "application/gzip")
    assert json.loads(gzip.decompress(data)) == outcome["replay"]
    listing = client.get("/matches?game=toyrace").get_data(as_text=True)
    assert f"#{match.id}" in listing


def test_match_page_says_a_void_match_was_not_rated_and_why(client, session, config, alice, bob):
    a, b = make_active_bot(session, config, alice), make_active_bot(session, config, bob)
    match = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True)
    session.commit()
    outcome = outcome_for(match, [1, 1], statuses=["timeout", "timeout"])
    outcome |= {"rated": False, "unrated_reason": "every seat timed out before it was ready"}
    matches.record_match(session, config, match.id, outcome)
    session.commit()
    page = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert "<p>Not rated · state finished" in page
    assert (
        '<p class="warning" id="unrated-reason">Not rated:'
        " every seat timed out before it was ready</p>" in page
    )
    listing = client.get("/matches?game=toyrace").get_data(as_text=True)
    assert f'#{match.id}</a> <span class="muted">(unrated)</span>' in listing
    detail = client.get(f"/api/v1/matches/{match.id}").get_json()
    assert detail["unrated_reason"] == "every seat timed out before it was ready"


def test_a_rated_match_page_has_no_unrated_note(client, session, config, alice, bob):
    a, b = make_active_bot(session, config, alice), make_active_bot(session, config, bob)
    match = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True)
    matches.record_match(session, config, match.id, outcome_for(match, [1, 2]))
    session.commit()
    page = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert "<p>Rated · state finished" in page and "unrated-reason" not in page
    assert client.get(f"/api/v1/matches/{match.id}").get_json()["unrated_reason"] is None


SHARED = '<p class="warning" id="shared-owners">Two bots of one owner at this table'


def test_a_challenge_seating_one_owner_twice_is_marked_unrated(client, session, config, alice, bob):
    a1, a2 = (make_active_bot(session, config, alice, name=n) for n in ("a1", "a2"))
    b = make_active_bot(session, config, bob)
    match = matches.create_challenge(session, config, alice, a1.id, [a2.id, b.id])
    session.commit()
    page = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert "<p>Unrated (challenge) · state queued" in page
    assert f"{SHARED} (alice):\na challenge may seat them together; it is unrated" in page
    alone = matches.create_challenge(session, config, alice, a1.id, [b.id])
    session.commit()
    assert "shared-owners" not in client.get(f"/matches/{alone.id}").get_data(as_text=True)


def test_a_tournament_table_of_one_owner_twice_is_marked_with_its_tournament(
    client, session, config, alice, bob
):
    staff = make_user(session, "sam")
    staff.is_staff = True
    session.commit()
    t = tournaments.create_tournament(session, staff, "Cup", "toyrace", table_size=3)
    tournaments.open_tournament(session, staff, t.id)
    session.commit()
    for user, name in ((alice, "a1"), (alice, "a2"), (bob, "b")):
        tournaments.enter(session, user, t.id, make_active_bot(session, config, user, name).bot_id)
    tournaments.start(session, config, staff, t.id)
    session.commit()
    [match] = tournament_queries.slots(session, t.id).values()
    page = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert f'Unrated (<a href="/tournaments/{t.id}">tournament #{t.id}</a>)' in page
    assert "Unrated (challenge)" not in page
    assert f"{SHARED} (alice):\na tournament may seat them together" in page


def test_house_bots_sharing_a_rated_table_are_not_marked(client, session, config, bob):
    config["HOUSE_USER"] = "demo"
    demo = make_user(session, "demo")
    h1, h2 = (make_active_bot(session, config, demo, name=n) for n in ("h1", "h2"))
    b = make_active_bot(session, config, bob)
    match = matches.create_match(session, config, "toyrace", [h1.id, h2.id, b.id], ranked=True)
    session.commit()
    page = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert "<p>Rated · state queued" in page and "shared-owners" not in page


def test_a_rated_table_from_before_the_owner_rule_says_so(client, session, config, alice, bob):
    a1, a2 = (make_active_bot(session, config, alice, name=n) for n in ("a1", "a2"))
    match = matches.create_match(session, config, "toyrace", [a1.id, a2.id], ranked=True)
    session.commit()
    page = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert f"{SHARED} (alice):\nseated before rated ladder tables kept each owner" in page


def test_queued_match_has_no_replay(client, session, config, alice, bob):
    a, b = make_active_bot(session, config, alice), make_active_bot(session, config, bob)
    match = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True)
    session.commit()
    assert client.get(f"/matches/{match.id}/replay.json.gz").status_code == 404
    assert client.get("/matches?bot=x").status_code == 400


def test_challenge_through_the_bot_page(logged_in, session, config, alice, bob):
    mine = make_active_bot(session, config, alice)
    theirs = make_active_bot(session, config, bob, name="<b>bold</b>")
    page = logged_in.get(f"/bots/{mine.bot_id}").get_data(as_text=True)
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "<b>bold" not in page
    token = csrf_token(logged_in, f"/bots/{mine.bot_id}")
    form = {
        "csrf_token": token,
        "version_id": str(mine.id),
        "opponents": [str(theirs.id)],
        "seed": "5",
    }
    response = logged_in.post("/challenges", data=form)
    assert response.status_code == 302
    match = session.scalar(select(Match))
    assert (match.ranked, match.seed, match.state) == (False, 5, "queued")
    bad = dict(form, opponents=["999"])
    followed = logged_in.post("/challenges", data=bad, follow_redirects=True)
    assert "Challenge not started: " in followed.get_data(as_text=True)
    other = dict(form, version_id=str(theirs.id), opponents=[str(mine.id)])
    assert logged_in.post("/challenges", data=other).status_code == 403


# -- error pages ------------------------------------------------------------
def test_friendly_error_pages(client, app):
    @app.get("/boom")
    def boom():
        raise RuntimeError("secret stack detail")

    missing = client.get("/no/such/page")
    assert missing.status_code == 404 and "There is nothing here" in missing.get_data(as_text=True)
    crash = client.get("/boom")
    text = crash.get_data(as_text=True)
    assert crash.status_code == 500 and "Something went wrong" in text
    assert "secret stack detail" not in text and "Traceback" not in text
    assert client.get("/bots/999").status_code == 404


def test_pending_bot_is_not_on_the_leaderboard(client, session, config, alice):
    bots.upload_version(session, config, alice, "toyrace", "waiting", "bot.py", BOT_SOURCE)
    session.commit()
    make_user(session, "other")
    assert "waiting" not in client.get("/leaderboard/toyrace").get_data(as_text=True)


def test_every_registered_game_has_working_pages(client):
    """Whatever games are registered (the toy one at least) get a game page and a board."""
    for name in engine.game_names():
        page = client.get(f"/games/{name}")
        assert page.status_code == 200, name
        assert "def act(view: dict, legal: list[dict])" in page.get_data(as_text=True)
        assert client.get(f"/leaderboard/{name}").status_code == 200, name


def test_ids_out_of_range_are_404_not_errors(client):
    for url in ("/bots/99999999999999999999", "/matches/0", "/versions/2147483648/download"):
        assert client.get(url).status_code == 404, url


def test_zip_upload_through_the_site(logged_in, session):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", BOT_SOURCE)
        archive.writestr("tables.json", b"{}")
    response = upload(logged_in, data=buffer.getvalue(), filename="fleet.zip")
    assert response.status_code == 302
    assert session.scalar(select(BotVersion.kind)) == "zip"


def test_pages_carry_security_headers(client):
    response = client.get("/")
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "style-src 'self';" in policy
    assert "unsafe" not in policy  # no inline script or style anywhere (browser tests check)
    assert "base-uri 'none'" in policy and "form-action 'self'" in policy
    assert "object-src 'none'" in policy  # named: scanners do not count the fallback
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert "Strict-Transport-Security" not in response.headers  # plain HTTP: no HSTS


def test_hsts_when_cookies_are_secure(config):
    from ladder import create_app

    client = create_app({**config, "SESSION_COOKIE_SECURE": True}).test_client()
    for url in ("/", "/api/v1/games"):
        assert client.get(url).headers["Strict-Transport-Security"] == "max-age=31536000"


def test_forbidden_page_is_friendly(logged_in, session, config, bob):
    theirs = make_active_bot(session, config, bob)
    token = csrf_token(logged_in, "/account/tokens")
    response = logged_in.post(f"/bots/{theirs.bot_id}/retire", data={"csrf_token": token})
    assert response.status_code == 403
    assert "only the bot&#39;s owner can retire it" in response.get_data(as_text=True)


def test_the_api_starts_with_links_and_a_reference_people_read(client):
    """GET /api/v1 gives a program links and sends a browser to the reference page,
    which lays out every call of the OpenAPI document with its fields."""
    links = client.get("/api/v1", headers={"Accept": "application/json"}, follow_redirects=True)
    assert links.status_code == 200
    body = links.get_json()
    assert body["openapi"].endswith("/api/v1/openapi.json")
    assert body["reference"].endswith("/docs/api")
    assert client.get(body["openapi"]).status_code == 200
    browser = client.get("/api/v1/", headers={"Accept": "text/html,*/*;q=0.8"})
    assert browser.status_code == 302 and browser.headers["Location"].endswith("/docs/api")

    page = client.get("/docs/api").get_data(as_text=True)
    doc = client.get("/api/v1/openapi.json").get_json()
    for path, item in doc["paths"].items():
        for method in item:
            assert f"{method.upper()} /api/v1{path}</code>" in page, (method, path)
    # A body's fields are named, required ones marked: the challenge's version_id.
    challenge = page.split('id="startChallenge"')[1].split("</section>")[0]
    assert "<code>version_id</code> (required)" in challenge
