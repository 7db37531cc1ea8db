"""A unit of work: the caller's one transaction, committed at the end or rolled back."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from ladder.broker import announce
from ladder.models import User
from ladder.services import accounts
from ladder.transactions import in_unit, unit_of_work


@pytest.fixture
def sent(session):
    calls: list[tuple[str, int]] = []
    announce.listen(session, lambda kind, ident: calls.append((kind, ident)))
    return calls


def names(config) -> list[str]:
    """The usernames another connection sees (what was committed)."""
    from sqlalchemy.orm import Session

    from ladder.extensions import make_engine

    eng = make_engine(config["DATABASE_URL"])
    try:
        with Session(eng) as other:
            return list(other.scalars(select(User.username).order_by(User.username)))
    finally:
        eng.dispose()


def test_the_unit_commits_at_its_end(session, config):
    with unit_of_work(session):
        accounts.register(session, "alice", "correct horse")
        assert in_unit(session)
    assert not in_unit(session) and not session.in_transaction()
    assert names(config) == ["alice"]


def test_an_error_rolls_the_whole_unit_back_and_reaches_the_caller(session, config):
    with pytest.raises(KeyError), unit_of_work(session):
        accounts.register(session, "alice", "correct horse")
        raise KeyError("boom")
    assert not in_unit(session) and not session.in_transaction()
    assert names(config) == []
    with unit_of_work(session):  # and the session is usable again
        accounts.register(session, "bob", "correct horse")
    assert names(config) == ["bob"]


def test_a_base_exception_rolls_back_too(session, config):
    with pytest.raises(KeyboardInterrupt), unit_of_work(session):
        accounts.register(session, "alice", "correct horse")
        raise KeyboardInterrupt
    assert names(config) == []


def test_units_do_not_nest(session, config):
    with unit_of_work(session):
        accounts.register(session, "alice", "correct horse")
        with pytest.raises(RuntimeError, match="units do not nest"), unit_of_work(session):
            pass
        assert in_unit(session), "the outer unit is still open"
    assert names(config) == ["alice"]


def test_a_read_transaction_begun_before_becomes_part_of_the_unit(session, config):
    session.scalars(select(User.id)).all()  # as Flask-Login's loader does
    assert session.in_transaction()
    with unit_of_work(session):
        accounts.register(session, "alice", "correct horse")
    assert names(config) == ["alice"]


def test_work_is_announced_only_on_the_units_commit(session, sent):
    with unit_of_work(session):
        announce.announce(session, "match", 3)
        assert sent == []
    assert sent == [("match", 3)]


def test_a_rolled_back_unit_announces_nothing(session, sent):
    with pytest.raises(ValueError), unit_of_work(session):
        announce.announce(session, "match", 3)
        raise ValueError("refused")
    session.commit()
    assert sent == []
