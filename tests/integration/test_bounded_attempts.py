"""Work that always fails ends `failed` after MAX_ATTEMPTS on a live ladder.

Real Redis, a real Celery worker and beat; the worker's match runner raises
every time (tests/integration/broken_runner.py: the failure is the one fake).
"""

from __future__ import annotations

import shutil
import sys

import pytest
from sqlalchemy import func, select

from ladder.cli.processes import worker_command
from ladder.extensions import app_settings
from ladder.models import BotVersion, Match, MatchSeat, Rating, RatingHistory
from ladder.services import accounts, bots
from ladder.services.accounts import set_staff
from ladder.services.house import seed_house_bots
from tests.integration.live import LiveLadder, wait_until

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]

BOT = b"def act(view, legal):\n    return legal[0]\n"


def start_broken_worker(live: LiveLadder, name: str = "broken") -> None:
    celery_args = worker_command(1)[3:]  # what follows `python -m celery`
    command = [sys.executable, "-m", "tests.integration.broken_runner", *celery_args]
    live.start(name, [*command, "--hostname", f"{name}@%h"])
    live.wait_for_log(name, " ready.")


def seed_house(live: LiveLadder) -> None:
    with live.app.app_context():
        from ladder.extensions import db

        seed_house_bots(db.session, app_settings(live.app))  # announces nothing


def upload(live: LiveLadder) -> int:
    """A new version through the service, announced to the workers as an upload is."""
    with live.app.app_context():
        from ladder.extensions import db

        user = accounts.register(db.session, "owen", "correct horse")
        db.session.commit()
        version = bots.upload_version(
            db.session, app_settings(live.app), user, "manila", "fine", "bot.py", BOT
        )
        return version.id


def staff_page(live: LiveLadder) -> str:
    with live.app.app_context():
        from ladder.extensions import db

        accounts.register(db.session, "harbour", "correct horse")
        set_staff(db.session, "harbour", True)
        db.session.commit()
    client = live.app.test_client()
    client.post("/login", data={"username": "harbour", "password": "correct horse"})
    return client.get("/staff").get_data(as_text=True)


def failed_matches(live: LiveLadder) -> list[Match]:
    with live.session() as s:
        return s.scalars(select(Match).where(Match.state == "failed").order_by(Match.id)).all()


def seats_of(live: LiveLadder, match_id: int) -> set[int]:
    with live.session() as s:
        return set(s.scalars(select(MatchSeat.version_id).where(MatchSeat.match_id == match_id)))


# On PostgreSQL, as production runs: the attempts' bookkeeping is the same SQL on both
# databases, and the unit tests run it on each.
on_postgresql = pytest.mark.parametrize("live_database_url", ["postgresql"], indirect=True)


@on_postgresql
def test_an_infrastructure_error_every_time_ends_in_failed_work_and_free_bots(
    tmp_path, live_database_url
):
    live = LiveLadder(
        tmp_path, live_database_url, MAX_ATTEMPTS="2", LADDER_IN_FLIGHT="1", BROKEN_RUNNER="oserror"
    )
    try:
        seed_house(live)
        start_broken_worker(live)
        version_id = upload(live)
        live.start_beat()
        first = wait_until(lambda: failed_matches(live), 60, "a match to fail")[0]
        reason = "2 attempts failed; the last: OSError: [Errno 5] Input/output error"
        assert first.attempts == 2 and first.unrated_reason.startswith(reason)

        # Its bots are matchable again: a later match of its game seats them.
        bots_of_first = seats_of(live, first.id)

        def reseated():
            with live.session() as s:
                later = s.scalars(
                    select(Match.id).where(Match.game == first.game, Match.id > first.id)
                ).all()
            return any(seats_of(live, m) & bots_of_first for m in later)

        wait_until(reseated, 60, "the failed match's bots to be seated again")

        # The validation ends failed too, with the reason in its owner's log.
        def validated():
            with live.session() as s:
                version = s.get(BotVersion, version_id)
                return version.state == "failed" and version

        version = wait_until(validated, 60, "the validation to fail")
        assert version.attempts == 2
        assert f"could not be run ({reason}" in version.validation_log

        # Bounded: no match was started more than twice, none was rated.
        with live.session() as s:
            assert s.scalar(select(func.max(Match.attempts))) <= 2
            assert s.scalar(select(func.count(RatingHistory.id))) == 0
            assert s.scalar(select(func.sum(Rating.games))) == 0
        # The staff page lists the latest failures (more fail while the test runs, so
        # the first may have scrolled off): at least one failed match, with the reason.
        page = staff_page(live)
        listed = [m.id for m in failed_matches(live) if f'href="/matches/{m.id}"' in page]
        assert listed and reason in page
    finally:
        live.close()


@on_postgresql
def test_any_other_error_fails_the_work_at_once_without_a_retry(tmp_path, live_database_url):
    live = LiveLadder(
        tmp_path, live_database_url, MAX_ATTEMPTS="3", LADDER_IN_FLIGHT="1", BROKEN_RUNNER="runtime"
    )
    try:
        seed_house(live)
        start_broken_worker(live)
        version_id = upload(live)
        live.start_beat()
        wait_until(lambda: len(failed_matches(live)) >= 4, 60, "four failed matches")

        def validated():
            with live.session() as s:
                version = s.get(BotVersion, version_id)
                return version.state == "failed" and version

        version = wait_until(validated, 60, "the validation to fail")
        made_up = "RuntimeError: the runner tripped over a reply (made up by the test)"
        assert version.attempts == 1 and f"could not be run ({made_up})" in version.validation_log
        for match in failed_matches(live):
            assert match.attempts == 1
            assert match.unrated_reason == f"could not be played: {made_up}"
        assert "Retry in" not in live.log("broken")  # Celery never retried a task
    finally:
        live.close()
