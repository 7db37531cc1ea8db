"""Each version's rated matches by table size and seat: counted once as matches are rated,
agreeing with a count made afresh from the seats (the migration's own statement), read
by the scheduler to balance the mix and by the bot page as its record."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

from sqlalchemy import delete, select, text

from ladder.models import Match, SeatRecord
from ladder.queries import candidates
from ladder.queries.table_mix import table_record
from ladder.services import matches, scheduler
from tests.unit.ladder.conftest import make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for

MIGRATION = next(Path(__file__).parents[4].glob("ladder/migrations/versions/*_seat_records.py"))


def _migration():
    spec = importlib.util.spec_from_file_location("seat_records_migration", MIGRATION)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _kept(session) -> dict[tuple[int, int, int], tuple[int, int, int, int]]:
    return {
        (r.version_id, r.players, r.seat): (r.games, r.wins, r.rank_sum, r.faults)
        for r in session.scalars(select(SeatRecord))
    }


def _owners(session, config, count):
    users = [make_user(session, f"owner{i}") for i in range(count)]
    return [make_active_bot(session, config, u, name=f"bot{i}") for i, u in enumerate(users)]


def _record(session, config, table, ranks, statuses=None, ranked=True, rated=True):
    match = matches.create_match(session, config, "toyrace", [v.id for v in table], ranked=ranked)
    outcome = outcome_for(match, ranks, statuses)
    if not rated:
        outcome.update(rated=False, unrated_reason="the worker's host ran out of memory")
    matches.record_match(session, config, match.id, outcome)
    session.commit()
    return match


def test_rating_counts_each_seat_once_as_a_fresh_count_of_the_seats_finds(session, config):
    a, b, c = _owners(session, config, 3)
    _record(session, config, [a, b], [1, 2])
    _record(session, config, [b, a, c], [1, 1, 3], ["ok", "ok", "crash"])
    again = _record(session, config, [a, b], [2, 1])
    # Recording a match again (a second worker) changes nothing.
    matches.record_match(session, config, again.id, outcome_for(again, [2, 1]))
    session.commit()
    kept = _kept(session)
    assert kept == {
        (a.id, 2, 0): (2, 1, 3, 0),
        (b.id, 2, 1): (2, 1, 3, 0),
        (b.id, 3, 0): (1, 1, 1, 0),
        (a.id, 3, 1): (1, 1, 1, 0),
        (c.id, 3, 2): (1, 0, 3, 1),
    }
    session.execute(delete(SeatRecord))
    session.execute(text(_migration().COUNT_RATED))
    assert _kept(session) == kept


def test_only_rated_ladder_matches_count(session, config):
    a, b = _owners(session, config, 2)
    _record(session, config, [a, b], [1, 2], ranked=False)  # a challenge
    _record(session, config, [a, b], [1, 2], rated=False)  # void: the host failed
    queued = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True)
    session.commit()
    assert session.get(Match, queued.id).finished_at is None
    assert _kept(session) == {}


def test_the_record_by_table_size_and_seat(session, config):
    a, b, c = _owners(session, config, 3)
    _record(session, config, [a, b], [1, 2])
    _record(session, config, [b, a], [1, 2])
    _record(session, config, [a, b, c], [3, 1, 2], ["crash", "ok", "ok"])
    record = table_record(session, a.bot_id, "toyrace")
    assert record["games"] == 3
    assert record["sizes"] == [
        {"players": 2, "games": 2, "wins": 1, "mean_rank": 1.5, "faults": 0}
        | {"share": 0.667, "target": 0.222},
        {"players": 3, "games": 1, "wins": 0, "mean_rank": 3.0, "faults": 1}
        | {"share": 0.333, "target": 0.333},
        {"players": 4, "games": 0, "wins": 0, "mean_rank": None, "faults": 0}
        | {"share": 0.0, "target": 0.444},
    ]
    seats = {(s["players"], s["seat"]): s for s in record["seats"]}
    assert len(seats) == 2 + 3 + 4  # every seat of every size, played or not
    assert seats[(2, 0)] | {} == {"players": 2, "seat": 0, "games": 1, "wins": 1} | {
        "mean_rank": 1.0,
        "faults": 0,
        "share": 0.5,
        "target": 0.5,
    }
    assert seats[(3, 0)]["games"] == 1 and seats[(3, 0)]["share"] == 1.0
    assert seats[(4, 3)] == {"players": 4, "seat": 3, "games": 0, "wins": 0} | {
        "mean_rank": None,
        "faults": 0,
        "share": None,
        "target": 0.25,
    }


def test_a_bot_that_never_played_has_an_empty_record(session, config):
    (a,) = _owners(session, config, 1)
    record = table_record(session, a.bot_id, "toyrace")
    assert record["games"] == 0
    assert [s["share"] for s in record["sizes"]] == [None, None, None]
    assert all(s["games"] == 0 for s in record["seats"])


def test_the_record_adds_up_every_version_of_the_bot(session, config):
    a, b = _owners(session, config, 2)
    _record(session, config, [a, b], [1, 2])
    newer = make_active_bot(session, config, a.bot.owner, name="bot0")  # version 2
    _record(session, config, [newer, b], [2, 1])
    sizes = table_record(session, a.bot_id, "toyrace")["sizes"]
    assert sizes[0]["games"] == 2 and sizes[0]["wins"] == 1


def test_the_scheduler_reads_the_mixes_and_seats_the_size_the_bots_lack(session, config):
    versions = _owners(session, config, 4)
    # Every bot has played only tables of 3 and 4: a table of 2 is what they lack.
    session.add_all(
        SeatRecord(version_id=v.id, players=p, seat=0, games=20, wins=0, rank_sum=40, faults=0)
        for v in versions
        for p in (3, 4)
    )
    session.commit()
    played = candidates.ladder_played(session, "toyrace")
    assert played == {v.id: {(3, 0): 20, (4, 0): 20} for v in versions}
    config["LADDER_IN_FLIGHT"] = 2
    for seed in range(5):
        made = scheduler.schedule_ladder(session, config, random.Random(seed))
        assert [session.get(Match, m).players for m in made] == [2, 2]
        session.execute(delete(Match).where(Match.id.in_(made)))
        session.commit()


def test_a_retired_bot_is_left_out_of_the_mixes_read(session, config):
    a, b = _owners(session, config, 2)
    _record(session, config, [a, b], [1, 2])
    a.bot.retired_at = a.created_at
    session.commit()
    assert set(candidates.ladder_played(session, "toyrace")) == {b.id}
