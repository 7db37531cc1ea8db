"""services.retention: old ladder replays are dropped, everything else stays."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from ladder import artifacts
from ladder.cli import main
from ladder.errors import Gone, ServiceError
from ladder.jobs import tasks
from ladder.models import Blob, Match, MatchSeat, Rating, RatingHistory
from ladder.services import matches, retention
from tests.unit.ladder.helpers import aged_matches, outcome_for

DROPPED = ("ladder", "ladder2")
KEPT = ("recent", "unranked", "challenge", "tournament")


@pytest.fixture
def aged(session, config, alice, bob):
    return aged_matches(session, config, alice, bob)


def rows(session) -> dict:
    """Every row the policy must keep, as plain tuples."""
    session.expire_all()

    def table(model, *order):
        return [
            tuple(getattr(r, c.key) for c in model.__table__.columns)
            for r in session.scalars(select(model).order_by(*order))
        ]

    found = {
        "matches": [
            (m.id, m.state, m.ranked, m.finished_at, m.seed)
            for m in session.scalars(select(Match).order_by(Match.id))
        ],
        "seats": table(MatchSeat, MatchSeat.id),
        "history": table(RatingHistory, RatingHistory.id),
        "ratings": table(Rating, Rating.version_id),
    }
    session.rollback()
    return found


def replay_keys(session) -> set[str]:
    found = set(session.scalars(select(Blob.key).where(Blob.key.like("replays/%"))))
    session.rollback()
    return found


def test_old_ladder_replays_go_and_every_row_and_rating_stays(session, config, aged):
    before, keys = rows(session), replay_keys(session)
    assert before["history"], "the ladder matches moved ratings"
    pruned = retention.prune_replays(session, config)
    assert (pruned.matches, pruned.keep_days, pruned.by_game) == (2, 30, {"toyrace": 2})
    assert pruned.bytes > 0 and pruned.batches == 1
    assert rows(session) == before
    gone = {f"replays/toyrace/{aged[kind]}.json.gz" for kind in DROPPED}
    assert replay_keys(session) == keys - gone
    for kind in DROPPED:
        match = session.get(Match, aged[kind])
        assert match.replay_key is None and match.replay_pruned_at is not None
        with pytest.raises(Gone, match=r"expired on .* kept 30 days"):
            matches.replay_bytes(session, config, match)
    for kind in KEPT:
        match = session.get(Match, aged[kind])
        assert match.replay_pruned_at is None
        assert matches.replay_bytes(session, config, match)[:2] == b"\x1f\x8b"


def test_a_match_still_running_is_left_alone_and_recorded_whole(session, config, aged):
    retention.prune_replays(session, config)
    running = session.get(Match, aged["running"])
    assert running.state == "running" and running.replay_pruned_at is None
    matches.record_match(session, config, running.id, outcome_for(running, [1, 2]))
    session.commit()
    assert retention.prune_replays(session, config).matches == 0  # finished just now
    assert matches.replay_bytes(session, config, running)


def test_pruning_again_changes_nothing(session, config, aged):
    retention.prune_replays(session, config)
    before, keys = rows(session), replay_keys(session)
    again = retention.prune_replays(session, config)
    assert (again.matches, again.bytes, again.batches) == (0, 0, 0)
    assert rows(session) == before and replay_keys(session) == keys


def test_a_dry_run_counts_what_would_go_and_changes_nothing(session, config, aged):
    before, keys = rows(session), replay_keys(session)
    dry = retention.prune_replays(session, config, dry_run=True)
    assert rows(session) == before and replay_keys(session) == keys
    assert session.get(Match, aged["ladder"]).replay_pruned_at is None
    real = retention.prune_replays(session, config)
    assert (dry.matches, dry.bytes) == (real.matches, real.bytes) == (2, real.bytes)


def test_batches_are_committed_one_by_one(session, config, aged):
    pruned = retention.prune_replays(session, config, batch=1)
    assert (pruned.matches, pruned.batches) == (2, 2)
    assert not session.in_transaction()  # every batch committed; nothing left open


def test_a_longer_policy_keeps_more(session, config, aged):
    assert retention.prune_replays(session, config, keep_days=41).matches == 0
    assert retention.prune_replays(session, config, keep_days=39).matches == 2


def test_the_directory_store_loses_the_files(session, config, alice, bob, tmp_path):
    config["ARTIFACT_STORE"] = "directory"
    config["ARTIFACT_DIR"] = str(tmp_path / "artifacts")
    aged = aged_matches(session, config, alice, bob)
    store = artifacts.store(config, session)
    old = session.get(Match, aged["ladder"]).replay_key
    assert store.exists(old)
    pruned = retention.prune_replays(session, config)
    assert pruned.matches == 2 and pruned.bytes > 0
    assert not store.exists(old)
    assert store.exists(session.get(Match, aged["recent"]).replay_key)


@pytest.mark.parametrize("days", [0, -3, 36_501, True, "7", None])
def test_bad_keep_days_are_refused(session, config, days):
    config["REPLAY_KEEP_DAYS"] = 0  # a bad setting is refused as clearly (None reads it)
    with pytest.raises(ServiceError, match="whole number of days from 1 to 36,500"):
        retention.prune_replays(session, config, keep_days=days)


@pytest.fixture
def env(monkeypatch, config):
    for key in ("DATABASE_URL", "SECRET_KEY"):
        monkeypatch.setenv(key, str(config[key]))
    monkeypatch.setenv("LADDER_VAR", str(config["REPLAY_DIR"]).rsplit("/", 1)[0])
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("REPLAY_KEEP_DAYS", raising=False)


def test_the_command_dry_runs_then_prunes(session, config, aged, env):
    keys = replay_keys(session)
    result = CliRunner().invoke(main, ["replays", "prune", "--dry-run"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "would drop the replays of 2 ladder matches" in result.output
    assert "(kept 30 days)" in result.output and "toyrace: 2" in result.output
    assert replay_keys(session) == keys
    result = CliRunner().invoke(main, ["replays", "prune", "--keep-days", "10"])
    assert result.exit_code == 0, result.output
    assert (
        "dropped the replays of 2 ladder matches" in result.output and "1 batches" in result.output
    )
    assert len(replay_keys(session)) == len(keys) - 2


@pytest.mark.parametrize("days", ["0", "-1", "x"])
def test_the_command_refuses_bad_keep_days(session, config, aged, env, days):
    keys = replay_keys(session)
    result = CliRunner().invoke(main, ["replays", "prune", "--keep-days", days])
    assert result.exit_code == 2
    assert "--keep-days" in result.output
    assert ("whole number of days" in result.output) or ("is not a valid integer" in result.output)
    assert replay_keys(session) == keys


def test_the_daily_task_runs_the_policy(app, session, config, aged):
    with app.app_context():
        done = tasks.prune_replays.run()
    assert done["matches"] == 2 and done["keep_days"] == 30
    session.expire_all()
    assert session.get(Match, aged["ladder"]).replay_pruned_at is not None
    assert session.get(Match, aged["challenge"]).replay_pruned_at is None
    schedule = app.extensions["celery"].conf.beat_schedule
    assert {e["task"] for e in schedule.values()} >= {"ladder.prune_replays", "ladder.schedule"}


def test_what_the_viewer_kept_of_a_pruned_replay_goes_with_it(session, config, aged):
    import gzip
    import json

    from ladder.services import viewer

    old, recent = (session.get(Match, aged[kind]) for kind in ("ladder", "recent"))
    store = artifacts.store(config, session)
    for match in (old, recent):  # as the viewer keeps them on a first read
        info = {"perspectives": ["spectator"], "steps": 3}
        store.put(
            f"{viewer._prefix(match)}/summary.json.gz", gzip.compress(json.dumps(info).encode())
        )
        store.put(viewer._chunk_key(match, "spectator", 0), gzip.compress(b"[]"))
    session.commit()

    def kept(match) -> list[str]:
        found = list(session.scalars(select(Blob.key).where(Blob.key.like(f"viewer/{match.id}/%"))))
        session.rollback()
        return found

    assert kept(old) and kept(recent)
    retention.prune_replays(session, config)
    assert kept(old) == [] and kept(recent)
