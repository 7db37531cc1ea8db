"""A small tournament end to end on the service: a real Redis, a real Celery worker
consuming the tournament queue, the real sandbox. Create, enter, start, every round
played, standings on the page and in the API, ladder ratings unchanged."""

from __future__ import annotations

import shutil

import pytest
from sqlalchemy import select

from ladder.extensions import app_settings
from ladder.models import Match, Rating, TournamentMatch, User
from ladder.queries import tournaments as tournament_queries
from ladder.services import accounts, tournaments
from tests.integration.conftest import needs_bwrap
from tests.integration.live import (
    GOOD_BOT,
    LiveLadder,
    active_version,
    house_versions,
    wait_until,
)

pytestmark = [
    pytest.mark.integration,
    needs_bwrap,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]


@pytest.fixture
def live(tmp_path, live_database_url):
    # No ladder matches of its own: every match played here is the tournament's.
    ladder = LiveLadder(tmp_path, live_database_url, LADDER_IN_FLIGHT="0")
    yield ladder
    ladder.close()


def ratings(live) -> dict:
    with live.session() as s:
        return {r.version_id: (r.mu, r.sigma, r.games) for r in s.scalars(select(Rating))}


# Swiss (rounds made from results, by whichever worker records last) on PostgreSQL, round
# robin on SQLite (`make run`'s default), to keep the suite's time.
@pytest.mark.parametrize(
    ("format", "live_database_url"),
    [("round-robin", "sqlite"), ("swiss", "postgresql")],
    indirect=["live_database_url"],
)
def test_a_tournament_runs_to_the_end_on_the_workers(live, format):
    game = "meuterer"
    mine = active_version(live, "alice", "mine", GOOD_BOT, game=game)
    house = [v for v in house_versions(live, game) if v != mine]
    before = ratings(live)
    with live.app.app_context():
        from ladder.extensions import db

        staff = accounts.register(db.session, "sam", "correct horse")
        db.session.commit()
        staff.is_staff = True
        db.session.commit()
        alice = db.session.scalars(select(User).where(User.username == "alice")).one()
        rounds = 2 if format == "swiss" else None
        t = tournaments.create_tournament(
            db.session, staff, "Live cup", game, format, table_size=3, rounds=rounds, seed=5
        )
        tournaments.open_tournament(db.session, staff, t.id)
        db.session.commit()
        mine_bot = next(b for b in alice.bots if b.name == "mine")
        tournaments.enter(db.session, alice, t.id, mine_bot.id)
        db.session.commit()
        for version_id in house[:3]:
            tournaments.add_house_bot(db.session, app_settings(live.app), staff, t.id, version_id)
            db.session.commit()
        tournament_id = t.id
    live.start_worker()
    with live.app.app_context():
        from ladder.extensions import db

        staff = db.session.get(User, staff.id)
        tournaments.start(db.session, app_settings(live.app), staff, tournament_id)
        db.session.commit()

    def finished():
        with live.app.app_context():
            from ladder.extensions import db

            return tournament_queries.get_tournament(db.session, tournament_id).state == "finished"

    wait_until(finished, 240, "every round of the tournament played")
    assert "tournaments" in live.log("worker")  # the worker consumed the tournament queue
    with live.session() as s:
        played = s.scalars(
            select(Match)
            .join(TournamentMatch, TournamentMatch.match_id == Match.id)
            .where(TournamentMatch.tournament_id == tournament_id)
        ).all()
        rounds_played = {
            tm.round
            for tm in s.scalars(
                select(TournamentMatch).where(TournamentMatch.tournament_id == tournament_id)
            )
        }
    assert played and all(m.state == "finished" and not m.ranked for m in played)
    assert all(m.replay_key for m in played)
    if format == "swiss":
        assert rounds_played == {1, 2}
    client = live.app.test_client()
    page = client.get(f"/tournaments/{tournament_id}").get_data(as_text=True)
    assert "Standings" in page and "mine" in page
    assert f'href="/matches/{played[0].id}"' in page
    standings = client.get(f"/api/v1/tournaments/{tournament_id}/standings").get_json()
    assert standings["state"] == "finished"
    assert sorted(s["rank"] for s in standings["standings"]) == [1, 2, 3, 4]
    assert sum(s["matches"] for s in standings["standings"]) == 3 * len(played)
    schedule = client.get(f"/api/v1/tournaments/{tournament_id}/schedule").get_json()
    assert all(
        m["state"] == "finished"
        for r in schedule["schedule"]
        for t in r["tables"]
        for m in t["matches"]
    )
    with client.get(f"/matches/{played[0].id}/replay.json.gz") as replay:
        assert replay.status_code == 200
    assert ratings(live) == before  # tournament matches never move a ladder rating
    assert mine in {e["version_id"] for e in standings["standings"]}
