"""Upload tries per hour in two buckets: files stored, and files refused for what they hold.

Refused tries (a syntax error, a bad zip, an unknown game) do not use up the accepted
budget, a flood of them still stops, and a file over MAX_BOT_BYTES counts in neither.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladder.errors import RateLimited, ServiceError, TooLarge
from ladder.extensions import make_engine
from ladder.models import BotVersion, ThrottleEvent, User
from ladder.services import bots
from tests.unit.ladder.conftest import BOT_SOURCE

SYNTAX_ERROR = b"def act(view, legal)\n    return legal[0]\n"


def upload(session, config, user, data=BOT_SOURCE, name="r", game="toyrace", filename="bot.py"):
    return bots.upload_version(session, config, user, game, name, filename, data)


def buckets(session, user) -> dict[str, int]:
    rows = session.execute(
        select(ThrottleEvent.kind, func.count())
        .where(ThrottleEvent.key == str(user.id))
        .group_by(ThrottleEvent.kind)
    ).all()
    return dict(rows)


def test_refused_tries_leave_the_accepted_budget_whole(session, config, alice):
    config.update(UPLOADS_PER_HOUR=2, REFUSED_UPLOADS_PER_HOUR=10)
    refusals = [
        {"data": SYNTAX_ERROR},
        {"data": b"PK not a zip", "filename": "bot.zip"},
        {"game": "chess"},
        {"name": ""},
        {"data": b"print(1)\n"},
    ]
    for fields in refusals:
        with pytest.raises(ServiceError) as refused:
            upload(session, config, alice, **fields)
        assert refused.value.status == 400
    assert buckets(session, alice) == {"upload-refused": 5}
    upload(session, config, alice)
    upload(session, config, alice)
    assert buckets(session, alice) == {"upload-refused": 5, "upload": 2}
    with pytest.raises(RateLimited, match="at most 2 accepted uploads an hour") as limited:
        upload(session, config, alice)
    assert 3590 <= limited.value.retry_after <= 3600
    assert buckets(session, alice) == {"upload-refused": 5, "upload": 2}  # a 429 is not counted


def test_a_flood_of_refused_tries_stops_at_its_own_limit(session, config, alice, bob):
    config.update(UPLOADS_PER_HOUR=20, REFUSED_UPLOADS_PER_HOUR=3)
    for _ in range(3):
        with pytest.raises(ServiceError, match="syntax error"):
            upload(session, config, alice, data=SYNTAX_ERROR)
    # Full: the next try waits, a good file too (it cannot be known good unread).
    for data in (SYNTAX_ERROR, BOT_SOURCE):
        with pytest.raises(RateLimited, match="at most 3 refused uploads an hour") as limited:
            upload(session, config, alice, data=data)
        assert "try again in 60 minutes" in str(limited.value)
        assert 3590 <= limited.value.retry_after <= 3600
    assert buckets(session, alice) == {"upload-refused": 3}
    assert session.scalar(select(func.count(BotVersion.id))) == 0
    upload(session, config, bob)  # another user's buckets are their own


def test_a_file_over_the_size_limit_counts_in_neither_bucket(session, config, alice):
    config.update(MAX_BOT_BYTES=1000, REFUSED_UPLOADS_PER_HOUR=1, UPLOADS_PER_HOUR=1)
    for _ in range(3):
        with pytest.raises(TooLarge) as large:
            upload(session, config, alice, data=b"#" * 2000, filename="big.py")
        assert large.value.status == 413 and large.value.field == "file"
        assert str(large.value) == "big.py is 2 KiB; the limit is 1,000 bytes"
    assert buckets(session, alice) == {}
    upload(session, config, alice)
    assert buckets(session, alice) == {"upload": 1}


def test_a_try_stored_moves_from_refused_to_accepted(session, config, alice):
    """While a try is checked it counts as refused; once stored, as accepted only."""
    config.update(UPLOADS_PER_HOUR=5, REFUSED_UPLOADS_PER_HOUR=1)
    for _ in range(5):  # five good files pass a refused limit of one
        upload(session, config, alice)
    assert buckets(session, alice) == {"upload": 5}


def test_a_retired_name_is_a_refused_try(session, config, alice):
    config.update(UPLOADS_PER_HOUR=5, REFUSED_UPLOADS_PER_HOUR=5)
    version = upload(session, config, alice)
    bots.retire_bot(session, alice, version.bot_id)
    session.commit()
    with pytest.raises(ServiceError, match="retired"):
        upload(session, config, alice)
    assert buckets(session, alice) == {"upload": 1, "upload-refused": 1}


@pytest.mark.parametrize(
    ("data", "limits", "expected"),
    [
        # Twelve good files at once, room for three: three stored, nine told to wait.
        (BOT_SOURCE, {"UPLOADS_PER_HOUR": 3}, {"stored": 3, "limited": 9}),
        # Twelve bad files at once, room for four refusals: four refused, eight told to wait.
        (SYNTAX_ERROR, {"REFUSED_UPLOADS_PER_HOUR": 4}, {"refused": 4, "limited": 8}),
    ],
)
def test_simultaneous_uploads_see_each_other(config, alice, data, limits, expected):
    settings = config.with_overrides(
        {"UPLOADS_PER_HOUR": 100, "REFUSED_UPLOADS_PER_HOUR": 100, **limits}
    )
    eng = make_engine(config["DATABASE_URL"])
    start = threading.Barrier(12)

    def attempt(i: int) -> str:
        with Session(eng, expire_on_commit=False) as s:
            user = s.get(User, alice.id)
            start.wait()
            try:
                upload(s, settings, user, data=data, name=f"bot-{i}")
            except RateLimited:
                return "limited"
            except ServiceError:
                return "refused"
            return "stored"

    with ThreadPoolExecutor(12) as pool:
        outcomes = list(pool.map(attempt, range(12)))
    with Session(eng) as s:
        counted = buckets(s, alice)
        stored = s.scalar(select(func.count(BotVersion.id)))
    eng.dispose()
    assert {kind: outcomes.count(kind) for kind in set(outcomes)} == expected
    assert stored == expected.get("stored", 0)
    assert counted.get("upload", 0) == expected.get("stored", 0)
    assert counted.get("upload-refused", 0) == expected.get("refused", 0)
