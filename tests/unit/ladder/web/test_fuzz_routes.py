"""Property test: every route, fed arbitrary text in its query parameters and form
fields, answers anything but a 500.

Each route of the app's URL map is tried with every method it takes, logged in as
a staff member (so login- and staff-only views run their checks too), with CSRF off
(so forms get past their token to their fields) and with an API token. Query and
form names are the app's own (every form field of every FlaskForm, the query
arguments views read) plus arbitrary ones; values are arbitrary text.
"""

from __future__ import annotations

import shutil
import string

import pytest
from flask_wtf import FlaskForm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.orm import Session

import engine
from ladder import create_app
from ladder import settings as ladder_settings
from ladder.extensions import make_engine
from ladder.models import UserSession
from ladder.services import accounts, matches, tournaments
from tests.unit.ladder.conftest import Overrides, make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for, stored_match

QUERY_NAMES = ["page", "per_page", "bot", "game", "view", "start", "count", "next", "format"]
QUERY_NAMES += ["version", "since", "limit"]  # the API's replays zip filters them
SESSION_TOKEN = "fuzz-session-token"
SKIP = {"static"}


def form_field_names() -> list[str]:
    """Every field name of every form the site defines."""
    import ladder.web.accounts.forms
    import ladder.web.bots.forms
    import ladder.web.matches.forms
    import ladder.web.tournaments.forms  # noqa: F401

    names, todo = set(), list(FlaskForm.__subclasses__())
    while todo:
        form = todo.pop()
        todo.extend(form.__subclasses__())
        names.update(name for name, _field in form._unbound_fields or [])
        names.update(k for k, v in vars(form).items() if hasattr(v, "field_class"))
    return sorted(names - {"csrf_token"})


# Values that trip numeric parsing ('²' and '٣' pass str.isdigit()), beside plain
# good ones (so a view gets past its first argument to the next) and any text at all.
TRICKY = ["²", "٣", "-1", " 1", "9" * 30, "", "\x00", "x"]
GOOD = ["1", "2", "toyrace", "manila", "spectator", "round-robin", "on"]
VALUES = (
    st.sampled_from(TRICKY)
    | st.sampled_from(GOOD)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
)


def fields(names: list[str]) -> st.SearchStrategy[dict]:
    """Some of `names` (each maybe left out) and a few arbitrary names, with any values."""
    known = st.fixed_dictionaries({}, optional={name: VALUES for name in names})
    other = st.dictionaries(
        st.text(string.ascii_lowercase + "_", min_size=1, max_size=12), VALUES, max_size=2
    )
    return st.builds(lambda a, b: {**b, **a}, known, other)


@pytest.fixture(scope="module")
def site(tmp_path_factory, migrated_template):
    """One app and its data for every example of the module (built once: it is slow)."""
    tmp = tmp_path_factory.mktemp("fuzz")
    shutil.copy(migrated_template, tmp / "ladder.sqlite3")
    env = {"LADDER_VAR": str(tmp), "SECRET_KEY": "fuzz"}
    config = Overrides()
    config.update(ladder_settings.Settings.from_env(env).as_config())
    config.update(
        TESTING=True,
        WTF_CSRF_ENABLED=False,
        DATABASE_URL=f"sqlite:///{tmp / 'ladder.sqlite3'}",
        REPLAY_DIR=str(tmp / "replays"),
        UPLOAD_DIR=str(tmp / "uploads"),
        STARTER_DIR=str(tmp / "starter"),
        # Limits are not under test here; a 429 is fine, but runs should reach the views.
        UPLOADS_PER_HOUR=100_000,
        REFUSED_UPLOADS_PER_HOUR=100_000,
        REGISTRATIONS_PER_HOUR=100_000,
        CHALLENGES_PER_HOUR=100_000,
        CHALLENGES_IN_FLIGHT=100_000,
    )
    eng = make_engine(config["DATABASE_URL"])
    with pytest.MonkeyPatch.context() as patch, Session(eng, expire_on_commit=False) as s:
        patch.setitem(engine._GAMES, "toyrace", "tests.unit.ladder.toygame")
        alice, bob = make_user(s, "alice"), make_user(s, "bob")
        alice.is_staff = True
        s.add(UserSession(user_id=alice.id, token_hash=accounts._digest(SESSION_TOKEN)))
        s.commit()
        mine = make_active_bot(s, config, alice, name="mine")
        theirs = make_active_bot(s, config, bob, name="theirs")
        played, _record = stored_match(s, config, [alice, bob, alice])
        toy = matches.create_match(s, config, "toyrace", [mine.id, theirs.id], ranked=True)
        matches.record_match(s, config, toy.id, outcome_for(toy, [1, 2]))
        cup = tournaments.create_tournament(s, alice, "Cup", "toyrace", "round-robin", seed=2)
        _token, plain = accounts.create_token(s, alice, "fuzz")
        ids = {
            "match_id": played.id,
            "bot_id": mine.bot_id,
            "version_id": mine.id,
            "token_id": _token.id,
            "tournament_id": cup.id,
        }
    eng.dispose()
    app = create_app(config)
    return {"app": app, "ids": ids, "token": plain, "alice": alice.id}


def routes() -> list[tuple[str, str]]:
    app = create_app({"SECRET_KEY": "x", "DATABASE_URL": "sqlite://"})
    found = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint in SKIP:
            continue
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            found.append((rule.endpoint, method))
    return found


def url_for_rule(app, endpoint: str, ids: dict) -> str:
    rule = next(r for r in app.url_map.iter_rules() if r.endpoint == endpoint)
    values = {}
    for arg in rule.arguments:
        values[arg] = "toyrace" if arg == "game" else ids.get(arg, 1)
    with app.test_request_context():
        from flask import url_for

        return url_for(endpoint, **values)


@pytest.mark.parametrize(("endpoint", "method"), routes())
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
@given(query=fields(QUERY_NAMES), form=fields(form_field_names()))
def test_no_route_answers_500_to_arbitrary_text(site, endpoint, method, query, form):
    app = site["app"]
    client = app.test_client()
    with client.session_transaction() as cookie:  # logged in as alice, staff, every time
        cookie["_user_id"] = str(site["alice"])
        cookie["_fresh"] = True
        cookie["sid"] = SESSION_TOKEN
    _keep_session_alive(app, site["alice"])
    url = url_for_rule(app, endpoint, site["ids"])
    headers = {"Authorization": f"Bearer {site['token']}"}
    data = form if method != "GET" else None
    with client.open(url, method=method, query_string=query, data=data, headers=headers) as r:
        status, body = r.status_code, r.get_data()[:500]  # (files are streamed: closed here)
    assert status != 500, (method, url, query, form, body)


def _keep_session_alive(app, user_id: int) -> None:
    """Put back alice's session and token if an example logged her out or revoked them."""
    from sqlalchemy import select, update

    from ladder.models import ApiToken

    eng = make_engine(app.config["DATABASE_URL"])
    with Session(eng) as s:
        digest = accounts._digest(SESSION_TOKEN)
        if s.scalar(select(UserSession.id).where(UserSession.token_hash == digest)) is None:
            s.add(UserSession(user_id=user_id, token_hash=digest))
        s.execute(update(ApiToken).values(revoked=False))
        s.commit()
    eng.dispose()
