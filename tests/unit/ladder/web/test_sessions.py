"""Sessions live on the server: logging out, "log out everywhere" and a password change
end them, so a copied cookie is worth nothing afterwards; the CSRF secret is new at login."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from ladder.models import UserSession
from tests.unit.ladder.conftest import csrf_token, login

GOOD = "correct horse"


def thief_of(app, client):
    """Another browser holding a copy of `client`'s session cookie."""
    thief = app.test_client()
    thief.set_cookie("session", client.get_cookie("session").value)
    return thief


def logged_in_as(client) -> bool:
    return client.get("/bots/mine").status_code == 200


@pytest.fixture
def browser(client, alice):
    assert login(client).status_code == 302
    return client


def test_logging_out_makes_a_copied_cookie_useless(app, browser, session):
    thief = thief_of(app, browser)
    assert logged_in_as(thief)  # a stolen cookie works while its session lives...
    browser.post("/logout", data={"csrf_token": csrf_token(browser, "/account")})
    assert not logged_in_as(browser)
    assert not logged_in_as(thief)  # ...and not a moment after the owner logs out
    assert session.scalar(select(func.count(UserSession.id))) == 0


def test_log_out_everywhere_ends_every_session(app, browser):
    laptop = app.test_client()
    assert login(laptop).status_code == 302
    thief = thief_of(app, browser)
    token = csrf_token(laptop, "/account")
    response = laptop.post("/account/logout-everywhere", data={"csrf_token": token})
    assert response.status_code == 302 and response.location.endswith("/login")
    assert not any(logged_in_as(c) for c in (browser, laptop, thief))


def change_password(client, current=GOOD, new="a new harbour", confirm=None):
    form = {
        "current": current,
        "password": new,
        "confirm": confirm or new,
        "csrf_token": csrf_token(client, "/account"),
    }
    return client.post("/account/password", data=form)


def test_a_password_change_ends_every_other_session(app, browser):
    laptop = app.test_client()
    assert login(laptop).status_code == 302
    thief = thief_of(app, laptop)
    response = change_password(browser)
    assert response.status_code == 302
    assert "1 other session logged out" in browser.get("/account").get_data(as_text=True)
    assert logged_in_as(browser)  # the one that changed it stays
    assert not logged_in_as(laptop) and not logged_in_as(thief)
    other = app.test_client()
    assert login(other, password=GOOD).status_code == 400
    assert login(other, password="a new harbour").status_code == 302


@pytest.mark.parametrize(
    ("current", "new", "message"),
    [
        ("wrong pony", "a new harbour", "the current password is wrong"),
        (GOOD, "password123", "one of the most common"),
        (GOOD, "Alice", "between 8 and 200 characters"),
        (GOOD, "ALICE.alice", None),  # fine: not the name itself
    ],
)
def test_a_password_change_is_checked(browser, current, new, message):
    response = change_password(browser, current, new)
    if message is None:
        assert response.status_code == 302
        return
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert logged_in_as(browser)


def test_the_csrf_secret_is_new_after_login(client, alice):
    before = csrf_token(client, "/login")
    login(client)
    after = csrf_token(client, "/account")
    assert before != after
    # A token taken before the login (by a page an attacker planted, say) is refused.
    response = client.post("/account/logout-everywhere", data={"csrf_token": before})
    assert response.status_code == 400
    assert logged_in_as(client)


def test_the_account_page_lists_sessions_and_is_never_cached(app, browser):
    laptop = app.test_client()
    login(laptop)
    response = browser.get("/account")
    page = response.get_data(as_text=True)
    assert response.headers["Cache-Control"] == "no-store"
    assert page.count("<tr><td>") == 2 and page.count("<td>this browser</td>") == 1
    assert browser.get("/account/tokens").headers["Cache-Control"] == "no-store"


def test_a_cookie_from_before_sessions_lived_on_the_server_logs_in_no_more(app, alice):
    # What Flask-Login alone kept: the user id, signed. Nothing on the server vouches for it.
    old = app.test_client()
    with old.session_transaction() as cookie:
        cookie["_user_id"] = str(alice.id)
        cookie["_fresh"] = True
    assert not logged_in_as(old)
