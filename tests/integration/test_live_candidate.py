"""A candidate version end to end on the workers: uploaded through the API as a
candidate of a weak bot, validated, tested (unranked, on the test queue) against the
active version beside the house greedy and search bots, found better and promoted;
the test's matches move no rating."""

from __future__ import annotations

import io
import shutil
import time

import pytest
from sqlalchemy import func, select

from ladder.broker import announce
from ladder.extensions import app_settings
from ladder.models import Match, MatchSeat, Rating, RatingHistory, VersionTestMatch
from ladder.services import accounts, bots
from ladder.services.house import house_files, house_user
from ladder.transactions import unit_of_work
from tests.integration.conftest import needs_bwrap
from tests.integration.live import LiveLadder, wait_until

pytestmark = [
    pytest.mark.integration,
    needs_bwrap,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]

GAME = "meuterer"  # the quickest game
TEST_TIMEOUT_S = 120  # the whole test, from the candidate's upload to its verdict
SETTINGS = {
    # One ranked match in flight (only Meuterer has bots, see `seed_opponents`), and room
    # for a whole set of test matches: TEST_SHARE x LADDER_IN_FLIGHT x games = 3.
    "LADDER_IN_FLIGHT": "1",
    "TEST_SHARE": "1",
    "TEST_MAX_SETS": "30",  # a bound far above what greedy against random takes
    # The search bot thinks a quarter of the move limit (at most 150 ms): 50 ms here,
    # so a match takes about 2 s instead of 5. The others answer in microseconds.
    "BOT_LIMITS": "move_ms=200",
}


@pytest.fixture
def live(tmp_path, monkeypatch):
    # In the environment, not only the workers': the test's own app stores the upload
    # (and the test's TEST_MAX_SETS with it).
    for name, value in SETTINGS.items():
        monkeypatch.setenv(name, value)
    ladder = LiveLadder(tmp_path)
    yield ladder
    ladder.close()


def seed_opponents(live, game):
    """The house greedy and search bots of `game` alone, as `ladder house` seeds them
    (trusted, never validated): no other game's ladder takes the workers' time."""
    files = house_files(game)
    with live.app.app_context():
        from ladder.extensions import db

        settings = app_settings(live.app)
        house = house_user(db.session, settings.house_user)
        for name in ("greedy", "search"):
            with announce.quiet(db.session):
                version = bots.upload_version(
                    db.session, settings, house, game, name, f"{name}.py", files[name].read_bytes()
                )
            with unit_of_work(db.session):
                bots.start_validation(db.session, version.id)
                bots.finish_validation(db.session, version.id, True, "House bot: trusted code.")


def api_token(live, username):
    with live.app.app_context():
        from ladder.extensions import db

        user = accounts.register(db.session, username, "correct horse")
        db.session.commit()
        _, plain = accounts.create_token(db.session, user, "ci")
        db.session.commit()
        return plain


def upload(client, token, name, path, **fields):
    """POST /api/v1/versions with the bearer token; the new version's JSON."""
    response = client.post(
        "/api/v1/versions",
        headers={"Authorization": f"Bearer {token}"},
        data={
            "game": GAME,
            "name": name,
            **fields,
            "file": (io.BytesIO(path.read_bytes()), "bot.py"),
        },
        content_type="multipart/form-data",
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    return response.get_json()


def test_a_stronger_candidate_is_tested_unranked_and_promoted(live):
    seed_opponents(live, GAME)
    token = api_token(live, "alice")
    client = live.app.test_client()
    live.start_worker(concurrency=2)
    live.start_beat()

    def version(version_id):
        response = client.get(f"/api/v1/versions/{version_id}")
        assert response.status_code == 200, response.get_data(as_text=True)
        return response.get_json()

    def games(version_id):
        return (version(version_id)["rating"] or {}).get("games", 0)

    old = upload(client, token, "mine", house_files(GAME)["random"])
    wait_until(lambda: version(old["id"])["state"] == "active", 60, "the weak version's validation")

    # A ranked match first: the test takes the ladder's table size (three here: the two
    # house bots and this one), and the old version has a rating the test must not move.
    wait_until(lambda: games(old["id"]) >= 1, 60, "a ranked match of the weak version")

    new = upload(client, token, "mine", house_files(GAME)["greedy"], candidate="true")
    assert new["bot_id"] == old["bot_id"]

    def candidate_test():
        response = client.get(f"/api/v1/versions/{new['id']}/test")
        assert response.status_code == 200, response.get_data(as_text=True)
        return response.get_json()

    last: dict = {}
    states = set()  # the candidate's, while its test runs
    deadline = time.monotonic() + TEST_TIMEOUT_S
    while time.monotonic() < deadline:
        last = candidate_test()
        if last["state"] in ("finished", "cancelled"):
            break
        if last["state"] == "running":
            seen = version(new["id"])["state"]
            # Counted only if the test still runs after that read: it may end and promote
            # the candidate between the two requests.
            if candidate_test()["state"] == "running":
                states.add(seen)
        time.sleep(0.5)
    else:
        pytest.fail(f"the candidate's test did not end in {TEST_TIMEOUT_S} s; last: {last}")

    # Nothing moves from here on: the database is read as the workers left it.
    live.kill("beat")
    live.kill("worker")
    assert last["state"] == "finished", last
    assert last["verdict"] == "better", last
    assert last["baseline_id"] == old["id"] and last["promote"] is True
    assert last["promoted_at"] is not None, last
    assert last["matches"] > 0 and last["sets"] > 0
    assert len(last["history"]) == last["sets"]
    assert last["llr"] >= last["bounds"][1], last
    assert last["table_size"] == 3 and last["faults"] == {"new": 0, "old": 0}, last
    assert states == {"candidate"}, states  # off the ladder until promoted
    assert version(new["id"])["state"] == "active"
    assert version(old["id"])["state"] == "retired"
    assert client.get(f"/api/v1/versions/{old['id']}/test").status_code == 404

    with live.session() as s:
        tested = s.scalars(
            select(Match).join(VersionTestMatch, VersionTestMatch.match_id == Match.id)
        ).all()
        assert len(tested) >= last["matches"]
        assert all(not m.ranked and m.queue == "tests" for m in tested)
        test_ids = [m.id for m in tested]
        rated = s.scalar(
            select(func.count(RatingHistory.id)).where(RatingHistory.match_id.in_(test_ids))
        )
        assert rated == 0, "a test match moved a rating"
        moved = s.scalar(
            select(func.count())
            .select_from(MatchSeat)
            .where(MatchSeat.match_id.in_(test_ids), MatchSeat.mu_after.is_not(None))
        )
        assert moved == 0, "a test match's seat has a rating after it"
        for version_id in (old["id"], new["id"]):
            ranked = s.scalar(
                select(func.count(Match.id))
                .join(MatchSeat, MatchSeat.match_id == Match.id)
                .where(
                    MatchSeat.version_id == version_id,
                    Match.ranked,
                    Match.state == "finished",
                    # A ranked match that moved no rating (void: every seat faulted, as
                    # a loaded machine can make happen) is not one of its games.
                    Match.unrated_reason.is_(None),
                )
            )
            rating = s.get(Rating, version_id)
            assert rating is not None and rating.games == ranked, (version_id, ranked)
