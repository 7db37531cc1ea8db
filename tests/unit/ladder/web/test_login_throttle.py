"""Failed logins slow down password guessing, per account, per address and per pair."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from ladder import create_app
from ladder.models import LoginFailure, utcnow
from ladder.services import accounts
from ladder.services.errors import RateLimited
from tests.unit.ladder.conftest import csrf_token, make_user

LIMITS = {
    "LOGIN_WINDOW_S": 900,
    "LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS": 3,
    "LOGIN_FAILURES_PER_ADDRESS": 5,
    "LOGIN_FAILURES_PER_ACCOUNT": 7,
}
GOOD, BAD = "correct horse", "wrong pony"


def fail(session, name: str, address: str, times: int, now=None) -> None:
    for _ in range(times):
        assert accounts.log_in(session, LIMITS, name, BAD, address, now=now) is None


@pytest.mark.parametrize(
    ("failures", "then_name", "then_address", "refused"),
    [
        # (who failed how often) -> is the next attempt, even with the right password, refused?
        ([("alice", "1.1.1.1", 2)], "alice", "1.1.1.1", False),
        ([("alice", "1.1.1.1", 3)], "alice", "1.1.1.1", True),  # this account from here
        ([("alice", "1.1.1.1", 3)], "alice", "2.2.2.2", False),  # another address may try
        (
            [("alice", "1.1.1.1", 2), ("bob", "1.1.1.1", 2), ("eve", "1.1.1.1", 1)],
            "alice",
            "1.1.1.1",
            True,
        ),  # one address guessing many names
        ([("bob", "1.1.1.1", 2), ("eve", "1.1.1.1", 2)], "alice", "1.1.1.1", False),
        ([("alice", f"9.9.9.{i}", 1) for i in range(7)], "alice", "3.3.3.3", True),  # spread out
        ([("alice", f"9.9.9.{i}", 1) for i in range(6)], "alice", "3.3.3.3", False),
    ],
)
def test_limits_table(session, failures, then_name, then_address, refused):
    make_user(session, "alice", GOOD)
    for name, address, times in failures:
        fail(session, name, address, times)
    if refused:
        with pytest.raises(RateLimited, match="too many failed logins; try again in 15 minutes"):
            accounts.log_in(session, LIMITS, then_name, GOOD, then_address)
    else:
        assert accounts.log_in(session, LIMITS, then_name, GOOD, then_address).username == "alice"


def test_a_refused_attempt_is_not_counted_and_the_window_passes(session):
    make_user(session, "alice", GOOD)
    start = utcnow() - timedelta(minutes=20)
    fail(session, "alice", "1.1.1.1", 3, now=start)
    with pytest.raises(RateLimited, match=r"in 1 minute$"):
        accounts.log_in(
            session,
            LIMITS,
            "Alice ",
            GOOD,
            "1.1.1.1",
            now=start + timedelta(minutes=14, seconds=30),
        )
    assert session.scalar(select(func.count(LoginFailure.id))) == 3
    # 15 minutes after the failures they no longer count, and the success forgives them.
    assert accounts.log_in(session, LIMITS, "alice", GOOD, "1.1.1.1").username == "alice"
    assert session.scalar(select(func.count(LoginFailure.id))) == 0


def test_a_success_forgives_only_its_own_address(session):
    make_user(session, "alice", GOOD)
    fail(session, "alice", "1.1.1.1", 2)
    fail(session, "alice", "2.2.2.2", 2)
    assert accounts.log_in(session, LIMITS, "alice", GOOD, "1.1.1.1") is not None
    left = session.scalars(select(LoginFailure.address)).all()
    assert left == ["2.2.2.2", "2.2.2.2"]


def test_the_login_page_answers_429_with_the_reason_and_keeps_the_form(config):
    app = create_app({**config, **LIMITS})
    client = app.test_client()
    with app.app_context():
        from ladder.extensions import db

        make_user(db.session, "alice", GOOD)
    for attempt in range(4):
        form = {"username": "alice", "password": BAD, "csrf_token": csrf_token(client, "/login")}
        response = client.post("/login", data=form)
        expected = 400 if attempt < 3 else 429
        assert response.status_code == expected
    form = {"username": "alice", "password": GOOD, "csrf_token": csrf_token(client, "/login")}
    response = client.post("/login", data=form)
    page = response.get_data(as_text=True)
    assert response.status_code == 429
    assert "too many failed logins" in page and 'name="password"' in page
    assert client.get("/bots/mine").status_code == 302  # still not logged in


def test_behind_a_proxy_the_forwarded_address_counts(config):
    app = create_app({**config, **LIMITS, "PROXY_HOPS": 1})
    client = app.test_client()
    for address in ("7.7.7.7", "8.8.8.8"):
        form = {"username": "nobody", "password": BAD, "csrf_token": csrf_token(client, "/login")}
        client.post("/login", data=form, headers={"X-Forwarded-For": address})
    with app.app_context():
        from ladder.extensions import db

        seen = sorted(db.session.scalars(select(LoginFailure.address)))
    assert seen == ["7.7.7.7", "8.8.8.8"]
