"""Work is announced to the workers only once the transaction that made it commits."""

from __future__ import annotations

import pytest

from ladder.broker import announce
from ladder.models import Match
from ladder.services import matches
from tests.unit.ladder.conftest import make_active_bot, make_user


@pytest.fixture
def bots(session, config):
    alice, bob = make_user(session, "alice"), make_user(session, "bob")
    return make_active_bot(session, config, alice, "mine"), make_active_bot(
        session, config, bob, "theirs"
    )


@pytest.fixture
def sent(session):
    calls: list[tuple[str, int]] = []
    announce.listen(session, lambda kind, ident: calls.append((kind, ident)))
    return calls


def test_nothing_is_sent_before_the_commit_and_everything_after(session, sent):
    session.execute(Match.__table__.select().limit(1))  # a transaction is open
    announce.announce(session, "match", 3)
    announce.announce(session, "validate", 4)
    assert sent == []
    session.commit()
    assert sent == [("match", 3), ("validate", 4)]
    session.commit()
    assert sent == [("match", 3), ("validate", 4)], "sent once"


def test_a_rolled_back_transaction_announces_nothing(session, config, bots, sent):
    mine, theirs = bots
    match = matches.create_match(session, config, "toyrace", [mine.id, theirs.id], ranked=True)
    assert match.id is not None and sent == []
    session.rollback()
    assert sent == []
    assert session.get(Match, match.id) is None
    session.commit()
    assert sent == [], "what the rollback dropped never comes back"


def test_outside_a_transaction_the_work_is_committed_already_and_sent_at_once(session, sent):
    session.commit()
    assert not session.in_transaction()
    announce.announce(session, "validate", 9)
    assert sent == [("validate", 9)]


def test_a_session_without_a_sender_announces_nothing_and_quiet_silences_one(session, sent):
    with announce.quiet(session):
        announce.announce(session, "match", 1)
        session.commit()
    assert sent == []
    announce.listen(session, None)
    announce.announce(session, "match", 2)
    session.commit()
    assert sent == []


def test_unknown_work_is_refused(session, sent):
    with pytest.raises(ValueError, match="unknown kind of work 'dance'"):
        announce.announce(session, "dance", 1)


def test_a_match_stores_the_queue_it_was_sent_to(session, config, bots, sent):
    mine, theirs = bots
    ids = [mine.id, theirs.id]
    ladder = matches.create_match(session, config, "toyrace", ids, ranked=True)
    challenge = matches.create_match(
        session, config, "toyrace", ids, ranked=False, kind="challenge"
    )
    session.commit()
    assert (ladder.queue, challenge.queue) == (announce.DEFAULT_QUEUE, announce.CHALLENGE_QUEUE)
    assert sent == [("match", ladder.id), ("challenge", challenge.id)]
    assert announce.kind_of_queue(challenge.queue) == "challenge"
    assert announce.kind_of_queue(announce.TOURNAMENT_QUEUE) == "tournament"
