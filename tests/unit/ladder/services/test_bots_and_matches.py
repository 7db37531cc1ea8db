"""Service layer: uploads, validation, matches, idempotent recording, retirement."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from ladder import artifacts
from ladder.broker import announce
from ladder.errors import Conflict, Forbidden, NotFound, RateLimited, ServiceError
from ladder.models import Blob, Bot, BotVersion, Match, Rating, RatingHistory
from ladder.ranking import ratings
from ladder.services import accounts, bot_files, bots, matches, storage
from tests.unit.ladder.conftest import BOT_SOURCE, make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for


@pytest.fixture
def three(session, config, alice, bob):
    carol = make_user(session, "carol")
    return [
        make_active_bot(session, config, u, name=f"{u.username}-bot") for u in (alice, bob, carol)
    ]


# -- accounts ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("username", "password", "message"),
    [
        ("ab", "long enough", "username is 3 to 40"),
        ("has space", "long enough", "username is 3 to 40"),
        ("<script>", "long enough", "username is 3 to 40"),
        ("dave", "short", "at least 8"),
    ],
)
def test_register_refuses_bad_input(session, username, password, message):
    with pytest.raises(ServiceError, match=message):
        accounts.register(session, username, password)


def test_register_refuses_taken_name_any_case(session, alice):
    with pytest.raises(Conflict, match="taken"):
        accounts.register(session, "ALICE", "long enough")


def test_passwords_are_hashed_and_checked(session, alice):
    assert "correct horse" not in alice.password_hash
    assert accounts.authenticate(session, "alice", "correct horse") == alice
    assert accounts.authenticate(session, "alice", "wrong horse") is None
    assert accounts.authenticate(session, "nobody", "correct horse") is None


def test_tokens_authenticate_until_revoked(session, alice, bob):
    token, plain = accounts.create_token(session, alice, "laptop")
    assert plain not in token.token_hash
    assert accounts.user_for_token(session, plain) == alice
    assert accounts.user_for_token(session, plain + "x") is None
    with pytest.raises(NotFound):
        accounts.revoke_token(session, bob, token.id)
    accounts.revoke_token(session, alice, token.id)
    assert accounts.user_for_token(session, plain) is None


# -- uploads and validation -------------------------------------------------
def test_upload_stores_file_and_waits_pending(session, config, alice):
    version = bots.upload_version(session, config, alice, "toyrace", "racer", "bot.py", BOT_SOURCE)
    assert (version.state, version.number, version.kind, version.size) == (
        "pending",
        1,
        "py",
        len(BOT_SOURCE),
    )
    assert version.file_key == f"bots/{version.sha256}.py"
    assert artifacts.store(config, session).get(version.file_key) == BOT_SOURCE


def test_identical_uploads_share_one_stored_file(session, config, alice, bob):
    one = bots.upload_version(session, config, alice, "toyrace", "a", "bot.py", BOT_SOURCE)
    two = bots.upload_version(session, config, bob, "toyrace", "b", "mine.py", BOT_SOURCE)
    assert one.id != two.id and one.file_key == two.file_key
    assert session.scalar(select(func.count()).select_from(Blob)) == 1


def test_upload_notifies_the_dispatch_hook(session, config, alice):
    calls = []
    announce.listen(session, lambda kind, ident: calls.append((kind, ident)))
    version = bots.upload_version(session, config, alice, "toyrace", "racer", "bot.py", BOT_SOURCE)
    assert calls == [("validate", version.id)]


@pytest.mark.parametrize(
    ("game", "name", "filename", "data", "message"),
    [
        ("chess", "x", "bot.py", BOT_SOURCE, "unknown game 'chess'"),
        ("toyrace", "", "bot.py", BOT_SOURCE, "bot name is 1 to 60"),
        ("toyrace", "x" * 61, "bot.py", BOT_SOURCE, "bot name is 1 to 60"),
        ("toyrace", "evil\u202egnp.py", "bot.py", BOT_SOURCE, "invisible characters"),
        ("toyrace", "a\u2066b\u2069", "bot.py", BOT_SOURCE, "invisible characters"),
        ("toyrace", "zero\u200bwidth", "bot.py", BOT_SOURCE, "invisible characters"),
        ("toyrace", "tab\tbot", "bot.py", BOT_SOURCE, "invisible characters"),
        ("toyrace", "x", "bot.exe", BOT_SOURCE, "upload a .py file"),
        ("toyrace", "x", "bot.py", b"def act(:\n", "syntax error on line 1"),
    ],
)
def test_bad_upload_is_refused_and_nothing_stored(
    session, config, alice, game, name, filename, data, message
):
    with pytest.raises(ServiceError, match=message):
        bots.upload_version(session, config, alice, game, name, filename, data)
    assert session.scalar(select(func.count(BotVersion.id))) == 0
    assert session.scalar(select(func.count()).select_from(Blob)) == 0


def test_uploads_are_rate_limited_per_user(session, config, alice, bob):
    config["UPLOADS_PER_HOUR"] = 2
    for _ in range(2):
        bots.upload_version(session, config, alice, "toyrace", "r", "bot.py", BOT_SOURCE)
    with pytest.raises(RateLimited, match="at most 2 accepted uploads an hour"):
        bots.upload_version(session, config, alice, "toyrace", "r", "bot.py", BOT_SOURCE)
    bots.upload_version(session, config, bob, "toyrace", "r", "bot.py", BOT_SOURCE)


def test_a_new_version_replaces_the_old_and_starts_from_its_skill(session, config, alice):
    first = make_active_bot(session, config, alice, name="r")
    old = session.get(Rating, first.id)
    old.mu, old.sigma, old.games = 30.0, 1.5, 80
    session.commit()
    second = make_active_bot(session, config, alice, name="r")
    assert second.number == 2 and second.bot_id == first.bot_id
    assert session.get(BotVersion, first.id).state == "retired"
    assert (session.get(Rating, first.id).mu, session.get(Rating, first.id).games) == (30.0, 80)
    new = session.get(Rating, second.id)
    assert (new.mu, new.sigma, new.games) == (30.0, ratings.SUCCESSOR_SIGMA, 0)
    assert new.skill == pytest.approx(30.0 - 3 * ratings.SUCCESSOR_SIGMA)
    other = make_active_bot(session, config, alice, name="another")
    assert session.get(Rating, other.id).mu == ratings.MU  # a new bot starts at the default


def test_a_version_after_a_failed_one_inherits_from_the_last_rated(session, config, alice):
    first = make_active_bot(session, config, alice, name="r")
    session.get(Rating, first.id).mu = 33.0
    session.commit()
    broken = bots.upload_version(
        session, config, alice, "toyrace", "r", "bot.py", BOT_SOURCE + b"# 2\n"
    )
    bots.finish_validation(session, broken.id, False, "no act")
    third = make_active_bot(session, config, alice, name="r", source=BOT_SOURCE + b"# v3\n")
    assert third.number == 3
    assert session.get(Rating, third.id).mu == 33.0


def test_failed_validation_keeps_log_and_no_rating(session, config, alice):
    version = bots.upload_version(session, config, alice, "toyrace", "r", "bot.py", BOT_SOURCE)
    bots.start_validation(session, version.id)
    bots.finish_validation(session, version.id, False, "act() returned None")
    assert (version.state, version.validation_log) == ("failed", "act() returned None")
    assert session.get(Rating, version.id) is None
    with pytest.raises(Conflict, match="validated already"):
        bots.finish_validation(session, version.id, True, "")


def test_retire_only_by_owner_and_once(session, config, alice, bob):
    version = make_active_bot(session, config, alice)
    with pytest.raises(Forbidden):
        bots.retire_bot(session, bob, version.bot_id)
    bots.retire_bot(session, alice, version.bot_id)
    assert session.get(BotVersion, version.id).state == "retired"
    with pytest.raises(Conflict):
        bots.retire_bot(session, alice, version.bot_id)
    with pytest.raises(Conflict, match="retired"):
        bots.upload_version(session, config, alice, "toyrace", "b", "bot.py", BOT_SOURCE)


def test_code_download_is_owner_only(session, config, alice, bob):
    version = make_active_bot(session, config, alice)
    assert bots.version_file(session, config, alice, version) == BOT_SOURCE
    for user in (bob, None):
        with pytest.raises(Forbidden):
            bots.version_file(session, config, user, version)
    artifacts.store(config, session).delete(version.file_key)
    with pytest.raises(NotFound, match="missing from the store"):
        bots.version_file(session, config, alice, version)


# -- matches ----------------------------------------------------------------
def test_challenge_queues_unrated_match(session, config, three, alice):
    calls = []
    announce.listen(session, lambda kind, ident: calls.append((kind, ident)))
    mine, *others = three
    match = matches.create_challenge(
        session, config, alice, mine.id, [v.id for v in others], seed=9
    )
    session.commit()
    assert (match.state, match.ranked, match.seed, match.players) == ("queued", False, 9, 3)
    assert [s.version_id for s in match.seats] == [v.id for v in three]
    assert calls == [("challenge", match.id)]  # the challenge queue, not the ladder's


def test_challenge_refusals(session, config, three, alice, bob):
    mine, theirs, third = three
    cases = [
        (bob, mine.id, [theirs.id], Forbidden, "your own bot"),
        (alice, mine.id, [], ServiceError, "at least one opponent"),
        (alice, mine.id, [mine.id], ServiceError, "only one seat"),
        (alice, mine.id, [theirs.id, third.id, 999, 998], ServiceError, "2 to 4 players"),
        (alice, mine.id, [999], NotFound, "no bot version 999"),
        (alice, 999, [theirs.id], NotFound, "no bot version 999"),
        (alice, mine.id, [theirs.id], ServiceError, "seed"),
    ]
    for user, vid, opponents, error, message in cases:
        seed = -1 if message == "seed" else None
        with pytest.raises(error, match=message):
            matches.create_challenge(session, config, user, vid, opponents, seed=seed)
    bots.retire_bot(session, bob, theirs.bot_id)
    with pytest.raises(ServiceError, match="retired, not active"):
        matches.create_challenge(session, config, alice, mine.id, [theirs.id])


def test_match_job_names_each_seats_code(session, config, three, alice):
    match = matches.create_match(
        session, config, "toyrace", [v.id for v in three], ranked=True, seed=3
    )
    job = matches.match_job(session, config, match.id)
    assert (job.game, job.seed, job.players) == ("toyrace", 3, 3)
    assert [s.key for s in job.seats] == [v.file_key for v in three]
    assert [s.sha256 for s in job.seats] == [v.sha256 for v in three]
    assert job.seats[0].path is None  # no web host's disk: the worker fetches by key
    with bot_files.local_files(session, config, job) as local:
        assert [Path(s.path).read_bytes() for s in local.seats] == [BOT_SOURCE] * 3
        assert {Path(s.path).parent for s in local.seats} == {Path(config["BOT_CACHE_DIR"])}
    assert job.seats[0].label == "alice/alice-bot v1"
    assert matches.start_match(session, match.id) == 1
    assert matches.start_match(session, match.id) == 0


def test_record_stores_seats_ratings_and_replay(session, config, three):
    match = matches.create_match(
        session, config, "toyrace", [v.id for v in three], ranked=True, seed=3
    )
    outcome = outcome_for(match, [2, 1, 3], statuses=["ok", "ok", "timeout"])
    matches.record_match(session, config, match.id, outcome)
    session.expire_all()
    match = session.get(Match, match.id)
    assert match.state == "finished" and match.finished_at is not None
    assert [s.status for s in match.seats] == ["ok", "ok", "timeout"]
    assert [s.rank for s in match.seats] == [2, 1, 3]
    assert [s.stderr for s in match.seats] == [
        "stderr of seat 0",
        "stderr of seat 1",
        "stderr of seat 2",
    ]
    assert match.seats[2].error == "timeout on move 3"
    winner, loser = match.seats[1], match.seats[2]
    assert winner.mu_after > winner.mu_before == ratings.MU
    assert loser.mu_after < loser.mu_before
    assert session.get(Rating, three[1].id).games == 1
    assert session.get(Rating, three[1].id).mu == winner.mu_after
    assert match.replay_key == f"replays/toyrace/{match.id}.json.gz"
    stored = json.loads(gzip.decompress(artifacts.store(config, session).get(match.replay_key)))
    assert stored == outcome["replay"]
    assert "stderr" not in json.dumps(stored)


def test_recording_twice_changes_nothing(session, config, three):
    match = matches.create_match(
        session, config, "toyrace", [v.id for v in three], ranked=True, seed=3
    )
    outcome = outcome_for(match, [1, 2, 3])
    matches.record_match(session, config, match.id, outcome)
    ratings_once = [(r.mu, r.sigma, r.games) for r in session.scalars(select(Rating))]
    history_once = session.scalar(select(func.count(RatingHistory.id)))
    other = copy.deepcopy(outcome)
    other["ranks"] = [3, 2, 1]
    matches.record_match(session, config, match.id, other)
    session.expire_all()
    assert [(r.mu, r.sigma, r.games) for r in session.scalars(select(Rating))] == ratings_once
    assert session.scalar(select(func.count(RatingHistory.id))) == history_once == 3
    assert [s.rank for s in session.get(Match, match.id).seats] == [1, 2, 3]


def test_unrated_challenge_leaves_ratings_alone(session, config, three, alice):
    match = matches.create_challenge(session, config, alice, three[0].id, [three[1].id])
    matches.record_match(session, config, match.id, outcome_for(match, [1, 2]))
    assert all(r.games == 0 and r.mu == ratings.MU for r in session.scalars(select(Rating)))
    assert session.get(Match, match.id).seats[0].mu_after is None


def test_a_match_with_a_replaced_version_is_recorded_but_not_rated(session, config, three, alice):
    match = matches.create_match(session, config, "toyrace", [v.id for v in three], ranked=True)
    make_active_bot(session, config, alice, name="alice-bot")  # replaces three[0]
    matches.record_match(session, config, match.id, outcome_for(match, [1, 2, 3]))
    recorded = session.get(Match, match.id)
    assert recorded.state == "finished" and [s.rank for s in recorded.seats] == [1, 2, 3]
    # The whole match is discarded from the ladder, not just the replaced seat.
    assert all(session.get(Rating, v.id).games == 0 for v in three)
    assert all(seat.mu_after is None for seat in recorded.seats)
    assert recorded.unrated_reason == matches.REPLACED


def test_an_outcome_marked_not_rated_is_recorded_without_rating(session, config, three):
    match = matches.create_match(
        session, config, "toyrace", [v.id for v in three], ranked=True, seed=3
    )
    outcome = outcome_for(match, [1, 1, 1], statuses=["timeout"] * 3)
    outcome |= {"rated": False, "unrated_reason": "every seat timed out before it was ready"}
    matches.record_match(session, config, match.id, outcome)
    session.expire_all()
    recorded = session.get(Match, match.id)
    assert recorded.state == "finished" and recorded.replay_key is not None
    assert [s.status for s in recorded.seats] == ["timeout"] * 3
    assert recorded.unrated_reason == "every seat timed out before it was ready"
    assert all(session.get(Rating, v.id).games == 0 for v in three)
    assert all(seat.mu_after is None for seat in recorded.seats)
    assert session.scalar(select(func.count(RatingHistory.id))) == 0


def test_an_unrated_outcome_without_a_reason_still_says_why(session, config, three):
    match = matches.create_match(session, config, "toyrace", [v.id for v in three], ranked=True)
    outcome = outcome_for(match, [1, 2, 3]) | {"rated": False, "unrated_reason": None}
    matches.record_match(session, config, match.id, outcome)
    assert session.get(Match, match.id).unrated_reason == matches.VOID
    assert all(session.get(Rating, v.id).games == 0 for v in three)


def test_a_rated_outcome_rates_as_before(session, config, three):
    match = matches.create_match(session, config, "toyrace", [v.id for v in three], ranked=True)
    outcome = outcome_for(match, [1, 2, 3]) | {"rated": True, "unrated_reason": None}
    matches.record_match(session, config, match.id, outcome)
    assert session.get(Match, match.id).unrated_reason is None
    assert all(session.get(Rating, v.id).games == 1 for v in three)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seed": 4}, "seed 4"),
        ({"game": "other"}, "other seed"),
        ({"players": 2}, "has 2 players"),
        ({"ranks": [1, 2]}, "'ranks' is not a list of 3"),
        ({"statuses": ["ok", "ok", "asleep"]}, "unknown seat status 'asleep'"),
        ({"ranks": [1, 2, 4]}, "integers from 1 to 3"),
        ({"statuses": ["timeout", "ok", "ok"], "ranks": [1, 2, 3]}, "faulted seat must rank below"),
        ({"replay": None}, "replay is not a dict"),
        ({"rated": "no"}, "'rated' is not a bool"),
        ({"rated": False, "unrated_reason": 7}, "'unrated_reason' is not a string"),
    ],
)
def test_bad_outcome_is_refused_and_match_stays_queued(session, config, three, change, message):
    match = matches.create_match(
        session, config, "toyrace", [v.id for v in three], ranked=True, seed=3
    )
    outcome = outcome_for(match, [1, 2, 3]) | change
    with pytest.raises(ValueError, match=message):
        matches.record_match(session, config, match.id, outcome)
    assert session.get(Match, match.id).state == "queued"


def test_missing_key_and_unknown_match(session, config, three):
    match = matches.create_match(
        session, config, "toyrace", [v.id for v in three], ranked=True, seed=3
    )
    outcome = outcome_for(match, [1, 2, 3])
    del outcome["ranks"]
    with pytest.raises(ValueError, match="no 'ranks'"):
        matches.record_match(session, config, match.id, outcome)
    with pytest.raises(NotFound):
        matches.record_match(session, config, 999, outcome)


def test_failed_match_cannot_be_recorded(session, config, three):
    match = matches.create_match(
        session, config, "toyrace", [v.id for v in three], ranked=True, seed=3
    )
    assert matches.fail_match(session, match.id, "worker lost") is True
    with pytest.raises(Conflict, match="failed"):
        matches.record_match(session, config, match.id, outcome_for(match, [1, 2, 3]))


def test_storage_names_bot_and_replay_keys():
    assert storage.bot_key("ab" * 32, "zip") == f"bots/{'ab' * 32}.zip"
    assert storage.replay_key("manila", 12345) == "replays/manila/12345.json.gz"
    with pytest.raises(ValueError, match=r"\.py or \.zip"):
        storage.bot_key("ab" * 32, "exe")


def test_bot_rows_are_unique_per_owner_and_game(session, config, alice):
    make_active_bot(session, config, alice, name="same")
    make_active_bot(session, config, alice, name="same")
    assert session.scalar(select(func.count(Bot.id))) == 1


def test_concurrent_recording_rates_once(session, config, three):
    """Two workers recording the same match at once: exactly one of them counts."""
    import threading

    from sqlalchemy.orm import Session as OrmSession

    from ladder.extensions import make_engine

    match = matches.create_match(session, config, "toyrace", [v.id for v in three], ranked=True)
    session.commit()
    outcome = outcome_for(match, [1, 2, 3])
    eng = make_engine(config["DATABASE_URL"])
    errors = []

    def record():
        try:
            with OrmSession(eng) as own:
                matches.record_match(own, config, match.id, outcome)
                own.commit()
        except Exception as exc:  # collected and asserted below
            errors.append(exc)

    workers = [threading.Thread(target=record) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    eng.dispose()
    assert errors == []
    session.expire_all()
    assert [session.get(Rating, v.id).games for v in three] == [1, 1, 1]
    assert session.scalar(select(func.count(RatingHistory.id))) == 3


def test_late_validation_of_older_version_does_not_displace_newer(session, config, alice):
    first = bots.upload_version(session, config, alice, "toyrace", "r", "bot.py", BOT_SOURCE)
    second = make_active_bot(session, config, alice, name="r")
    bots.finish_validation(session, first.id, True, "passed, but late")
    assert (first.state, second.state) == ("retired", "active")
    assert session.get(Rating, first.id) is None
