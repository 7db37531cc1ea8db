"""Head to head is counted as each result is recorded, once, and always agrees with a
count made afresh from the recorded seats (the migration's own statement)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from sqlalchemy import delete, select, text

from ladder.models import HeadToHead
from ladder.queries import boards
from ladder.services import matches
from ladder.services.head_to_head import pairs
from tests.unit.ladder.conftest import make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for

MIGRATION = next(Path(__file__).parents[4].glob("ladder/migrations/versions/*_head_to_head.py"))


def _migration():
    spec = importlib.util.spec_from_file_location("head_to_head_migration", MIGRATION)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _kept(session) -> dict[tuple[int, int], tuple[int, int, int, int]]:
    rows = session.scalars(select(HeadToHead)).all()
    return {(r.bot_id, r.opponent_id): (r.met, r.ahead, r.behind, r.tied) for r in rows}


@pytest.mark.parametrize(
    ("seats", "expected"),
    [
        # (bot, rank) per seat -> (bot, opponent): met, ahead, behind, tied
        ([(1, 1), (2, 2)], {(1, 2): (1, 1, 0, 0), (2, 1): (1, 0, 1, 0)}),
        ([(1, 2), (2, 2)], {(1, 2): (1, 0, 0, 1), (2, 1): (1, 0, 0, 1)}),
        (
            [(1, 3), (2, 1), (3, 2)],
            {
                (1, 2): (1, 0, 1, 0),
                (1, 3): (1, 0, 1, 0),
                (2, 1): (1, 1, 0, 0),
                (2, 3): (1, 1, 0, 0),
                (3, 1): (1, 1, 0, 0),
                (3, 2): (1, 0, 1, 0),
            },
        ),
        # a bot in two seats never meets itself, and meets each opponent once a seat
        ([(1, 1), (1, 3), (2, 2)], {(1, 2): (2, 1, 1, 0), (2, 1): (2, 1, 1, 0)}),
        ([(1, 1)], {}),
    ],
)
def test_pairs_of_one_match(seats, expected):
    got = {pair: (t["met"], t["ahead"], t["behind"], t["tied"]) for pair, t in pairs(seats).items()}
    assert got == expected


def test_recording_keeps_what_a_fresh_count_of_the_seats_finds(session, config):
    owners = [make_user(session, name) for name in ("ann", "ben", "cyd")]
    versions = [make_active_bot(session, config, o, name=f"{o.username}-bot") for o in owners]
    a, b, c = versions
    for table, ranks in [([a, b], [1, 2]), ([a, b, c], [2, 2, 1]), ([c, a], [1, 2])]:
        match = matches.create_match(session, config, "toyrace", [v.id for v in table], ranked=True)
        matches.record_match(session, config, match.id, outcome_for(match, ranks))
        session.commit()
        # Recording the same match again (a second worker) changes nothing.
        matches.record_match(session, config, match.id, outcome_for(match, ranks))
        session.commit()
    kept = _kept(session)
    assert kept[(a.bot_id, b.bot_id)] == (2, 1, 0, 1)
    assert kept[(a.bot_id, c.bot_id)] == (2, 0, 2, 0)
    assert kept[(c.bot_id, a.bot_id)] == (2, 2, 0, 0)
    session.execute(delete(HeadToHead))
    session.execute(text(_migration().COUNT_RECORDED))
    assert _kept(session) == kept
    shown = boards.head_to_head(session, a.bot_id)
    assert [(o["bot"], o["matches"], o["ahead"], o["behind"], o["tied"]) for o in shown] == [
        ("ben-bot", 2, 1, 0, 1),
        ("cyd-bot", 2, 0, 2, 0),
    ]


def test_a_match_not_yet_recorded_is_not_counted(session, config):
    a = make_active_bot(session, config, make_user(session, "ann"), name="a")
    b = make_active_bot(session, config, make_user(session, "ben"), name="b")
    matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True)
    session.commit()
    assert _kept(session) == {}
    assert boards.head_to_head(session, a.bot_id) == []
