"""Registration: names, passwords, the reserved house name and a limit per address;
no answer or timing tells a known account from an unknown one."""

from __future__ import annotations

import contextlib
import time

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from ladder import inputs
from ladder.cli import main
from ladder.errors import Conflict, ServiceError
from ladder.models import User
from ladder.services import accounts, house
from tests.unit.ladder.conftest import csrf_token, make_user, override_settings

GOOD = "correct horse"


@pytest.mark.parametrize(
    ("username", "password", "message"),
    [
        ("harbourmaster", "Harbourmaster", "must not be the username"),
        ("harbourmaster", " harbourmaster ", "must not be the username"),
        ("dora", "password123", "most common"),
        ("dora", "Qwerty123", "most common"),
        ("dora", "iloveyou", "most common"),
        ("dora", "short", "at least 8"),
        ("alice\u202e", GOOD, "a username is 3 to 40"),  # a right-to-left override
        ("ali\u200bce", GOOD, "a username is 3 to 40"),  # a zero-width space
        ("alice\n", GOOD, None),  # stripped, like any surrounding space
    ],
)
def test_names_and_passwords_are_checked(session, username, password, message):
    if message is None:
        assert accounts.register(session, username, password).username == "alice"
        return
    with pytest.raises(ServiceError, match=message):
        accounts.register(session, username, password)


@pytest.mark.parametrize(
    "text",
    [
        "a\u202ab",
        "a\u202eb",
        "a\u2066b",
        "a\u2069b",
        "a\u200bb",
        "a\u200eb",
        "a\ufeffb",
        "a\u00adb",
        "a\u2028b",
        "a\x07b",
    ],
)
def test_invisible_and_bidi_characters_are_not_visible_text(text):
    assert not inputs.visible(text)


def test_visible_text_passes():
    assert inputs.visible("Ångström's bot — v2 ⚓ 帆船")


def register_page(client, username, password=GOOD, address="1.2.3.4"):
    form = {
        "username": username,
        "password": password,
        "confirm": password,
        "csrf_token": csrf_token(client, "/register"),
    }
    return client.post("/register", data=form, environ_base={"REMOTE_ADDR": address})


@pytest.mark.parametrize("name", ["demo", "DEMO", "Demo", "dEmO"])
def test_the_house_name_cannot_be_registered_before_or_after_ladder_house(
    app, client, session, config, name
):
    before = register_page(client, name)
    assert before.status_code == 400 and "is taken" in before.get_data(as_text=True)
    house.seed_house_bots(session, config, "house password")
    after = register_page(client, name)
    assert after.status_code == 400 and "is taken" in after.get_data(as_text=True)
    assert session.scalars(select(User.username)).all() == ["demo"]


@pytest.mark.parametrize("name", ["human", "Human"])
def test_the_name_bots_are_told_a_person_has_cannot_be_registered(client, name):
    refused = register_page(client, name)
    assert refused.status_code == 400 and "is taken" in refused.get_data(as_text=True)


def test_ladder_house_runs_twice_and_explains_a_conflict_without_a_traceback(
    config, session, monkeypatch
):
    for key in ("DATABASE_URL", "SECRET_KEY", "LADDER_VAR", "UPLOAD_DIR", "REPLAY_DIR"):
        monkeypatch.setenv(key, str(config.get(key, "")) or "x")
    monkeypatch.delenv("REDIS_URL", raising=False)
    runner = CliRunner()
    first = runner.invoke(main, ["house"])
    assert first.exit_code == 0, first.output
    again = runner.invoke(main, ["house"])
    assert again.exit_code == 0 and "none (all there)" in again.output
    # An account that took a case variant before the name was reserved.
    session.execute(User.__table__.update().values(username="Demo"))
    session.commit()
    clash = runner.invoke(main, ["house"])
    assert clash.exit_code == 1
    assert "'Demo' holds the house name 'demo'" in clash.output
    assert "Traceback" not in clash.output


def test_house_user_is_made_once_even_if_it_raced(session, monkeypatch):
    first = house.house_user(session, "demo")
    assert house.house_user(session, "demo").id == first.id
    assert session.scalar(select(func.count(User.id))) == 1


def test_registrations_are_limited_per_address(app, client, session):
    override_settings(app, REGISTRATIONS_PER_HOUR=3)
    for i in range(3):
        assert register_page(app.test_client(), f"sailor{i}").status_code == 302
    refused = register_page(client, "sailor9")
    assert refused.status_code == 429
    assert "at most 3 registrations an hour" in refused.get_data(as_text=True)
    assert 3500 <= int(refused.headers["Retry-After"]) <= 3600
    assert register_page(client, "sailor9", address="5.6.7.8").status_code == 302


def test_a_taken_name_counts_toward_the_limit_but_a_weak_password_does_not(app, client, alice):
    override_settings(app, REGISTRATIONS_PER_HOUR=2)
    assert register_page(client, "dora", password="password1").status_code == 400  # not counted
    assert register_page(client, "alice").status_code == 400  # counted: it cost a hash
    assert register_page(client, "dora").status_code == 302
    assert register_page(app.test_client(), "erin").status_code == 429


def test_two_registrations_of_one_name_at_once_end_in_a_conflict_not_a_500(session, monkeypatch):
    # The lookup misses a name the other registration is about to commit.
    monkeypatch.setattr(accounts, "func", _LowerMiss())
    make_user(session, "alice")
    with pytest.raises(Conflict, match="is taken"):
        accounts.register(session, "alice", GOOD)


class _LowerMiss:
    """`func` whose lower() never matches: the name check sees nothing."""

    def lower(self, column):
        return column + "|miss"  # "|" is never in a username

    def __getattr__(self, name):
        from sqlalchemy import func as real

        return getattr(real, name)


def register_time(session, name: str) -> float:
    """CPU seconds of one registration: the hashing is what must cost the same, and
    CPU time, unlike the wall clock, does not grow when the machine is busy."""
    started = time.process_time()
    with contextlib.suppress(Conflict):
        accounts.register(session, name, GOOD)
    return time.process_time() - started


@pytest.mark.real_password_hash
def test_a_taken_name_costs_the_same_time_as_a_free_one(session):
    make_user(session, "alice")
    taken = sorted(register_time(session, "alice") for _ in range(5))
    free = sorted(register_time(session, f"newcomer{i}") for i in range(5))
    assert taken[2] / 1.5 < free[2] < taken[2] * 1.5
