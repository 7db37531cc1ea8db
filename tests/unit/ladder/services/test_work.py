"""The worker's services without the worker: scheduling, requeueing, house bots, logs."""

from __future__ import annotations

import hashlib
import random
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

import engine
from ladder import artifacts
from ladder.broker import announce
from ladder.models import BotVersion, Match, Rating, User, utcnow
from ladder.queries import candidates
from ladder.services import matches, playing, scheduler, storage, sweep, validation
from ladder.services.house import house_files, seed_house_bots
from tests.unit.ladder.conftest import make_active_bot, make_user
from workers import Outcome, resolve


def three_owners(session, config):
    users = [make_user(session, name) for name in ("ann", "ben", "cat")]
    return [make_active_bot(session, config, u, name=f"{u.username}-bot") for u in users]


def test_schedule_fills_each_game_up_to_the_target_in_flight(session, config):
    versions = three_owners(session, config)
    config["LADDER_IN_FLIGHT"] = 2
    created = scheduler.schedule_ladder(session, config, random.Random(1))
    # Three bots of three owners: one table of 2 or 3; the others are busy then.
    assert 1 <= len(created) <= 2
    match = session.get(Match, created[0])
    assert match.ranked and match.state == "queued" and match.game == "toyrace"
    seated = [s.version_id for s in match.seats]
    assert len(set(seated)) == len(seated) and set(seated) <= {v.id for v in versions}
    # A bot already at a table sits out until its match is over.
    busy = {s.version_id for m in created for s in session.get(Match, m).seats}
    assert len(busy) == sum(len(session.get(Match, m).seats) for m in created)


def test_schedule_creates_nothing_while_the_target_is_in_flight(session, config):
    three_owners(session, config)
    config["LADDER_IN_FLIGHT"] = 1
    assert len(scheduler.schedule_ladder(session, config, random.Random(2))) == 1
    assert scheduler.schedule_ladder(session, config, random.Random(3)) == []


def test_schedule_announces_each_match_to_the_workers(session, config):
    three_owners(session, config)
    announced = []
    announce.listen(session, lambda kind, ident: announced.append((kind, ident)))
    config["LADDER_IN_FLIGHT"] = 1
    created = scheduler.schedule_ladder(session, config, random.Random(4))
    assert announced == [("match", created[0])]


def test_house_bots_may_sit_at_several_tables(session, config):
    config["HOUSE_USER"] = "demo"
    demo = make_user(session, "demo")
    for name in ("r1", "r2", "r3"):
        make_active_bot(session, config, demo, name=name)
    config["LADDER_IN_FLIGHT"] = 3
    created = scheduler.schedule_ladder(session, config, random.Random(5))
    assert len(created) == 3  # three house bots fill three tables at once


def test_one_run_fills_a_target_larger_than_a_batch(session, config):
    # Matches are made BATCH a transaction; a run keeps going until the target is met.
    config["HOUSE_USER"] = "demo"
    demo = make_user(session, "demo")
    for name in ("r1", "r2", "r3"):
        make_active_bot(session, config, demo, name=name)
    config["LADDER_IN_FLIGHT"] = scheduler.BATCH + 7
    announced = []
    announce.listen(session, lambda kind, ident: announced.append(ident))
    created = scheduler.schedule_ladder(session, config, random.Random(11))
    assert len(created) == scheduler.BATCH + 7 == len(set(created))
    assert sorted(announced) == sorted(created)  # every batch reached the workers
    assert scheduler.schedule_ladder(session, config, random.Random(12)) == []


def seated_owners(session, match_ids):
    """Per match, the owners' names in seat order."""
    session.expire_all()
    return [[s.version.bot.owner.username for s in session.get(Match, m).seats] for m in match_ids]


def test_the_scheduler_never_seats_one_owner_twice(session, config):
    config["HOUSE_USER"] = "demo"
    for name, count in (("ann", 3), ("ben", 3), ("cat", 1)):
        user = make_user(session, name)
        for i in range(count):
            make_active_bot(session, config, user, name=f"{name}-{i}")
    config["LADDER_IN_FLIGHT"] = 10
    created = scheduler.schedule_ladder(session, config, random.Random(6))
    # Each table takes at most one of ann's three bots and one of ben's, and scheduling
    # stops only once one of them has none free: three tables, whatever their sizes.
    assert len(created) == 3
    for owners in seated_owners(session, created):
        assert len(owners) == len(set(owners)), owners


def test_a_ladder_of_one_owner_waits_until_a_second_or_a_house_bot_comes(session, config):
    config["HOUSE_USER"] = "demo"
    ann = make_user(session, "ann")
    for i in range(3):
        make_active_bot(session, config, ann, name=f"ann-{i}")
    config["LADDER_IN_FLIGHT"] = 4
    assert scheduler.schedule_ladder(session, config, random.Random(7)) == []
    make_active_bot(session, config, make_user(session, "demo"), name="house")
    created = scheduler.schedule_ladder(session, config, random.Random(8))
    assert len(created) == 3  # the house bot is never busy; each of ann's bots plays once
    assert all(sorted(owners) == ["ann", "demo"] for owners in seated_owners(session, created))


def test_a_table_the_rows_show_breaks_the_owner_rule_is_not_stored(
    session, config, monkeypatch, caplog
):
    ann = make_user(session, "ann")
    twins = [make_active_bot(session, config, ann, name=f"ann-{i}").id for i in range(2)]
    make_active_bot(session, config, make_user(session, "ben"), name="ben-bot")
    # As if matchmaking had been handed a list with ann's bots under two owners.
    monkeypatch.setattr(scheduler, "make_table", lambda *args: list(twins))
    config["LADDER_IN_FLIGHT"] = 4
    assert scheduler.schedule_ladder(session, config, random.Random(9)) == []
    assert session.scalars(select(Match.id)).all() == []
    assert "broke the owner rule" in caplog.text


def test_retired_and_unrated_versions_are_not_candidates(session, config):
    versions = three_owners(session, config)
    session.get(BotVersion, versions[0].id).state = "retired"
    session.commit()
    ids = {c.version_id for c in candidates.ladder_candidates(session, config, "toyrace")}
    assert ids == {versions[1].id, versions[2].id}


def running_match(session, config, versions, started_ago_s):
    match = matches.create_match(
        session, config, "toyrace", [v.id for v in versions[:2]], ranked=True
    )
    assert matches.start_match(session, match.id)
    session.get(Match, match.id).started_at = utcnow() - timedelta(seconds=started_ago_s)
    session.commit()
    return match.id


def test_a_running_match_without_a_lease_goes_back_to_the_queue(session, config):
    versions = three_owners(session, config)
    match_id = running_match(session, config, versions, started_ago_s=120)
    announced = []
    announce.listen(session, lambda kind, ident: announced.append((kind, ident)))
    again = sweep.requeue_stale(session, config, leased=lambda kind, ident: False)
    assert again["match"] == [match_id] and announced == [("match", match_id)]
    assert session.get(Match, match_id).state == "queued"
    # The next worker can claim it again.
    assert matches.start_match(session, match_id)


def test_a_running_match_with_a_live_lease_is_left_alone(session, config):
    versions = three_owners(session, config)
    match_id = running_match(session, config, versions, started_ago_s=120)
    again = sweep.requeue_stale(session, config, leased=lambda kind, ident: True)
    assert again == {"match": [], "validate": []}
    assert session.get(Match, match_id).state == "running"


def test_a_just_started_match_gets_time_to_take_its_lease(session, config):
    versions = three_owners(session, config)
    match_id = running_match(session, config, versions, started_ago_s=1)
    sweep.requeue_stale(session, config, leased=lambda kind, ident: False)
    assert session.get(Match, match_id).state == "running"


def test_work_queued_too_long_is_announced_again(session, config, alice):
    versions = three_owners(session, config)
    match = matches.create_match(session, config, "toyrace", [v.id for v in versions], ranked=True)
    session.get(Match, match.id).created_at = utcnow() - timedelta(hours=2)
    session.commit()
    again = sweep.requeue_stale(session, config, leased=lambda kind, ident: False)
    assert again["match"] == [match.id]
    assert session.get(Match, match.id).state == "queued"


def test_a_validation_whose_worker_died_is_pending_again(session, config, alice):
    from ladder.services import bots

    version = bots.upload_version(
        session, config, alice, "toyrace", "x", "bot.py", b"def act(v, l): return l[0]\n"
    )
    bots.start_validation(session, version.id)
    session.get(BotVersion, version.id).created_at = utcnow() - timedelta(minutes=5)
    session.commit()
    again = sweep.requeue_stale(session, config, leased=lambda kind, ident: False)
    assert again["validate"] == [version.id]
    assert session.get(BotVersion, version.id).state == "pending"


def test_release_puts_only_running_work_back(session, config):
    versions = three_owners(session, config)
    match_id = running_match(session, config, versions, started_ago_s=0)
    assert playing.release_match(session, config, match_id, "test") == "queued"
    assert playing.release_match(session, config, match_id, "test") is None  # queued: nothing to do


def outcome(status="ok", error=None, stderr="", seat=0, players=3):
    statuses = ["ok"] * players
    statuses[seat] = status
    errors, stderrs = [None] * players, [""] * players
    errors[seat], stderrs[seat] = error, stderr
    ranks = [1] * players
    ranks[seat] = 1 if status == "ok" else players
    return Outcome(
        game="manila",
        players=players,
        seed=9,
        options={},
        statuses=statuses,
        ranks=ranks,
        scores=[40] * players,
        errors=errors,
        stderr=stderrs,
        replay={},
    )


def test_validation_log_for_a_passing_bot():
    ok, text = validation.validation_log(
        [(2, outcome(stderr="thinking hard\n", seat=2)), (1, outcome(seat=1, players=5))], 2
    )
    assert ok
    assert "match 1 of 2: manila, 3 players, seed 9, your bot in seat 2" in text
    assert "match 2 of 2: manila, 5 players, seed 9, your bot in seat 1" in text
    assert "Your bot: ok" in text
    assert "thinking hard" in text and text.endswith("Validation passed: the bot is on the ladder.")


def test_validation_log_for_a_crashing_bot_shows_why_and_what_was_not_played():
    ok, text = validation.validation_log(
        [(2, outcome("crash", "exited with code 1", "Traceback ...\nKeyError: 'phase'", seat=2))],
        2,
    )
    assert not ok
    assert "Fault: exited with code 1" in text and "KeyError: 'phase'" in text
    assert "The other 1 validation match(es) were not played." in text
    assert text.endswith("Validation failed.")


def test_validation_plays_the_smallest_and_largest_table_away_from_seat_0(session, config, alice):
    version = make_active_bot(session, config, alice, name="v", game="toyrace")
    jobs = validation.validation_jobs(version)
    game = engine.get_game("toyrace")
    assert [(len(job.seats), seat) for seat, job in jobs] == [
        (game.min_players, game.min_players - 1),
        (game.max_players, 1),
    ]
    for seat, job in jobs:
        assert job.game == "toyrace"
        mine = job.seats[seat]
        assert (mine.key, mine.sha256) == (version.file_key, version.sha256)
        assert (mine.name, mine.owner, mine.version) == ("v", "alice", version.number)
        others = [s for s in job.seats if s.seat != seat]
        assert all(Path(s.path).is_file() for s in others)  # house bots: the package
    assert len({job.seed for _, job in jobs}) == 2


@pytest.mark.parametrize(
    ("game", "plan"),
    [("manila", [(3, 2), (5, 2)]), ("meuterer", None), ("caravelas", None)],
)
def test_every_real_game_validates_at_both_ends_of_its_player_range(game, plan):
    spec = engine.get_game(game)
    got = validation.validation_plan(game)
    assert got[0] == (spec.min_players, spec.min_players - 1)
    assert got[-1][0] == spec.max_players and got[-1][1] >= 1
    if plan is not None:
        assert got == plan


def test_house_bots_are_seeded_once_for_every_game(session, config):
    created = seed_house_bots(session, config, "a-demo-password")
    expected = {f"{g}/{name}" for g in engine.game_names() for name in house_files(g)}
    assert set(created) == expected
    real = [g for g in engine.game_names() if g != "toyrace"]
    for game in real:
        assert {"random", "greedy", "search", "starter"} <= set(house_files(game))
    demo = session.scalar(select(User).where(User.username == "demo"))
    versions = session.scalars(select(BotVersion)).all()
    assert all(v.state == "active" for v in versions)
    assert {v.bot.owner_id for v in versions} == {demo.id}
    assert session.scalars(select(Rating)).all()
    assert seed_house_bots(session, config) == []  # nothing twice


def test_every_bot_the_site_shows_for_the_house_resolves_by_its_name():
    """The demo account's bots (starters too) are the names a site visitor tries locally."""
    for game in engine.game_names():
        for name, path in house_files(game).items():
            assert resolve(f"{game}/{name}").path == path
    starter = resolve("manila/starter")
    assert starter.path.parts[-3:] == ("starter", "manila", "bot.py")
    assert starter.name == "starter"
    with pytest.raises(ValueError, match="caravelas/starter"):
        resolve("caravelas/nonesuch")


def zip_bot() -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", "def act(view, legal):\n    return legal[0]\n")
    return buffer.getvalue()


def corrupt_stored_file(session, config, version):
    """Make the version's stored file a bad zip whose hash is right (so staging refuses it)."""
    data = b"not a zip at all"
    version.sha256 = hashlib.sha256(data).hexdigest()
    version.file_key = storage.save_bot_file(
        artifacts.store(config, session), version.sha256, "zip", data
    )
    session.commit()


def test_a_stored_upload_that_cannot_be_staged_fails_validation_with_the_reason(
    session, config, alice
):
    from ladder.services import bots

    version = bots.upload_version(session, config, alice, "toyrace", "z", "bot.zip", zip_bot())
    corrupt_stored_file(session, config, version)
    # The file is refused while staging, before any bot process starts.
    config["UNSAFE_NO_SANDBOX"] = True
    done = validation.validate_version(session, config, version.id)
    assert done.state == "failed" and "not a valid zip" in done.validation_log
    assert validation.validate_version(session, config, version.id) is None  # not validated twice


def test_a_match_whose_stored_bot_cannot_be_staged_fails_unrated(session, config, alice, bob):
    from ladder.services import bots

    broken = bots.upload_version(session, config, alice, "toyrace", "z", "bot.zip", zip_bot())
    bots.start_validation(session, broken.id)
    bots.finish_validation(session, broken.id, True, "set up by the test")
    other = make_active_bot(session, config, bob, name="fine")
    match = matches.create_match(session, config, "toyrace", [broken.id, other.id], ranked=True)
    corrupt_stored_file(session, config, broken)
    config["UNSAFE_NO_SANDBOX"] = True
    assert playing.play_match(session, config, match.id) is None
    session.expire_all()
    failed = session.get(Match, match.id)
    assert failed.state == "failed"
    assert (
        "could not be played" in failed.unrated_reason
        and "not a valid zip" in failed.unrated_reason
    )
    assert failed.attempts == 1
    assert all(session.get(Rating, v.id).games == 0 for v in (broken, other))
    assert playing.play_match(session, config, match.id) is None  # a failed match is not replayed


def test_a_damaged_stored_file_is_refused_by_its_hash(session, config, alice):
    from ladder.services import bots

    version = bots.upload_version(session, config, alice, "toyrace", "d", "bot.zip", zip_bot())
    artifacts.store(config, session).put(version.file_key, b"PK\x03\x04 flipped bits")
    session.commit()
    config["UNSAFE_NO_SANDBOX"] = True
    done = validation.validate_version(session, config, version.id)
    assert done.state == "failed" and "the stored copy is damaged" in done.validation_log
    assert not list(Path(config["BOT_CACHE_DIR"]).glob("*.zip"))  # nothing cached


def test_a_match_whose_stored_bot_is_missing_fails_with_the_reason(session, config, alice, bob):
    gone = make_active_bot(
        session, config, alice, name="gone", source=b"def act(v, l):\n    return l[0]\n"
    )
    other = make_active_bot(session, config, bob, name="fine")
    match = matches.create_match(session, config, "toyrace", [gone.id, other.id], ranked=True)
    assert artifacts.store(config, session).delete(gone.file_key)
    session.commit()
    config["UNSAFE_NO_SANDBOX"] = True
    assert playing.play_match(session, config, match.id) is None
    session.expire_all()
    failed = session.get(Match, match.id)
    assert failed.state == "failed" and "ArtifactMissing" in failed.unrated_reason
    assert gone.file_key in failed.unrated_reason


def test_worker_fetches_each_bot_once_per_host(session, config, alice, bob, monkeypatch):
    a = make_active_bot(session, config, alice, name="a")
    b = make_active_bot(
        session, config, bob, name="b", source=b"def act(v, l):\n    return l[-1]\n"
    )
    fetched = []
    real_get = artifacts.DatabaseStore.get
    monkeypatch.setattr(
        artifacts.DatabaseStore, "get", lambda self, key: fetched.append(key) or real_get(self, key)
    )
    config["UNSAFE_NO_SANDBOX"] = True
    for seed in (1, 2, 3):
        match = matches.create_match(
            session, config, "toyrace", [a.id, b.id], ranked=False, seed=seed
        )
        assert playing.play_match(session, config, match.id).state == "finished"
    assert sorted(fetched) == sorted([a.file_key, b.file_key])
