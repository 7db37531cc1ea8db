"""The staff status page, its access rules, its figures and `ladder staff grant|revoke`."""

from __future__ import annotations

import re
import socket
from datetime import timedelta

import pytest
from alembic import command
from click.testing import CliRunner
from sqlalchemy import inspect, text, update

import engine
from ladder import create_app
from ladder.cli import db as schema
from ladder.cli import main
from ladder.extensions import make_engine
from ladder.models import BotVersion, Match, User, utcnow
from ladder.queries.status import ladder_status
from ladder.services import bots, matches
from ladder.services.accounts import set_staff
from tests.unit.ladder.conftest import BOT_SOURCE, login, make_active_bot, make_user

FAULT = "Fault: act() raised ZeroDivisionError on move 2"


def age(session, model, ident, **ago):
    """Move a row's finish (or validation) time `ago` into the past."""
    column = "finished_at" if model is Match else "validated_at"
    when = utcnow() - timedelta(**ago)
    session.execute(update(model).where(model.id == ident).values({column: when}))
    session.commit()


def finished(session, config, versions, **ago):
    match = matches.create_match(session, config, "toyrace", versions, ranked=True)
    matches.start_match(session, match.id)
    session.commit()
    session.execute(
        update(Match)
        .where(Match.id == match.id)
        .values(state="finished", finished_at=utcnow() - timedelta(**ago))
    )
    session.commit()
    return match.id


def failed_validation(session, config, user, name, log):
    version = bots.upload_version(session, config, user, "toyrace", name, "bot.py", BOT_SOURCE)
    bots.start_validation(session, version.id)
    bots.finish_validation(session, version.id, False, log)
    session.commit()
    return version.id


@pytest.fixture
def ladder_data(session, config, alice, bob):
    """A small ladder with known figures: what the status page must report."""
    versions = [
        make_active_bot(session, config, alice).id,
        make_active_bot(session, config, bob).id,
    ]
    for _ in range(2):
        matches.create_match(session, config, "toyrace", versions, ranked=True)
    running = matches.create_match(session, config, "toyrace", versions, ranked=True)
    matches.start_match(session, running.id)
    session.commit()
    # A game no longer registered still shows while it has matches in flight.
    session.add(Match(game="oldgame", seed=1, players=2, state="running"))
    session.commit()

    recent_fail = matches.create_match(session, config, "toyrace", versions, ranked=True).id
    matches.fail_match(session, recent_fail, "the match took too long")
    session.commit()
    age(session, Match, recent_fail, minutes=10)
    old_fail = matches.create_match(session, config, "toyrace", versions, ranked=True).id
    matches.fail_match(session, old_fail, "an old failure")
    session.commit()
    age(session, Match, old_fail, hours=2)

    fresh_bad = failed_validation(session, config, alice, "buggy", f"Your bot: crash\n{FAULT}")
    old_bad = failed_validation(session, config, bob, "ancient", "Validation failed.")
    age(session, BotVersion, old_bad, hours=3)

    finished(session, config, versions, minutes=1)
    finished(session, config, versions, minutes=2)
    finished(session, config, versions, minutes=20)
    finished(session, config, versions, hours=5)
    return {"recent_fail": recent_fail, "fresh_bad": fresh_bad}


@pytest.fixture
def staff_client(client, session, alice):
    set_staff(session, "alice", True)
    session.commit()
    assert login(client).status_code == 302
    return client


def cell_row(page: str, *cells: str) -> bool:
    """Is there a table row whose cells read exactly `cells`?"""
    for row in re.findall(r"<tr>(.*?)</tr>", page, re.S):
        found = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        if found == list(cells):
            return True
    return False


# -- access ------------------------------------------------------------------------
@pytest.mark.parametrize("url", ["/staff", "/staff/status.json"])
def test_anonymous_visitors_are_sent_to_log_in(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login")


@pytest.mark.parametrize("url", ["/staff", "/staff/status.json"])
def test_ordinary_users_get_the_friendly_403(client, alice, url):
    login(client)
    response = client.get(url)
    assert response.status_code == 403
    assert "You are not allowed to do that." in response.get_data(as_text=True)
    assert ">Staff</a>" not in client.get("/").get_data(as_text=True)


def test_revoked_staff_lose_the_page_at_once(staff_client, session):
    assert staff_client.get("/staff").status_code == 200
    set_staff(session, "alice", False)
    session.commit()
    assert staff_client.get("/staff").status_code == 403


# -- the figures ---------------------------------------------------------------------
def test_staff_see_the_figures_of_the_ladder(staff_client, ladder_data):
    response = staff_client.get("/staff")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert ">Staff</a>" in page  # the nav link, for staff only
    scripts = re.findall(r"<script[^>]*>", page)
    assert all("js/site.js" in tag for tag in scripts)  # the site's menu only: no reloading
    assert cell_row(page, "toyrace", "2", "1")  # queued, running
    assert cell_row(page, "oldgame", "0", "1")
    assert cell_row(page, "Last 5 minutes", "2")
    assert cell_row(page, "Last hour", "3")
    assert cell_row(page, "Failed matches", "1")
    assert cell_row(page, "Failed validations", "1")
    assert "the match took too long" in page and FAULT in page
    assert "an old failure" not in page and "ancient" not in page
    assert f'href="/matches/{ladder_data["recent_fail"]}"' in page


def test_status_json_has_the_documented_shape(staff_client, ladder_data):
    response = staff_client.get("/staff/status.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    status = response.get_json()
    assert set(status) == {
        "generated_at",
        "broker_note",
        "queue",
        "workers",
        "isolation_warnings",
        "in_flight",
        "waiting",
        "failures_last_hour",
        "finished",
    }
    assert status["in_flight"]["toyrace"] == {"queued": 2, "running": 1}
    assert status["in_flight"]["oldgame"] == {"queued": 0, "running": 1}
    assert status["finished"] == {"last_hour": 3, "last_5_minutes": 2}
    failures = status["failures_last_hour"]
    assert (failures["matches"], failures["validations"]) == (1, 1)
    # Newest first: the validation failed just now, the match ten minutes ago.
    assert [(f["kind"], f["id"]) for f in failures["recent"]] == [
        ("validation", ladder_data["fresh_bad"]),
        ("match", ladder_data["recent_fail"]),
    ]
    assert failures["recent"][0]["reason"] == f"buggy v1: {FAULT}"
    assert failures["recent"][1]["reason"] == "the match took too long"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", status["generated_at"])


def test_recent_failures_are_capped_at_five_newest(session, config, alice):
    ids = [
        failed_validation(session, config, alice, f"bad{i}", "Validation failed.") for i in range(7)
    ]
    for minutes, ident in enumerate(reversed(ids)):
        age(session, BotVersion, ident, minutes=minutes)
    failures = ladder_status(session, config)["failures_last_hour"]
    assert failures["validations"] == 7
    assert [f["id"] for f in failures["recent"]] == list(reversed(ids))[:5]
    assert failures["recent"][0]["reason"] == "bad6 v1: Validation failed."


def test_an_idle_ladder_lists_every_game_at_zero(session, config):
    status = ladder_status(session, config)
    idle = {"queued": 0, "running": 0}
    assert status["in_flight"] == {name: idle for name in engine.game_names()}
    assert "toyrace" in status["in_flight"]
    assert status["finished"] == {"last_hour": 0, "last_5_minutes": 0}
    assert status["failures_last_hour"] == {"matches": 0, "validations": 0, "recent": []}
    assert status["waiting"]["toyrace"] == {
        "seats": 0,
        "needed": 2,
        "line": "waiting: 0 owners can play, 2 needed",
    }
    assert set(status["waiting"]) == set(engine.game_names())


def test_a_game_short_of_owners_says_it_waits_until_it_has_enough(
    staff_client, session, config, alice, bob
):
    config["HOUSE_USER"] = "demo"
    for name in ("one", "two", "three"):
        make_active_bot(session, config, alice, name=name)
    make_active_bot(session, config, alice, name="m", game="manila")
    house = make_user(session, "demo")
    make_active_bot(session, config, house, name="house-m", game="manila")
    waiting = ladder_status(session, config)["waiting"]
    assert waiting["toyrace"]["line"] == "waiting: 1 owner can play, 2 needed"
    assert waiting["manila"]["line"] == "waiting: 1 owner and 1 house bot can play, 3 needed"
    page = staff_client.get("/staff").get_data(as_text=True)
    assert "toyrace waiting: 1 owner can play, 2 needed" in page
    # A second owner fills toyrace's smallest table; manila still needs a third seat.
    make_active_bot(session, config, bob, name="bobs")
    waiting = ladder_status(session, config)["waiting"]
    assert "toyrace" not in waiting and waiting["manila"]["seats"] == 2
    page = staff_client.get("/staff").get_data(as_text=True)
    assert "toyrace waiting" not in page
    assert "manila waiting: 1 owner and 1 house bot can play, 3 needed" in page


# -- without a broker ------------------------------------------------------------------
def test_no_broker_configured_still_renders_with_a_note(staff_client, app):
    assert app.config["REDIS_URL"] is None
    page = staff_client.get("/staff").get_data(as_text=True)
    assert "no broker configured (REDIS_URL is not set)" in page
    assert '<td class="n" id="queue-depth">—</td>' in page
    assert "none answered" in page
    status = staff_client.get("/staff/status.json").get_json()
    assert status["queue"] == {"name": "celery", "depth": None}
    assert status["workers"] == [] and status["isolation_warnings"] == []
    assert status["broker_note"] == "no broker configured (REDIS_URL is not set)"
    assert "isolation-warning" not in page


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    ("url", "note"),
    [
        (f"redis://127.0.0.1:{closed_port()}/0", "broker unreachable: "),
        ("amqp://127.0.0.1/", "broker URL not understood: "),
    ],
)
def test_an_unreachable_broker_is_a_note_not_a_500(config, session, alice, url, note):
    app = create_app({**config, "REDIS_URL": url})
    client = app.test_client()
    set_staff(session, "alice", True)
    session.commit()
    login(client)
    response = client.get("/staff/status.json")
    assert response.status_code == 200
    status = response.get_json()
    assert status["broker_note"].startswith(note)
    assert status["queue"]["depth"] is None and status["workers"] == []
    page = client.get("/staff")
    assert page.status_code == 200 and note in page.get_data(as_text=True)


# -- worker heartbeats ----------------------------------------------------------------------
def test_a_heartbeat_names_its_workers_isolation():
    from ladder.jobs.heartbeat import beat_value
    from ladder.queries.status import _worker

    value = beat_value({"mode": "cgroup-v2", "warning": None}).encode()
    worker = _worker("deckhand@host", value)
    assert worker["name"] == "deckhand@host" and worker["isolation"] == "cgroup-v2"
    assert worker["warning"] is None and worker["seen_at"].startswith("20")


def test_a_heartbeat_of_an_older_worker_is_a_bare_timestamp():
    from ladder.queries.status import _worker

    assert _worker("old@host", b"2026-11-30T10:00:00.123456") == {
        "name": "old@host",
        "seen_at": "2026-11-30T10:00:00.123456",
        "isolation": None,
        "warning": None,
    }
    assert _worker("odd@host", b"[1, 2]")["isolation"] is None


def test_workers_on_signals_only_are_warned_about():
    from ladder.queries.status import isolation_warnings

    workers = [
        {"name": "a", "isolation": "cgroup-v1", "warning": None},
        {"name": "b", "isolation": "signals", "warning": "no writable cgroup hierarchy"},
        {"name": "c", "isolation": "signals", "warning": None},
        {"name": "d", "isolation": None, "warning": None},
    ]
    assert isolation_warnings(workers) == [
        "b: no writable cgroup hierarchy",
        "c: bots are paused by signals only",
    ]


def test_the_heartbeat_goes_on_when_probing_isolation_fails(monkeypatch):
    import workers
    from ladder.jobs import heartbeat

    def broken():
        raise PermissionError("cgroup.procs")

    monkeypatch.setattr(workers, "isolation", broken)
    assert heartbeat.isolation() is None
    monkeypatch.setattr(workers, "isolation", lambda: {"mode": "signals", "warning": "w"})
    assert heartbeat.isolation() == {"mode": "signals", "warning": "w"}


# -- `ladder staff` ----------------------------------------------------------------------
@pytest.fixture
def cli_env(monkeypatch, config, tmp_path):
    monkeypatch.setenv("DATABASE_URL", config["DATABASE_URL"])
    monkeypatch.setenv("SECRET_KEY", "test-secret")
    monkeypatch.setenv("LADDER_VAR", str(tmp_path))
    monkeypatch.delenv("REDIS_URL", raising=False)


def is_staff(session, name):
    session.expire_all()
    return session.query(User).filter_by(username=name).one().is_staff


def test_cli_grants_and_revokes_staff(cli_env, session, alice, bob):
    runner = CliRunner()
    assert not is_staff(session, "alice")
    result = runner.invoke(main, ["staff", "grant", "alice"])
    assert result.exit_code == 0, result.output
    assert result.output == "alice is now staff\n"
    assert is_staff(session, "alice") and not is_staff(session, "bob")
    result = runner.invoke(main, ["staff", "revoke", "alice"])
    assert result.exit_code == 0, result.output
    assert result.output == "alice is no longer staff\n"
    assert not is_staff(session, "alice")


@pytest.mark.parametrize("action", ["grant", "revoke"])
def test_cli_names_an_unknown_user(cli_env, action):
    result = CliRunner().invoke(main, ["staff", action, "nobody"])
    assert result.exit_code == 1
    assert "Error: no user named 'nobody'" in result.output


def test_cli_needs_a_username():
    result = CliRunner().invoke(main, ["staff", "grant"])
    assert result.exit_code == 2 and "Missing argument 'USERNAME'" in result.output


# -- the migration -------------------------------------------------------------------------
def test_migration_makes_existing_users_not_staff_and_downgrades(empty_database_url):
    url = empty_database_url
    schema.upgrade(url, "bb170ce6ecf0")
    eng = make_engine(url)
    with eng.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO users (username, password_hash, created_at)"
                " VALUES ('old', 'x', '2026-01-01 00:00:00')"
            )
        )
    schema.upgrade(url)
    with eng.connect() as conn:
        assert conn.execute(text("SELECT is_staff FROM users")).scalar_one() in (0, False)
    command.downgrade(schema.alembic_config(url), "bb170ce6ecf0")
    with eng.connect() as conn:
        columns = {c["name"] for c in inspect(conn).get_columns("users")}
        assert "is_staff" not in columns and "username" in columns
        assert conn.execute(text("SELECT username FROM users")).scalar_one() == "old"
    eng.dispose()
