"""A live table end to end: a person plays a whole game of each title through the tables
API (random legal moves; greedy ones in Caravelas) against two house bots in the real
sandbox, run by the table worker of its own, while the ladder's worker takes none of it.

Checked: illegal and out-of-turn moves refused with nothing changed, the table over with
its match stored (unranked, on the tables queue) whose replay replays to the same result,
the bots' ladder ratings unmoved, the person rated, and a spectator never given `legal`.
"""

from __future__ import annotations

import gzip
import importlib
import json
import random

import pytest
from sqlalchemy import select

import engine
from ladder.cli.processes import worker_command
from ladder.extensions import app_settings
from ladder.models import HumanRating, Match, MatchState, Rating
from ladder.services import accounts, matches
from tests.integration.live import LiveLadder, house_versions, wait_until

pytestmark = pytest.mark.integration


@pytest.fixture
def live(tmp_path):
    ladder = LiveLadder(tmp_path)
    yield ladder
    ladder.close()


def _token(live) -> str:
    with live.app.app_context():
        from ladder.extensions import db

        user = accounts.register(db.session, "alice", "correct horse")
        _, token = accounts.create_token(db.session, user, "table test")
        db.session.commit()
        return token


@pytest.mark.parametrize("game", ["meuterer", "manila", "caravelas"])
def test_a_person_plays_a_whole_game_through_the_api(live, game):
    house = house_versions(live, game)
    with live.session() as s:
        before = {r.version_id: (r.mu, r.sigma, r.games) for r in s.scalars(select(Rating))}
    live.start("tables", worker_command(1, tables=True))
    live.wait_for_log("tables", " ready.")
    auth = {"Authorization": f"Bearer {_token(live)}"}
    client = live.app.test_client()
    made = client.post(
        "/api/v1/tables",
        json={"game": game, "players": 3, "seat": 0, "opponents": ["random", "greedy"]},
        headers=auth,
    )
    assert made.status_code == 201, made.get_json()
    url, seat = f"/api/v1/tables/{made.get_json()['id']}", made.get_json()["seat"]
    assert seat == 0
    rng = random.Random(5)
    # Random legal moves, but in Caravelas the house greedy policy: a random captain
    # there takes some 600 moves to end a game, a greedy one about 90.
    policy = importlib.import_module(f"bots.house.{game}.greedy") if game == "caravelas" else None

    def choose(now: dict) -> dict:
        if policy is None:
            return rng.choice(now["legal"])
        return policy.act(now["view"], now["legal"])

    refused_once = False
    moves = 0

    def table():
        return client.get(url, headers=auth).get_json()

    def ready(now: dict, after: int) -> bool:
        """Over, or past step `after` with the person on move."""
        if now["state"] == "over":
            return True
        return now["step"] > after and now["to_move"] == seat and bool(now["legal"])

    def my_turn_or_over(after: int = -1):
        now = table()
        return now if ready(now, after) else None

    now = wait_until(my_turn_or_over, 60, "the person's turn")
    while now["state"] != "over":
        if not refused_once:  # an illegal move: 400 with the reason, nothing changed
            bad = client.post(f"{url}/move", json={"action": {"type": "nonsense"}}, headers=auth)
            assert bad.status_code == 400 and bad.get_json()["error"]
            assert table()["step"] == now["step"]
            refused_once = True
        moved_at = now["step"]
        answer = client.post(f"{url}/move", json={"action": choose(now)}, headers=auth)
        assert answer.status_code == 200, answer.get_json()
        moves += 1
        spectator = live.app.test_client().get(url).get_json()
        assert not spectator.get("legal") and "private" not in spectator["view"]
        # The answer waits a second at most for the runner to apply the move: on a busy
        # machine it may come back before, still at this step, with this same legal list.
        # As the site's page does, move again only once the table is past this step.
        now = answer.get_json()
        if not ready(now, moved_at):
            now = wait_until(
                lambda at=moved_at: my_turn_or_over(at),
                60,
                "the person's move applied, then the person's turn or the end",
            )
    over = table()
    assert over["state"] == "over" and over["match_id"] and moves > 0
    ranks = over["result"]["ranks"]
    print(f"live table: {moves} moves by the person, {over['step']} in all, ranks {ranks}")
    late = client.post(f"{url}/move", json={"action": {"type": "pass"}}, headers=auth)
    assert late.status_code == 409  # the table is over: nobody's turn
    with live.session() as s:
        match = s.get(Match, over["match_id"])
        assert match.state == MatchState.FINISHED and not match.ranked
        assert match.queue == "tables"
        with live.app.app_context():
            stored = json.loads(
                gzip.decompress(matches.replay_bytes(s, app_settings(live.app), match))
            )
        assert engine.replay(stored).result() == stored["result"]  # replays to the same end
        assert stored["ranks"] == over["result"]["ranks"]
        after = {r.version_id: (r.mu, r.sigma, r.games) for r in s.scalars(select(Rating))}
        assert {v: after[v] for v in house} == {v: before[v] for v in house}  # bots unmoved
        person = s.scalars(select(HumanRating)).all()
        assert [(p.game, p.games) for p in person] == [(game, 1)]
    assert "Traceback" not in live.log("tables")
