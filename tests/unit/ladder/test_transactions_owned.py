"""Callers own transactions: no service commits or rolls back but the few listed here.

A service flushes and locks; the view, task or CLI command that calls it opens the
unit of work and commits it (`ladder.transactions`). The functions below own their
transactions, each for the reason given (their docstrings say so too), and are
called outside any unit. Queries only read: they never commit, flush or add.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import ladder
from ladder.errors import Conflict, ServiceError
from ladder.extensions import make_engine
from ladder.models import BotVersion, LoginFailure, ThrottleEvent, UserSession
from ladder.services import accounts, bots
from ladder.transactions import unit_of_work
from tests.unit.ladder.conftest import make_user

ROOT = Path(ladder.__file__).parent

# (module, function) -> why it owns its transaction(s).
OWNERS = {
    ("accounts", "register_from"): "a registration try is counted and committed before the"
    " account is made, refused tries too, so simultaneous ones see each other",
    ("accounts", "log_in"): "the failure is committed before the password is checked, so"
    " simultaneous guesses see each other",
    ("accounts", "change_password"): "it checks the current password through `log_in`,"
    " whose throttle commits first",
    ("accounts", "_touch"): "the login path's touch (`session_user` last_seen,"
    " `user_for_token` last_used) runs before any unit is open, in Flask-Login's loader",
    ("bots", "_start_try"): "every upload try counts, as refused until it is stored,"
    " committed before the file is checked",
    ("bots", "_forget_try"): "a try that lost the last accepted place to a simultaneous"
    " upload is uncounted after its unit rolled back, as every 429 is",
    ("bots", "upload_version"): "the try is counted in a transaction of its own first",
    ("house", "house_user"): "an account made at the same moment by another `ladder house`"
    " ends only this transaction, then the name is looked up again",
    ("house", "seed_house_bots"): "each house bot is stored by `upload_version`, which owns"
    " its transactions, then validated in a unit of its own",
    ("playing", "play_match"): "the worker's entry point: start, run for seconds without a"
    " transaction, record",
    ("playing", "_fail_match"): "ends what a failed attempt left, then fails the match",
    ("playing", "fail_struck"): "ends what a worker struck by its time limit left, then fails"
    " the match its attempt still holds",
    ("playing", "release_match"): "the row lock, then the commit that requeues or fails it",
    ("validation", "validate_version"): "the worker's entry point: start, run for seconds"
    " without a transaction, record the verdict",
    ("validation", "_fail_validation"): "ends what a failed attempt left, then stores the verdict",
    ("validation", "release_version"): "the row lock, then the commit that requeues or fails it",
    ("table_play", "play_table"): "the table worker's entry point: nothing stays open while"
    " a person thinks (minutes), then the outcome in a unit of its own",
    ("table_play", "on_step"): "each action a unit of its own, so the web shows it at once",
    ("table_play", "__call__"): "a person's clock committed before the runner waits on Redis",
    ("table_play", "_end"): "ends what a failed table left, then ends the table",
    ("scheduler", "_fill_batch"): "one lock and one commit per batch of matches it makes",
    ("retention", "prune_replays"): "one commit per batch of replays dropped, so a large"
    " prune never holds its row locks long and a run stopped half-way keeps its work",
    ("sweep", "requeue_stale"): "each release on a fresh snapshot, and a last commit that"
    " sends what it announces",
    ("tournaments", "advance"): "called by tasks and beat; the loser of two workers racing"
    " for a round's slots ends only its own transaction",
    ("version_tests", "advance"): "called by tasks and beat, like a tournament's: the site's"
    " share of test matches is counted under a lock held to its commit",
}

TRANSACTIONAL = {"commit", "rollback"}
WRITES = TRANSACTIONAL | {"flush", "add", "add_all", "delete", "merge"}


def calls_in(path: Path) -> list[tuple[str, str, int]]:
    """(function, what it calls, line) for each transaction call or `unit_of_work` use."""
    found = []
    tree = ast.parse(path.read_text(), filename=str(path))
    for defined in ast.walk(tree):
        if not isinstance(defined, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(defined):
            if not isinstance(node, ast.Call):
                continue
            target = node.func
            if isinstance(target, ast.Attribute) and target.attr in WRITES:
                found.append((defined.name, target.attr, node.lineno))
            elif isinstance(target, ast.Name) and target.id == "unit_of_work":
                found.append((defined.name, "unit_of_work", node.lineno))
    return found


def test_only_the_listed_services_own_transactions():
    wrong = []
    for path in sorted((ROOT / "services").glob("*.py")):
        for function, call, line in calls_in(path):
            if call not in TRANSACTIONAL | {"unit_of_work"}:
                continue
            if (path.stem, function) not in OWNERS:
                wrong.append(f"{path.stem}.py:{line} {function} calls {call}")
    assert wrong == [], "a service commits: leave it to the caller's unit of work"


def test_every_listed_owner_exists_and_owns_something():
    owning = {
        (path.stem, function)
        for path in (ROOT / "services").glob("*.py")
        for function, call, _ in calls_in(path)
        if call in TRANSACTIONAL | {"unit_of_work"}
    }
    assert set(OWNERS) - owning == set(), "an owner on the list no longer owns a transaction"


def test_queries_never_write():
    wrong = [
        f"{path.stem}.py:{line} {function} calls {call}"
        for path in sorted((ROOT / "queries").glob("*.py"))
        for function, call, line in calls_in(path)
        if call in WRITES | {"unit_of_work"}
    ]
    assert wrong == []


def test_the_check_sees_a_commit(tmp_path):
    module = tmp_path / "example.py"
    module.write_text(
        "def f(session):\n    session.commit()\n\n"
        "def g(session):\n    with unit_of_work(session):\n        pass\n"
    )
    assert calls_in(module) == [("f", "commit", 2), ("g", "unit_of_work", 5)]


# -- the owners, tested for what they own ------------------------------------------------
def committed_count(config, model, *where) -> int:
    """Rows of `model` another connection sees (what was committed)."""
    eng = make_engine(config["DATABASE_URL"])
    try:
        with Session(eng) as other:
            return other.scalar(select(func.count()).select_from(model).where(*where))
    finally:
        eng.dispose()


def test_an_owner_called_inside_a_unit_is_refused(session, config):
    with unit_of_work(session), pytest.raises(RuntimeError, match="units do not nest"):
        accounts.log_in(session, config, "alice", "wrong password", "1.2.3.4")


def test_a_login_failure_is_committed_before_the_password_is_checked(session, config, monkeypatch):
    make_user(session, "alice")
    seen = []

    def authenticate(_session, _username, _password):
        seen.append(committed_count(config, LoginFailure))
        return None

    monkeypatch.setattr(accounts, "authenticate", authenticate)
    assert accounts.log_in(session, config, "alice", "wrong password", "1.2.3.4") is None
    assert seen == [1], "a simultaneous guess would have seen this one"


def test_a_refused_upload_is_counted_and_committed(session, config, alice):
    with pytest.raises(ServiceError):
        bots.upload_version(session, config, alice, "toyrace", "b", "bot.py", b"def (")
    assert committed_count(config, ThrottleEvent, ThrottleEvent.kind == "upload-refused") == 1
    assert committed_count(config, BotVersion) == 0


def test_a_refused_registration_is_counted_and_committed(session, config):
    make_user(session, "alice")
    with pytest.raises(Conflict):
        accounts.register_from(session, config, "alice", "another password", "1.2.3.4")
    assert committed_count(config, ThrottleEvent, ThrottleEvent.kind == "register") == 1


def test_a_session_touch_joins_an_open_unit_and_commits_alone_otherwise(session, config):
    user = make_user(session, "alice")
    plain = accounts.open_session(session, user, "1.2.3.4", "test")
    session.commit()
    row = session.scalar(select(UserSession))
    row.last_seen_at -= accounts.SESSION_TOUCH * 2
    session.commit()
    before = row.last_seen_at
    with pytest.raises(KeyError), unit_of_work(session):
        assert accounts.session_user(session, str(user.id), plain) is not None
        raise KeyError("the view failed")
    session.expire_all()
    assert session.scalar(select(UserSession.last_seen_at)) == before, "rolled back with it"
    assert accounts.session_user(session, str(user.id), plain) is not None
    assert not session.in_transaction(), "committed at once, alone"
    session.expire_all()
    assert session.scalar(select(UserSession.last_seen_at)) > before
