"""No match or validation is handed out forever: each start is an attempt, and
after MAX_ATTEMPTS the work ends `failed` with its reason.

The one fake here is the failure itself: the match runner the work service
calls (`workers.match.run_job`) replaced by one that raises.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from billiard.exceptions import SoftTimeLimitExceeded
from sqlalchemy import func, select, update
from sqlalchemy import inspect as sa_inspect

from ladder.broker import announce
from ladder.errors import NotFound
from ladder.jobs.tasks import TOO_LONG_ERRORS
from ladder.models import BotVersion, Match, Rating, RatingHistory, utcnow
from ladder.services import (
    bot_files,
    bots,
    infrastructure,
    matches,
    playing,
    scheduler,
    sweep,
    validation,
)
from ladder.services.accounts import set_staff
from ladder.transactions import unit_of_work
from tests.unit.ladder.conftest import BOT_SOURCE, login, make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for
from workers import BadBotFile, HostStalled


@pytest.fixture
def config(config):
    config["MAX_ATTEMPTS"] = 3
    config["LADDER_IN_FLIGHT"] = 1
    return config


def runner_raising(monkeypatch, exc: BaseException) -> list[dict]:
    """Make every match the work service runs raise `exc`; returns the jobs it was given."""
    jobs = []

    def run_job(job, limits, unsafe):
        jobs.append(job)
        raise exc

    monkeypatch.setattr(bot_files, "run_job", run_job)
    return jobs


def two_bots(session, config):
    """Two active bots of two owners: the only table the scheduler can make."""
    return [
        make_active_bot(session, config, make_user(session, name), name=f"{name}-bot").id
        for name in ("ann", "ben")
    ]


def fresh(session, model, ident):
    session.expire_all()
    return session.get(model, ident)


def lapse(session, model, ident):
    """Make running work look as if its worker took it a while ago (past LEASE_S)."""
    column = "started_at" if model is Match else "created_at"
    when = utcnow() - timedelta(minutes=5)
    session.execute(update(model).where(model.id == ident).values({column: when}))
    session.commit()


def nobody_holds(kind, ident):
    return False


# -- matches ----------------------------------------------------------------------------
def test_an_infrastructure_error_is_retried_until_max_attempts_then_the_match_fails(
    session, config, monkeypatch
):
    versions = two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(1))
    jobs = runner_raising(monkeypatch, OSError(28, "No space left on device"))
    for attempt in (1, 2):
        with pytest.raises(OSError):  # the task retries these (with backoff)
            playing.play_match(session, config, match_id)
        match = fresh(session, Match, match_id)
        assert (match.state, match.attempts) == ("queued", attempt)
    assert playing.play_match(session, config, match_id) is None  # no raise: no retry
    assert len(jobs) == 3
    match = fresh(session, Match, match_id)
    assert (match.state, match.attempts) == ("failed", 3)
    assert match.finished_at is not None
    assert match.unrated_reason == (
        "3 attempts failed; the last: OSError: [Errno 28] No space left on device"
    )
    # Unrated, and never played again.
    assert all(session.get(Rating, v).games == 0 for v in versions)
    assert session.scalar(select(func.count(RatingHistory.id))) == 0
    assert playing.play_match(session, config, match_id) is None
    assert len(jobs) == 3


def test_a_failed_match_frees_its_bots_for_the_scheduler(session, config, monkeypatch):
    versions = two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(2))
    config["LADDER_IN_FLIGHT"] = 2
    # While the match is in flight its two bots are busy: no second table.
    assert scheduler.schedule_ladder(session, config, random.Random(3)) == []
    runner_raising(monkeypatch, RuntimeError("the runner tripped over a reply"))
    playing.play_match(session, config, match_id)
    assert fresh(session, Match, match_id).state == "failed"
    created = scheduler.schedule_ladder(session, config, random.Random(4))
    assert len(created) == 1
    seated = {seat.version_id for seat in session.get(Match, created[0]).seats}
    assert seated == set(versions)


def test_a_bug_fails_the_match_at_once_without_a_retry(session, config, monkeypatch):
    two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(5))
    jobs = runner_raising(monkeypatch, RuntimeError("maximum recursion depth exceeded"))
    announced = []
    announce.listen(session, lambda kind, ident: announced.append((kind, ident)))
    assert playing.play_match(session, config, match_id) is None  # nothing for Celery to retry
    match = fresh(session, Match, match_id)
    assert (match.state, match.attempts) == ("failed", 1)
    assert match.unrated_reason == (
        "could not be played: RuntimeError: maximum recursion depth exceeded"
    )
    # The scheduler does not hand it out again, however old it gets.
    session.execute(
        update(Match).where(Match.id == match_id).values(created_at=utcnow() - timedelta(days=1))
    )
    session.commit()
    assert sweep.requeue_stale(session, config, nobody_holds)["match"] == []
    assert playing.play_match(session, config, match_id) is None
    assert len(jobs) == 1 and ("match", match_id) not in announced


def test_a_time_limit_struck_outside_the_service_fails_only_the_attempt_it_claimed(
    session, config, monkeypatch
):
    two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(16))
    # Struck again while failing the match: play_match lets it go, the claim says which
    # attempt it had.
    runner_raising(monkeypatch, SoftTimeLimitExceeded())
    fail_match = matches.fail_match

    def struck(*args, **kwargs):
        monkeypatch.setattr(matches, "fail_match", fail_match)
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(matches, "fail_match", struck)
    claim = playing.Claim()
    with pytest.raises(SoftTimeLimitExceeded):
        playing.play_match(session, config, match_id, too_long=TOO_LONG_ERRORS, claim=claim)
    assert claim.attempt == 1
    # Its lease lapsed meanwhile: the match went back to the queue and another worker
    # holds attempt 2 now.
    assert fresh(session, Match, match_id).state == "running"
    with unit_of_work(session):
        assert matches.requeue_match(session, match_id, 3)
    with unit_of_work(session):
        assert matches.start_match(session, match_id) == 2
    assert playing.fail_struck(session, match_id, claim) is False
    assert (fresh(session, Match, match_id).state, fresh(session, Match, match_id).attempts) == (
        "running",
        2,
    )
    assert playing.fail_struck(session, match_id, playing.Claim()) is False  # no claim
    assert fresh(session, Match, match_id).state == "running"
    assert playing.fail_struck(session, match_id, playing.Claim(attempt=2)) is True
    match = fresh(session, Match, match_id)
    assert (match.state, match.unrated_reason) == ("failed", "the match took too long")


def test_a_task_past_its_time_limit_fails_the_match_and_counts_the_attempt(
    session, config, monkeypatch
):
    two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(6))
    runner_raising(monkeypatch, SoftTimeLimitExceeded())
    assert playing.play_match(session, config, match_id, too_long=TOO_LONG_ERRORS) is None
    match = fresh(session, Match, match_id)
    assert (match.state, match.attempts, match.unrated_reason) == (
        "failed",
        1,
        "the match took too long",
    )


def test_a_match_whose_worker_dies_each_time_fails_after_max_attempts(session, config):
    two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(7))
    announced = []
    announce.listen(session, lambda kind, ident: announced.append((kind, ident)))
    for attempt in (1, 2, 3):
        assert matches.start_match(session, match_id)  # a worker takes it, then dies
        lapse(session, Match, match_id)
        again = sweep.requeue_stale(session, config, nobody_holds)
        match = fresh(session, Match, match_id)
        assert match.attempts == attempt
        if attempt < 3:
            assert match.state == "queued" and again["match"] == [match_id]
    assert match.state == "failed" and again["match"] == []
    assert match.unrated_reason == (
        "3 attempts failed; the last: its worker stopped before the end (lease lapsed)"
    )
    assert announced == [("match", match_id)] * 2


def test_a_lapsed_lease_and_errors_share_one_count(session, config, monkeypatch):
    two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(8))
    assert matches.start_match(session, match_id)  # attempt 1: its worker dies
    lapse(session, Match, match_id)
    sweep.requeue_stale(session, config, nobody_holds)
    runner_raising(monkeypatch, ConnectionResetError("database connection reset"))
    with pytest.raises(OSError):
        playing.play_match(session, config, match_id)  # attempt 2
    assert playing.play_match(session, config, match_id) is None  # attempt 3: the last
    match = fresh(session, Match, match_id)
    assert (match.state, match.attempts) == ("failed", 3)
    assert "the last: ConnectionResetError: database connection reset" in match.unrated_reason


def test_a_stalled_host_puts_the_match_back_unplayed_and_charges_no_seat(
    session, config, monkeypatch
):
    """Issue 30: a frozen worker host once recorded a house bot as `timeout`."""
    versions = two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(9))
    runs = []

    def run_job(job, limits, unsafe):  # the host stalls in the first run only
        runs.append(job)
        if len(runs) == 1:
            raise HostStalled(7.5)
        return outcome_for(session.get(Match, match_id), [1, 2])

    monkeypatch.setattr(bot_files, "run_job", run_job)
    with pytest.raises(HostStalled):  # the task retries it, as any infrastructure failure
        playing.play_match(session, config, match_id)
    match = fresh(session, Match, match_id)
    assert (match.state, match.attempts, match.unrated_reason) == ("queued", 1, None)
    assert [(s.status, s.error, s.rank) for s in match.seats] == [(None, None, None)] * 2
    assert all(session.get(Rating, v).games == 0 for v in versions)
    assert session.scalar(select(func.count(RatingHistory.id))) == 0
    # Played again on a host that keeps running: recorded as it went, nobody faulted.
    playing.play_match(session, config, match_id)
    match = fresh(session, Match, match_id)
    assert (match.state, match.attempts) == ("finished", 2)
    assert [s.status for s in match.seats] == ["ok", "ok"]
    assert all(session.get(Rating, v).games == 1 for v in versions)


def test_a_long_reason_is_one_short_line():
    reason = infrastructure.describe(RuntimeError("line one\n" + "x" * 1000))
    assert "\n" not in reason and len(reason) == infrastructure.REASON_CHARS
    assert reason.startswith("RuntimeError: line one xxx") and reason.endswith("…")
    assert infrastructure.describe(KeyError()) == "KeyError"


def test_staff_see_the_failed_match_and_its_reason(session, config, client, monkeypatch):
    two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(9))
    runner_raising(monkeypatch, RuntimeError("boom in the runner"))
    playing.play_match(session, config, match_id)
    make_user(session, "harbour")
    set_staff(session, "harbour", True)
    session.commit()
    login(client, "harbour")
    page = client.get("/staff").get_data(as_text=True)
    assert f'href="/matches/{match_id}"' in page
    assert "could not be played: RuntimeError: boom in the runner" in page
    status = client.get("/staff/status.json").get_json()["failures_last_hour"]
    assert status["matches"] == 1
    assert status["recent"][0]["reason"] == "could not be played: RuntimeError: boom in the runner"
    # Anyone sees on the match page that it failed, unrated, and why.
    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert "Failed, not rated: could not be played: RuntimeError: boom in the runner" in page


# -- validations ---------------------------------------------------------------------------
def pending_version(session, config, owner_name="owen"):
    owner = make_user(session, owner_name)
    version = bots.upload_version(session, config, owner, "toyrace", "new", "bot.py", BOT_SOURCE)
    return version.id


def test_a_validation_with_infrastructure_errors_fails_after_max_attempts(
    session, config, monkeypatch
):
    version_id = pending_version(session, config)
    runner_raising(monkeypatch, OSError(12, "Cannot allocate memory"))
    for attempt in (1, 2):
        with pytest.raises(OSError):
            validation.validate_version(session, config, version_id)
        version = fresh(session, BotVersion, version_id)
        assert (version.state, version.attempts) == ("pending", attempt)
    done = validation.validate_version(session, config, version_id)
    assert done is not None and done.state == "failed" and done.attempts == 3
    assert done.validated_at is not None
    assert done.validation_log.startswith(
        "Validation failed: the validation match could not be run (3 attempts failed;"
        " the last: OSError: [Errno 12] Cannot allocate memory)."
    )
    assert "upload the same file again" in done.validation_log
    assert session.get(Rating, version_id) is None
    assert validation.validate_version(session, config, version_id) is None


def test_a_stalled_host_during_validation_is_not_the_uploads_fault(session, config, monkeypatch):
    version_id = pending_version(session, config)
    runner_raising(monkeypatch, HostStalled(4.0))
    with pytest.raises(HostStalled):
        validation.validate_version(session, config, version_id)
    version = fresh(session, BotVersion, version_id)
    assert (version.state, version.attempts) == ("pending", 1)


def test_a_validation_bug_fails_at_once_with_the_reason_for_its_owner(
    session, config, client, monkeypatch
):
    version_id = pending_version(session, config)
    runner_raising(monkeypatch, TypeError("'<' not supported between 'float' and 'dict'"))
    done = validation.validate_version(session, config, version_id)
    assert (done.state, done.attempts) == ("failed", 1)
    assert "(TypeError: '<' not supported between 'float' and 'dict')" in done.validation_log
    login(client, "owen")
    page = client.get(f"/bots/{done.bot_id}").get_data(as_text=True)
    assert "the validation match could not be run (TypeError:" in page


def test_a_service_error_while_validating_is_not_blamed_on_the_upload(session, config, monkeypatch):
    # A ServiceError was a ValueError, and `except ValueError` (meant for a file that
    # cannot be staged) told the owner their upload was at fault.
    version_id = pending_version(session, config)
    runner_raising(monkeypatch, NotFound("no bot version 999"))
    done = validation.validate_version(session, config, version_id)
    assert (done.state, done.attempts) == ("failed", 1)
    assert done.validation_log.startswith(
        "Validation failed: the validation match could not be run (NotFound: no bot version 999)."
    )
    assert "most likely a fault of the ladder" in done.validation_log


def test_a_file_that_cannot_be_staged_is_the_uploads_fault(session, config, monkeypatch):
    version_id = pending_version(session, config)
    runner_raising(monkeypatch, BadBotFile("bot.zip has no bot.py at its root"))
    done = validation.validate_version(session, config, version_id)
    assert (done.state, done.attempts) == ("failed", 1)
    assert done.validation_log == "Validation failed: bot.zip has no bot.py at its root"


def test_a_match_whose_file_cannot_be_staged_fails_without_a_retry(session, config, monkeypatch):
    two_bots(session, config)
    [match_id] = scheduler.schedule_ladder(session, config, random.Random(6))
    runner_raising(monkeypatch, BadBotFile("bot.zip is not a valid zip: bad magic"))
    assert playing.play_match(session, config, match_id) is None
    match = fresh(session, Match, match_id)
    assert (match.state, match.attempts) == ("failed", 1)
    assert match.unrated_reason == (
        "could not be played: BadBotFile: bot.zip is not a valid zip: bad magic"
    )


def test_a_validation_whose_worker_dies_each_time_fails_after_max_attempts(session, config):
    version_id = pending_version(session, config)
    for attempt in (1, 2, 3):
        bots.start_validation(session, version_id)
        lapse(session, BotVersion, version_id)
        again = sweep.requeue_stale(session, config, nobody_holds)
        version = fresh(session, BotVersion, version_id)
        assert version.attempts == attempt
        if attempt < 3:
            assert version.state == "pending" and again["validate"] == [version_id]
    assert version.state == "failed" and again["validate"] == []
    assert "the last: its worker stopped before the end (lease lapsed)" in version.validation_log


def test_a_validation_past_its_time_limit_fails(session, config, monkeypatch):
    version_id = pending_version(session, config)
    runner_raising(monkeypatch, SoftTimeLimitExceeded())
    done = validation.validate_version(session, config, version_id, too_long=TOO_LONG_ERRORS)
    assert (done.state, done.validation_log) == (
        "failed",
        "Validation failed: the match took too long.",
    )


def test_staff_see_a_failed_validations_reason(session, config, monkeypatch):
    from ladder.queries.status import ladder_status

    version_id = pending_version(session, config)
    runner_raising(monkeypatch, RuntimeError("runner bug"))
    validation.validate_version(session, config, version_id)
    recent = ladder_status(session, config)["failures_last_hour"]["recent"]
    assert recent[0]["id"] == version_id
    assert recent[0]["reason"] == (
        "new v1: Validation failed: the validation match could not be run"
        " (RuntimeError: runner bug)."
    )


# -- the migration -------------------------------------------------------------------------
def test_migration_moves_a_failed_matchs_reason_to_the_match_and_back(empty_database_url):
    from alembic import command
    from sqlalchemy import text

    from ladder.cli import db as schema
    from ladder.extensions import make_engine

    url = empty_database_url
    schema.upgrade(url, "5c3f2a9d41e7")
    eng = make_engine(url)
    with eng.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO matches (id, game, seed, players, options, ranked, state, created_at)"
                " VALUES (1, 'toyrace', 1, 2, '{}', TRUE, 'failed', '2026-01-01 00:00:00'),"
                " (2, 'toyrace', 1, 2, '{}', TRUE, 'finished', '2026-01-01 00:00:00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO users (id, username, password_hash, created_at)"
                " VALUES (1, 'old', 'x', '2026-01-01 00:00:00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO bots (id, owner_id, game, name, created_at)"
                " VALUES (1, 1, 'toyrace', 'b', '2026-01-01 00:00:00')"
            )
        )
        conn.execute(
            text(
                "INSERT INTO bot_versions (id, bot_id, number, uploaded_by_id, filename, kind,"
                " size, sha256, path, state, validation_log, created_at) VALUES"
                " (1, 1, 1, 1, 'bot.py', 'py', 1, 'x', 'p1', 'active', '', '2026-01-01 00:00:00'),"
                " (2, 1, 2, 1, 'bot.py', 'py', 1, 'x', 'p2', 'active', '', '2026-01-01 00:00:00')"
            )
        )
        # The seats of an old failed match carried its reason.
        conn.execute(
            text(
                "INSERT INTO match_seats (match_id, seat, version_id, error) VALUES"
                " (1, 0, 1, NULL), (1, 1, 2, 'worker lost'), (2, 0, 1, 'timeout on move 3')"
            )
        )
    schema.upgrade(url)
    with eng.connect() as conn:
        rows = conn.execute(text("SELECT id, attempts, unrated_reason FROM matches ORDER BY id"))
        assert rows.all() == [(1, 0, "worker lost"), (2, 0, None)]
        conn.execute(text("UPDATE match_seats SET error = NULL WHERE match_id = 1"))
        conn.commit()
    command.downgrade(schema.alembic_config(url), "5c3f2a9d41e7")
    with eng.connect() as conn:
        columns = {c["name"] for c in sa_inspect(conn).get_columns("matches")}
        assert "attempts" not in columns and "unrated_reason" not in columns
        errors = conn.execute(text("SELECT match_id, error FROM match_seats ORDER BY id"))
        assert errors.all() == [(1, "worker lost"), (1, "worker lost"), (2, "timeout on move 3")]
    eng.dispose()
