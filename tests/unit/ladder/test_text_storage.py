"""Text a bot or a visitor sends is stored whole on both databases.

PostgreSQL's text types cannot hold a NUL character (SQLite's can): a bot that
wrote one to stderr made the whole recording transaction fail there, and a login
name with one was a 500. The engine stores U+FFFD in its place instead.
"""

from __future__ import annotations

from ladder.models import Match
from ladder.services import matches
from tests.unit.ladder.conftest import csrf_token, make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for


def test_a_bots_stderr_and_error_with_nul_characters_are_recorded(session, config):
    players = [make_user(session, name) for name in ("ann", "ben")]
    versions = [make_active_bot(session, config, u, name=f"{u.username}-bot") for u in players]
    match = matches.create_match(session, config, "toyrace", [v.id for v in versions], ranked=True)
    outcome = outcome_for(match, [1, 2], statuses=["ok", "invalid"])
    outcome["stderr"] = ["before\x00after", None]
    outcome["errors"] = [None, "unparsable output: '\x00\x00'"]

    matches.record_match(session, config, match.id, outcome)

    session.expire_all()
    recorded = session.get(Match, match.id)
    assert recorded.state == "finished"
    stderr, error = recorded.seats[0].stderr, recorded.seats[1].error
    if session.bind.dialect.name == "postgresql":
        assert (stderr, error) == ("before\ufffdafter", "unparsable output: '\ufffd\ufffd'")
    else:
        assert (stderr, error) == ("before\x00after", "unparsable output: '\x00\x00'")


def test_a_login_name_with_a_nul_character_is_refused_like_any_wrong_name(client, alice):
    def login_as(username):
        token = csrf_token(client, "/login")
        form = {"username": username, "password": "wrong horse", "csrf_token": token}
        return client.post("/login", data=form)

    wrong, with_nul = login_as("alicia"), login_as("ali\x00ce")
    assert with_nul.status_code == wrong.status_code == 400
    assert "wrong username or password" in with_nul.get_data(as_text=True)
