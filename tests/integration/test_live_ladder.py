"""The running ladder with a real Redis, real Celery workers and the real sandbox."""

from __future__ import annotations

import gzip
import io
import itertools
import json
import shutil

import pytest
from sqlalchemy import func, select

import engine
from ladder.cli.processes import worker_command
from ladder.extensions import app_settings
from ladder.models import BotVersion, Match, MatchSeat, Rating, RatingHistory
from ladder.services import accounts, bots
from ladder.services.house import seed_house_bots
from tests.integration.conftest import needs_bwrap
from tests.integration.live import (
    GOOD_BOT,
    LiveLadder,
    active_version,
    create_ranked,
    house_versions,
    match_state,
    wait_until,
)

pytestmark = [
    pytest.mark.integration,
    needs_bwrap,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]

CRASHING_BOT = b"""
def act(view, legal):
    raise RuntimeError("my strategy has a bug")
"""

# Thinks a while on every move, so a match lasts long enough to kill its worker.
SLOW_BOT = b"""
import time

def act(view, legal):
    time.sleep(0.05)
    return legal[0]
"""


@pytest.fixture
def ladder(tmp_path, live_database_url):
    # One match in flight per game: the new bot's second match is not queued behind
    # eleven others (each takes seconds when the machine is busy).
    live = LiveLadder(tmp_path, live_database_url, LADDER_IN_FLIGHT="1")
    yield live
    live.close()


@pytest.fixture
def still_ladder(tmp_path, live_database_url):
    """A ladder whose scheduler starts no matches of its own (it still requeues)."""
    live = LiveLadder(tmp_path, live_database_url, LADDER_IN_FLIGHT="0")
    yield live
    live.close()


# Each story on one database, to keep CI short: the unit tests run every query on both.
# The whole path from an upload to a download on PostgreSQL, production's (the site's
# browser tests upload on SQLite, and `ladder run` plays on it); a failed validation on
# SQLite. The row locks and the lost lease below are PostgreSQL's story alone: SQLite's
# writers take turns (the chaos test kills workers on PostgreSQL too).
on_postgresql = pytest.mark.parametrize("live_database_url", ["postgresql"], indirect=True)
on_sqlite = pytest.mark.parametrize("live_database_url", ["sqlite"], indirect=True)


def version_state(live, version_id):
    with live.session() as s:
        return s.get(BotVersion, version_id).state


@on_postgresql
def test_upload_validate_play_rate_and_download_the_replay(ladder):
    ladder.start_worker()
    client = ladder.app.test_client()
    with ladder.app.app_context():
        from ladder.extensions import db

        accounts.register(db.session, "alice", "correct horse")
        db.session.commit()
        seed_house_bots(db.session, app_settings(ladder.app))
    client.post("/login", data={"username": "alice", "password": "correct horse"})
    page = client.post(
        "/bots/upload",
        data={"game": "manila", "name": "passer", "file": (io.BytesIO(GOOD_BOT), "bot.py")},
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert page.status_code == 200
    with ladder.session() as s:
        version_id = s.scalar(select(func.max(BotVersion.id)))
    wait_until(lambda: version_state(ladder, version_id) == "active", 60, "validation")
    with ladder.session() as s:
        assert "Validation passed" in s.get(BotVersion, version_id).validation_log

    ladder.start_beat()  # the scheduler now puts the new bot on the ladder

    def rated_games():
        with ladder.session() as s:
            rating = s.get(Rating, version_id)
            return rating.games if rating else 0

    wait_until(lambda: rated_games() >= 1, 180, "a rated match of the new bot")
    board = client.get("/leaderboard/manila").get_data(as_text=True)
    assert "passer" in board
    with ladder.session() as s:
        match_id = s.scalar(
            select(MatchSeat.match_id)
            .join(Match)
            .where(MatchSeat.version_id == version_id, Match.state == "finished")
            .limit(1)
        )
    with client.get(f"/matches/{match_id}/replay.json.gz") as download:
        assert download.status_code == 200
        record = json.loads(gzip.decompress(download.data))
    rebuilt = engine.replay(record)
    assert rebuilt.is_over() and rebuilt.result()["scores"] == record["result"]["scores"]


@on_sqlite
def test_a_failing_bot_ends_failed_with_its_log(ladder):
    ladder.start_worker()
    with ladder.app.app_context():
        from ladder.extensions import db

        user = accounts.register(db.session, "bob", "correct horse")
        db.session.commit()
        version = bots.upload_version(
            db.session, app_settings(ladder.app), user, "manila", "buggy", "bot.py", CRASHING_BOT
        )
    wait_until(lambda: version_state(ladder, version.id) == "failed", 60, "a failed validation")
    with ladder.session() as s:
        text = s.get(BotVersion, version.id).validation_log
        assert s.get(Rating, version.id) is None  # never on the ladder
    assert "Your bot: crash" in text and "my strategy has a bug" in text


@on_postgresql
def test_a_worker_killed_mid_match_loses_nothing(still_ladder):
    ladder = still_ladder
    ladder.start_worker("first")
    slow = active_version(ladder, "carol", "slow", SLOW_BOT)
    house = [v for v in house_versions(ladder, "manila") if v != slow][:2]
    match_id = create_ranked(ladder, "manila", [slow, *house], seed=11)
    wait_until(lambda: match_state(ladder, match_id) == "running", 30, "the match to start")
    ladder.kill("first")  # SIGKILL: no clean-up, no acknowledgement
    assert match_state(ladder, match_id) == "running"

    ladder.start_worker("second")
    ladder.start_beat()  # finds the lapsed lease and hands the match out again
    wait_until(lambda: match_state(ladder, match_id) == "finished", 90, "the match to be replayed")
    assert "requeue" in ladder.log("second")  # the schedule task ran on the new worker
    with ladder.session() as s:
        assert s.get(Match, match_id).attempts == 2  # the dead worker's start counted
        seats = s.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id)).all()
        assert all(seat.rank is not None and seat.mu_after is not None for seat in seats)
        history = s.scalar(
            select(func.count(RatingHistory.id)).where(RatingHistory.match_id == match_id)
        )
        assert history == len(seats)  # recorded exactly once
        assert all(s.get(Rating, seat.version_id).games == 1 for seat in seats)


WORKERS = ("one", "two", "three", "four")


@on_postgresql
def test_four_workers_recording_at_once_lose_no_rating_update(still_ladder):
    """Four worker processes record matches of the same three bots at once: every rating
    update is kept (rows locked in order; on PostgreSQL by SELECT ... FOR UPDATE)."""
    ladder = still_ladder
    for name in WORKERS:  # started together, then waited for: a quicker start
        ladder.start(name, [*worker_command(1), "--hostname", f"{name}@%h"])
    for name in WORKERS:
        ladder.wait_for_log(name, " ready.")
    versions = house_versions(ladder, "manila")
    assert len(versions) >= 3
    # One seed: the matches last equally long, so those started together are recorded
    # together. Without the row locks PostgreSQL lost about a third of the updates here.
    ids = [create_ranked(ladder, "manila", versions[:3], seed=100) for _ in range(16)]
    wait_until(
        lambda: all(match_state(ladder, m) == "finished" for m in ids), 180, "all sixteen matches"
    )
    # Each worker holds one task at a time (prefetch 1), so each took some of the matches.
    assert all("match played" in ladder.log(name) for name in WORKERS)
    with ladder.session() as s:
        for version_id in versions[:3]:
            assert s.get(Rating, version_id).games == len(ids)
            rows = s.scalars(
                select(RatingHistory)
                .where(RatingHistory.version_id == version_id)
                .order_by(RatingHistory.id)
            ).all()
            assert len(rows) == len(ids)
            # Each match started from the rating the previous one left: none was lost.
            for before, after in itertools.pairwise(rows):
                seat = s.scalar(
                    select(MatchSeat).where(
                        MatchSeat.match_id == after.match_id, MatchSeat.version_id == version_id
                    )
                )
                assert seat.mu_before == pytest.approx(before.mu)
                assert seat.mu_after == pytest.approx(after.mu)
