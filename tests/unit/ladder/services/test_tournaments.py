"""Tournaments on the service: lifecycle, frozen entries, rounds scheduled as they finish,
standings from the core, ratings untouched (a real SQLite database, no worker)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from ladder.errors import Conflict, Forbidden, ServiceError
from ladder.models import (
    Match,
    MatchState,
    Rating,
    TournamentMatch,
    TournamentState,
)
from ladder.queries import tournaments as tournament_queries
from ladder.services import bots, matches, tournaments
from tests.unit.ladder.conftest import make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for


@pytest.fixture
def staff(session):
    user = make_user(session, "sam")
    user.is_staff = True
    session.commit()
    return user


@pytest.fixture
def house(session, config):
    """Three house bots (the demo account)."""
    demo = make_user(session, "demo")
    return [make_active_bot(session, config, demo, name=f"house{i}") for i in range(3)]


def play_all(session, config, tournament_id, ranks_for=None):
    """Record every queued match of the tournament (seat 0 wins unless told), then advance;
    repeat until nothing is queued. Returns the number of rounds scheduled."""
    while True:
        tournaments.advance(session, config, tournament_id)  # as the worker does after each
        queued = session.scalars(
            select(Match)
            .join(TournamentMatch, TournamentMatch.match_id == Match.id)
            .where(TournamentMatch.tournament_id == tournament_id, Match.state == "queued")
        ).all()
        if not queued:
            break
        for match in queued:
            ranks = (ranks_for or (lambda m: list(range(1, m.players + 1))))(match)
            matches.record_match(session, config, match.id, outcome_for(match, ranks))
    return session.scalar(
        select(TournamentMatch.round)
        .where(TournamentMatch.tournament_id == tournament_id)
        .order_by(TournamentMatch.round.desc())
        .limit(1)
    )


def test_lifecycle_round_robin_to_finished(session, config, staff, alice, bob, house):
    mine = make_active_bot(session, config, alice, name="mine")
    theirs = make_active_bot(session, config, bob, name="theirs")
    ratings_before = {
        r.version_id: (r.mu, r.sigma, r.games) for r in session.scalars(select(Rating))
    }
    t = tournaments.create_tournament(session, staff, "Autumn cup", "toyrace", table_size=3)
    assert t.state == TournamentState.DRAFT
    with pytest.raises(Conflict):
        tournaments.enter(session, alice, t.id, mine.bot_id)  # not open yet
    tournaments.open_tournament(session, staff, t.id)
    tournaments.enter(session, alice, t.id, mine.bot_id)
    tournaments.enter(session, bob, t.id, theirs.bot_id)
    for version in house[:2]:
        tournaments.add_house_bot(session, config, staff, t.id, version.id)
    with pytest.raises(Conflict):
        tournaments.enter(session, alice, t.id, mine.bot_id)
    tournaments.start(session, config, staff, t.id)
    assert t.state == TournamentState.RUNNING
    placed = tournament_queries.slots(session, t.id)
    assert placed and all(not m.ranked for m in placed.values())
    rounds = play_all(session, config, t.id)
    session.refresh(t)
    assert t.state == TournamentState.FINISHED and rounds >= 1
    info = tournament_queries.detail(session, t)
    assert sorted(s["rank"] for s in info["standings"]) == [1, 2, 3, 4]
    assert {s["bot"] for s in info["standings"]} == {"mine", "theirs", "house0", "house1"}
    assert all(s["matches"] > 0 for s in info["standings"])
    assert info["match_counts"]["finished"] == info["match_counts"]["total"]
    every = [m for r in info["schedule"] for tb in r["tables"] for m in tb["matches"]]
    assert every and all(m["match_id"] and m["state"] == "finished" for m in every)
    # No rating moved: tournament matches are unranked.
    after = {r.version_id: (r.mu, r.sigma, r.games) for r in session.scalars(select(Rating))}
    assert after == ratings_before
    assert tournament_queries.bot_tournaments(session, mine.bot_id)[0]["rank"] in (1, 2, 3, 4)


def test_entry_is_frozen_at_the_version_entered(session, config, staff, alice, bob):
    first = make_active_bot(session, config, alice, name="mine")
    t = tournaments.create_tournament(session, staff, "Cup", "toyrace")
    tournaments.open_tournament(session, staff, t.id)
    tournaments.enter(session, alice, t.id, first.bot_id)
    later = make_active_bot(session, config, alice, name="mine")  # a new upload
    assert later.id != first.id
    assert [e.version_id for e in t.entrants] == [first.id]


def test_rules_who_may_do_what(session, config, staff, alice, bob, house):
    with pytest.raises(Forbidden):
        tournaments.create_tournament(session, alice, "Mine", "toyrace")
    with pytest.raises(ServiceError):
        tournaments.create_tournament(session, staff, "", "toyrace")
    with pytest.raises(ServiceError):
        tournaments.create_tournament(session, staff, "Cup", "toyrace", "knockout")
    t = tournaments.create_tournament(session, staff, "Cup", "toyrace")
    tournaments.open_tournament(session, staff, t.id)
    theirs = make_active_bot(session, config, bob, name="theirs")
    with pytest.raises(Forbidden):
        tournaments.enter(session, alice, t.id, theirs.bot_id)
    with pytest.raises(ServiceError):  # not a house bot
        tournaments.add_house_bot(session, config, staff, t.id, theirs.id)
    with pytest.raises(ServiceError):  # one entrant cannot fill a table
        tournaments.enter(session, bob, t.id, theirs.bot_id)
        tournaments.start(session, config, staff, t.id)
    assert t.state == TournamentState.OPEN


def test_swiss_rounds_are_scheduled_one_at_a_time(session, config, staff, house, alice):
    extra = [make_active_bot(session, config, alice, name=f"a{i}") for i in range(3)]
    t = tournaments.create_tournament(
        session, staff, "Swiss", "toyrace", "swiss", table_size=3, rounds=2
    )
    tournaments.open_tournament(session, staff, t.id)
    for v in house:
        tournaments.add_house_bot(session, config, staff, t.id, v.id)
    for v in extra:
        tournaments.enter(session, alice, t.id, v.bot_id)
    tournaments.start(session, config, staff, t.id)
    assert {key[0] for key in tournament_queries.slots(session, t.id)} == {1}
    assert tournaments.advance(session, config, t.id) == []  # nothing new before round 1 ends
    assert play_all(session, config, t.id) == 2
    session.refresh(t)
    assert t.state == TournamentState.FINISHED


def test_elimination_bracket(session, config, staff, house, alice):
    extra = [make_active_bot(session, config, alice, name=f"a{i}") for i in range(3)]
    t = tournaments.create_tournament(
        session, staff, "Knockout", "toyrace", "elimination", table_size=3
    )
    tournaments.open_tournament(session, staff, t.id)
    for v in house:
        tournaments.add_house_bot(session, config, staff, t.id, v.id)
    for v in extra:
        tournaments.enter(session, alice, t.id, v.bot_id)
    tournaments.start(session, config, staff, t.id)
    play_all(session, config, t.id)
    session.refresh(t)
    info = tournament_queries.detail(session, t)
    assert t.state == TournamentState.FINISHED
    assert info["bracket"][-1]["final"] and info["bracket"][-1]["tables"][0]["places"]


def test_cancel_fails_unplayed_matches(session, config, staff, house):
    t = tournaments.create_tournament(session, staff, "Cup", "toyrace", table_size=2)
    tournaments.open_tournament(session, staff, t.id)
    for v in house:
        tournaments.add_house_bot(session, config, staff, t.id, v.id)
    tournaments.start(session, config, staff, t.id)
    tournaments.cancel(session, staff, t.id)
    assert t.state == TournamentState.CANCELLED
    assert {m.state for m in tournament_queries.slots(session, t.id).values()} == {
        MatchState.FAILED
    }
    assert tournaments.advance(session, config, t.id) == []


def test_a_failed_match_counts_as_a_tie_and_the_tournament_goes_on(session, config, staff, house):
    t = tournaments.create_tournament(session, staff, "Cup", "toyrace", table_size=3)
    tournaments.open_tournament(session, staff, t.id)
    for v in house:
        tournaments.add_house_bot(session, config, staff, t.id, v.id)
    tournaments.start(session, config, staff, t.id)
    first = next(iter(tournament_queries.slots(session, t.id).values()))
    matches.fail_match(session, first.id, "3 attempts failed")
    play_all(session, config, t.id)
    session.refresh(t)
    assert t.state == TournamentState.FINISHED


def test_a_worker_that_advances_on_a_stale_read_adds_nothing(session, config, staff, house,
                                                               monkeypatch):  # fmt: skip
    """Two workers advance at once: the second read the schedule before the first stored
    it, so its rows clash with the first's (at a flush inside the loop, not only at commit)."""
    t = tournaments.create_tournament(
        session, staff, "Cup", "toyrace", table_size=3, duplicate=True
    )
    tournaments.open_tournament(session, staff, t.id)
    for v in house:
        tournaments.add_house_bot(session, config, staff, t.id, v.id)
    tournaments.start(session, config, staff, t.id)
    session.commit()
    before = dict(tournament_queries.slots(session, t.id))
    assert len(before) >= 2, "a round of several tables, so the clash comes at a flush"
    monkeypatch.setattr(tournaments, "slots", lambda _session, _tid: {})
    assert tournaments.advance(session, config, t.id) == []
    monkeypatch.undo()
    assert tournament_queries.slots(session, t.id) == before
    assert session.scalar(select(func.count()).select_from(Match)) == len(before)


def test_advance_is_idempotent(session, config, staff, house):
    t = tournaments.create_tournament(session, staff, "Cup", "toyrace", table_size=3)
    tournaments.open_tournament(session, staff, t.id)
    for v in house:
        tournaments.add_house_bot(session, config, staff, t.id, v.id)
    tournaments.start(session, config, staff, t.id)
    count = len(tournament_queries.slots(session, t.id))
    assert tournaments.advance(session, config, t.id) == []
    assert tournaments.advance_running(session, config) == {}
    assert len(tournament_queries.slots(session, t.id)) == count
    assert bots.get_version(session, house[0].id).state == "active"
