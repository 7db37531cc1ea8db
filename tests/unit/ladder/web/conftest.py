"""Fixtures for the web tests (the app, users and bots come from tests/unit/ladder)."""

from __future__ import annotations

import pytest

from ladder.queries import tournaments as tournament_queries
from ladder.services import accounts, matches, tournaments
from tests.unit.ladder.conftest import make_active_bot
from tests.unit.ladder.helpers import outcome_for


@pytest.fixture
def world(session, config, alice, bob):
    """Two users with active bots, one finished rated match, a queued challenge and a
    running tournament (id 1) with a match played, so generated calls reach one.

    The API's tests and its OpenAPI checks share it; test_bot_author.py has a `world`
    of its own, which overrides this one there.
    """
    a = make_active_bot(session, config, alice, name="anchor")
    b = make_active_bot(session, config, bob, name="<script>x</script>")
    a.validation_log = "alice's private log"
    session.commit()
    match = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True, seed=4)
    matches.record_match(session, config, match.id, outcome_for(match, [1, 2]))
    queued = matches.create_challenge(session, config, alice, a.id, [b.id], seed=5)
    session.commit()
    alice.is_staff = True
    cup = tournaments.create_tournament(session, alice, "Cup", "toyrace", "elimination", seed=2)
    tournaments.open_tournament(session, alice, cup.id)
    tournaments.enter(session, alice, cup.id, a.bot_id)
    tournaments.enter(session, bob, cup.id, b.bot_id)
    tournaments.start(session, config, alice, cup.id)
    session.commit()
    first = next(iter(tournament_queries.slots(session, cup.id).values()))
    matches.record_match(session, config, first.id, outcome_for(first, [2, 1]))
    _token, alice_token = accounts.create_token(session, alice, "tests")
    _token, bob_token = accounts.create_token(session, bob, "tests")
    session.commit()
    return {
        "alice": {"Authorization": f"Bearer {alice_token}"},
        "bob": {"Authorization": f"Bearer {bob_token}"},
        "a": a,
        "b": b,
        "match": match,
        "queued": queued,
    }
