"""Failed logins slow down password guessing, per account, per address and per pair."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from ladder import create_app
from ladder.errors import RateLimited
from ladder.models import LoginFailure, utcnow
from ladder.services import accounts
from ladder.settings import Settings
from tests.unit.ladder.conftest import csrf_token, make_user

LIMITS = {
    "LOGIN_WINDOW_S": 900,
    "LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS": 3,
    "LOGIN_FAILURES_PER_ADDRESS": 5,
    "LOGIN_FAILURES_PER_ACCOUNT": 7,
}
SETTINGS = Settings().with_overrides(LIMITS)  # the same, for services called directly
GOOD, BAD = "correct horse", "wrong pony"


def fail(session, name: str, address: str, times: int, now=None) -> None:
    for _ in range(times):
        assert accounts.log_in(session, SETTINGS, name, BAD, address, now=now) is None


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
        # Spread out: past the account's limit, an address that failed lately is refused...
        ([("alice", f"9.9.9.{i}", 1) for i in range(7)], "alice", "9.9.9.1", True),
        ([("alice", f"9.9.9.{i}", 1) for i in range(6)], "alice", "9.9.9.1", False),
        (
            [("alice", f"9.9.9.{i}", 1) for i in range(7)] + [("bob", "3.3.3.3", 1)],
            "alice",
            "3.3.3.3",
            True,
        ),  # (on any account)
        # ...but one that did not may still log in: strangers cannot lock the owner out.
        ([("alice", f"9.9.9.{i}", 1) for i in range(7)], "alice", "3.3.3.3", False),
    ],
)
def test_limits_table(session, failures, then_name, then_address, refused):
    make_user(session, "alice", GOOD)
    for name, address, times in failures:
        fail(session, name, address, times)
    if refused:
        with pytest.raises(RateLimited, match="too many failed logins; try again in 15 minutes"):
            accounts.log_in(session, SETTINGS, then_name, GOOD, then_address)
            session.commit()
    else:
        assert accounts.log_in(session, SETTINGS, then_name, GOOD, then_address).username == "alice"


def test_a_refused_attempt_is_not_counted_and_the_window_passes(session):
    make_user(session, "alice", GOOD)
    start = utcnow() - timedelta(minutes=20)
    fail(session, "alice", "1.1.1.1", 3, now=start)
    with pytest.raises(RateLimited, match=r"in 1 minute$"):
        accounts.log_in(
            session,
            SETTINGS,
            "Alice ",
            GOOD,
            "1.1.1.1",
            now=start + timedelta(minutes=14, seconds=30),
        )
    assert session.scalar(select(func.count(LoginFailure.id))) == 3
    # 15 minutes after the failures they no longer count, and the success forgives them.
    assert accounts.log_in(session, SETTINGS, "alice", GOOD, "1.1.1.1").username == "alice"
    assert session.scalar(select(func.count(LoginFailure.id))) == 0


def test_a_success_forgives_only_its_own_address(session):
    make_user(session, "alice", GOOD)
    fail(session, "alice", "1.1.1.1", 2)
    fail(session, "alice", "2.2.2.2", 2)
    assert accounts.log_in(session, SETTINGS, "alice", GOOD, "1.1.1.1") is not None
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


def test_a_refusal_says_when_to_retry_in_retry_after(config):
    app = create_app({**config, **LIMITS})
    client = app.test_client()
    with app.app_context():
        from ladder.extensions import db

        make_user(db.session, "alice", GOOD)
    for _ in range(4):
        form = {"username": "alice", "password": BAD, "csrf_token": csrf_token(client, "/login")}
        response = client.post("/login", data=form)
    assert response.status_code == 429
    assert 890 <= int(response.headers["Retry-After"]) <= 900


def concurrent_logins(config, monkeypatch, names: list[str]) -> tuple[list[int], int]:
    """POST a wrong password for each name at once, from one address, through the app on
    a file-backed SQLite database; the statuses and how many passwords were checked."""
    app = create_app(dict(config))  # the default limits
    with app.app_context():
        from ladder.extensions import db

        make_user(db.session, "alice", GOOD)
    checked = []
    real = accounts.check_password_hash

    def counting(stored, password):
        checked.append(password)
        return real(stored, password)

    monkeypatch.setattr(accounts, "check_password_hash", counting)
    clients = [app.test_client() for _ in names]
    tokens = [csrf_token(c, "/login") for c in clients]
    start = threading.Barrier(len(names))

    def attempt(i: int) -> int:
        form = {"username": names[i], "password": f"{BAD} {i}", "csrf_token": tokens[i]}
        start.wait()
        return clients[i].post("/login", data=form).status_code

    with ThreadPoolExecutor(len(names)) as pool:
        statuses = list(pool.map(attempt, range(len(names))))
    return statuses, len(checked)


def test_simultaneous_guesses_at_one_account_check_at_most_the_pair_limit(config, monkeypatch):
    limit = config["LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS"]
    statuses, checked = concurrent_logins(config, monkeypatch, ["alice"] * 30)
    assert checked <= limit
    assert statuses.count(400) == checked and statuses.count(429) == 30 - checked


def test_simultaneous_guesses_from_one_address_check_at_most_its_limit(config, monkeypatch):
    limit = config["LOGIN_FAILURES_PER_ADDRESS"]
    names = ["alice", *(f"user{i}" for i in range(29))]  # one address, many names
    statuses, checked = concurrent_logins(config, monkeypatch, names)
    assert checked <= limit
    assert statuses.count(429) == 30 - checked


def login_time(session, name: str, address: str) -> float:
    """CPU seconds of one failed login (host load does not skew CPU time)."""
    started = time.process_time()
    assert accounts.log_in(session, SETTINGS, name, BAD, address) is None
    return time.process_time() - started


@pytest.mark.real_password_hash
def test_an_unknown_name_takes_as_long_as_a_wrong_password(session):
    make_user(session, "alice", GOOD)
    login_time(session, "nobody", "0.0.0.0")  # warm up: the decoy hash is made once
    known = sorted(login_time(session, "alice", f"1.1.1.{i}") for i in range(5))
    unknown = sorted(login_time(session, f"nobody{i}", f"2.2.2.{i}") for i in range(5))
    # Medians within a factor of 1.5 (a hash takes ~50 ms; without one, ~2 ms).
    assert known[2] / 1.5 < unknown[2] < known[2] * 1.5
