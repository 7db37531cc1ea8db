"""Challenges cannot starve the ladder: with a real Redis and a real worker, a ladder
match queued behind a flood of challenges is played at once, not after them."""

from __future__ import annotations

import shutil

import pytest
from sqlalchemy import func, select

from ladder.extensions import app_settings
from ladder.models import Match, User
from ladder.services import matches
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

FLOOD = 8


@pytest.fixture
def live(tmp_path):
    ladder = LiveLadder(tmp_path, LADDER_IN_FLIGHT="0")  # only the matches made here
    yield ladder
    ladder.close()


def test_a_ladder_match_queued_behind_a_flood_of_challenges_is_played_first(live):
    game = "meuterer"
    mine = active_version(live, "alice", "mine", GOOD_BOT, game=game)
    opponents = [v for v in house_versions(live, game) if v != mine][:2]
    with live.app.app_context():
        from ladder.extensions import db

        alice = db.session.scalars(select(User).where(User.username == "alice")).one()
        challenges = [
            matches.create_challenge(db.session, app_settings(live.app), alice, mine, opponents).id
            for _ in range(FLOOD)
        ]
        db.session.commit()
    ranked = create_ranked(live, game, [mine, *opponents])
    live.start_worker(concurrency=1)  # one match at a time: the order shows
    everything = [*challenges, ranked]
    wait_until(lambda: all(match_state(live, m) == "finished" for m in everything), 300, "all")
    with live.session() as s:
        started = s.get(Match, ranked).started_at
        before = s.scalar(
            select(func.count(Match.id)).where(Match.id.in_(challenges), Match.started_at < started)
        )
    # One queue for all would play every challenge first (FIFO); a queue each takes turns.
    assert before <= 1, f"{before} of {FLOOD} challenges were played before the ladder match"
