"""Challenges are limited per user (an hourly rate and a cap on those queued or running),
refused with 429 and a Retry-After on the site and the API alike, and played from a
queue of their own so they cannot starve the ladder or tournaments."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladder.broker import announce
from ladder.cli.processes import worker_command
from ladder.errors import RateLimited
from ladder.extensions import make_engine
from ladder.jobs import celery_app
from ladder.models import Match, User
from ladder.services import accounts, matches, sweep
from ladder.transactions import unit_of_work
from tests.unit.ladder.conftest import csrf_token, login, make_active_bot
from tests.unit.ladder.helpers import outcome_for


@pytest.fixture
def bots(session, config, alice, bob):
    return make_active_bot(session, config, alice, name="mine"), make_active_bot(
        session, config, bob, name="theirs"
    )


def challenges(session) -> int:
    return session.scalar(select(func.count(Match.id)).where(Match.requested_by_id.isnot(None)))


def test_the_26th_challenge_in_a_row_on_the_site_is_a_429_saying_why(client, session, bots):
    mine, theirs = bots
    login(client)
    token = csrf_token(client, f"/bots/{mine.bot_id}")
    form = {"csrf_token": token, "version_id": str(mine.id), "opponents": [str(theirs.id)]}
    for _ in range(25):  # the defaults: 25 an hour, 25 queued or running
        assert client.post("/challenges", data=form).status_code == 302
    refused = client.post("/challenges", data=form)
    page = refused.get_data(as_text=True)
    assert refused.status_code == 429
    assert "Challenge not started: at most 25 challenges an hour; try again in 60 minutes" in page
    assert 3590 <= int(refused.headers["Retry-After"]) <= 3600
    assert 'action="/challenges"' in page  # the bot page, with its form
    assert challenges(session) == 25


def test_the_26th_challenge_in_a_row_on_the_api_is_a_429_saying_why(client, session, bots, alice):
    mine, theirs = bots
    _token, plain = accounts.create_token(session, alice, "tests")
    session.commit()
    headers = {"Authorization": f"Bearer {plain}"}
    body = {"version_id": mine.id, "opponents": [theirs.id]}
    for _ in range(25):
        assert client.post("/api/v1/challenges", json=body, headers=headers).status_code == 201
    refused = client.post("/api/v1/challenges", json=body, headers=headers)
    assert refused.status_code == 429
    assert refused.get_json() == {"error": "at most 25 challenges an hour; try again in 60 minutes"}
    assert 3590 <= int(refused.headers["Retry-After"]) <= 3600
    assert challenges(session) == 25


def test_at_most_so_many_challenges_wait_at_once(session, config, alice, bots):
    mine, theirs = bots
    config.update(CHALLENGES_PER_HOUR=100, CHALLENGES_IN_FLIGHT=2)
    first = matches.create_challenge(session, config, alice, mine.id, [theirs.id])
    second = matches.create_challenge(session, config, alice, mine.id, [theirs.id])
    session.commit()
    with pytest.raises(RateLimited, match="you have 2 challenges queued or running") as refused:
        matches.create_challenge(session, config, alice, mine.id, [theirs.id])
        session.commit()
    assert refused.value.retry_after == matches.IN_FLIGHT_RETRY_S
    matches.start_match(session, second.id)  # running still counts
    with pytest.raises(RateLimited):
        matches.create_challenge(session, config, alice, mine.id, [theirs.id])
    matches.record_match(session, config, first.id, outcome_for(first, [1, 2]))
    assert matches.create_challenge(session, config, alice, mine.id, [theirs.id]).id
    # Another user's challenges and the ladder's own matches are not alice's.
    matches.create_match(session, config, "toyrace", [mine.id, theirs.id], ranked=True)
    session.commit()
    with pytest.raises(RateLimited):
        matches.create_challenge(session, config, alice, mine.id, [theirs.id])
        session.commit()


def test_played_challenges_still_count_for_the_hour(session, config, alice, bots):
    mine, theirs = bots
    config.update(CHALLENGES_PER_HOUR=2, CHALLENGES_IN_FLIGHT=100)
    for _ in range(2):
        match = matches.create_challenge(session, config, alice, mine.id, [theirs.id])
        matches.fail_match(session, match.id, "gone")
        session.commit()
    with pytest.raises(RateLimited, match="at most 2 challenges an hour"):
        matches.create_challenge(session, config, alice, mine.id, [theirs.id])
        session.commit()


def test_a_refused_challenge_leaves_nothing_and_the_next_one_passes(session, config, alice, bots):
    mine, theirs = bots
    config.update(CHALLENGES_PER_HOUR=1)
    with pytest.raises(Exception, match="no bot version 424242"):
        matches.create_challenge(session, config, alice, mine.id, [424242])
    assert matches.create_challenge(session, config, alice, mine.id, [theirs.id]).id


def test_simultaneous_challenges_see_each_other(config, alice, bots):
    mine, theirs = bots
    limits = config.with_overrides({"CHALLENGES_PER_HOUR": 3, "CHALLENGES_IN_FLIGHT": 100})
    eng = make_engine(config["DATABASE_URL"])
    start = threading.Barrier(12)

    def attempt(_i: int) -> str:
        with Session(eng, expire_on_commit=False) as s:
            user = s.get(User, alice.id)
            start.wait()
            try:
                with unit_of_work(s):
                    matches.create_challenge(s, limits, user, mine.id, [theirs.id])
            except RateLimited:
                return "refused"
            return "started"

    with ThreadPoolExecutor(12) as pool:
        outcomes = list(pool.map(attempt, range(12)))
    eng.dispose()
    assert outcomes.count("started") == 3 and outcomes.count("refused") == 9


def test_challenges_go_to_a_queue_of_their_own(app, session, config, alice, bots):
    mine, theirs = bots
    sent = []
    announce.listen(session, lambda kind, ident: sent.append((kind, ident)))
    challenge = matches.create_challenge(session, config, alice, mine.id, [theirs.id])
    ladder = matches.create_match(session, config, "toyrace", [mine.id, theirs.id], ranked=True)
    session.commit()
    assert sent == [("challenge", challenge.id), ("match", ladder.id)]
    celery = app.extensions["celery"]
    route = celery.amqp.router.route({}, celery_app.TASKS["challenge"])
    assert route["queue"].name == celery_app.CHALLENGE_QUEUE == "challenges"
    assert celery.amqp.router.route({}, celery_app.TASKS["match"])["queue"].name == "celery"
    assert "ladder.play_challenge_match" in celery.tasks
    queues = worker_command(1)[worker_command(1).index("--queues") + 1].split(",")
    assert sorted(queues) == ["beat", "celery", "challenges", "tests", "tournaments"]
    # Beat's quick periodic tasks never take the ladder queue's turns.
    for task in ("ladder.schedule", "ladder.prune_replays"):
        assert celery.amqp.router.route({}, task)["queue"].name == "beat"


def test_a_lost_challenge_is_sent_again_to_the_challenge_queue(session, config, alice, bots):
    mine, theirs = bots
    challenge = matches.create_challenge(session, config, alice, mine.id, [theirs.id])
    ladder = matches.create_match(session, config, "toyrace", [mine.id, theirs.id], ranked=True)
    session.commit()
    sent = []
    config.update(REQUEUE_AFTER_S=-1)
    announce.listen(session, lambda kind, ident: sent.append((kind, ident)))
    sweep.requeue_stale(session, config, lambda kind, ident: False)
    assert sorted(sent) == [("challenge", challenge.id), ("match", ladder.id)]
