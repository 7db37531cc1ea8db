"""Match and version states: enums whose stored strings never change, read back as equals."""

from __future__ import annotations

import pytest

from ladder.models import (
    IN_FLIGHT,
    LIVE_VERSION_STATES,
    SEAT_STATUSES,
    Match,
    MatchSeat,
    MatchState,
    VersionState,
    VersionTestState,
)
from ladder.services import matches
from ladder.web.api.schemas import enums
from tests.unit.ladder.conftest import make_active_bot, make_user
from workers import SeatStatus


def test_states_are_stored_as_the_strings_the_database_already_holds():
    assert [s.value for s in VersionState] == [
        "pending",
        "validating",
        "active",
        "candidate",
        "failed",
        "retired",
    ]
    assert [s.value for s in MatchState] == ["queued", "running", "finished", "failed"]
    assert IN_FLIGHT == ("queued", "running")
    assert LIVE_VERSION_STATES == ("pending", "validating", "active", "candidate")
    assert [s.value for s in VersionTestState] == ["waiting", "running", "finished", "cancelled"]


def test_a_state_read_back_from_the_database_equals_its_member(session, config, toy_game):
    owners = [make_user(session, name) for name in ("alice", "bob")]
    versions = [make_active_bot(session, config, owner) for owner in owners]
    match = matches.create_match(
        session, config, toy_game, [v.id for v in versions], ranked=False, seed=3
    )
    session.expire_all()
    stored = session.get(Match, match.id).state
    assert type(stored) is str and stored == MatchState.QUEUED and stored in IN_FLIGHT
    assert versions[0].state == VersionState.ACTIVE


def test_seat_statuses_are_the_runners_one_enum():
    assert tuple(status.value for status in SeatStatus) == SEAT_STATUSES
    assert all(type(status) is str for status in SEAT_STATUSES)
    assert enums([])["SeatStatus"]["enum"] == [status.value for status in SeatStatus]
    assert MatchSeat(seat=0, status="timeout").status is SeatStatus.TIMEOUT
    assert MatchSeat(seat=0, status=None).status is None
    with pytest.raises(ValueError, match="asleep"):
        MatchSeat(seat=0, status="asleep")
