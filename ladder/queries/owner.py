"""What an owner sees of their own: their bots with every version (`GET /api/v1/me`), and
the stderr of their seats in a match.

The facts are those the owner's pages show (my bots, a bot's page as its owner sees it,
the account page), in the shapes of `boards`; links are the web layer's to add.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from ladder.models import SEAT_STATUSES, Bot, BotVersion, Match, User, VersionTest, active_version
from ladder.queries.boards import bot_record, iso, version_faults, version_summary
from ladder.queries.table_pages import ratings_of
from ladder.queries.version_tests import candidate_test_facts


def own_stderr(match: Match, user_id: int | None) -> dict[int, str]:
    """The stderr kept for each seat of `match` whose bot `user_id` owns, by seat ("" when
    none was kept); nothing for anyone else. A person's seat has no bot and no stderr."""
    if user_id is None:
        return {}
    return {
        seat.seat: seat.stderr or ""
        for seat in match.seats
        if seat.version is not None and seat.version.bot.owner_id == user_id
    }


def with_stderr(detail: dict, stderr: dict[int, str]) -> dict:
    """`detail` (`boards.match_detail`) with `stderr` on the seats it names; the other
    seats get no such key."""
    for seat in detail["seats"]:
        if seat["seat"] in stderr:
            seat["stderr"] = stderr[seat["seat"]]
    return detail


def _test(test: VersionTest | None) -> dict | None:
    """A candidate's test as the bot page's table of tests shows it."""
    return None if test is None else candidate_test_facts(test)


def _version(version: BotVersion, faults: dict[int, dict], tests: dict[int, VersionTest]) -> dict:
    """A version as its owner's bot page shows it: the public facts, the validation log,
    its finished matches by how its seat ended, its last fault, its test if a candidate."""
    found = faults.get(version.id)
    return {
        **version_summary(version, True),
        "matches": found["matches"] if found else 0,
        "seat_results": found["counts"] if found else dict.fromkeys(SEAT_STATUSES, 0),
        "last_fault": found["last_fault"] if found else None,
        "test": _test(tests.get(version.id)),
    }


def _bot(bot: Bot, faults: dict[int, dict], tests: dict[int, VersionTest]) -> dict:
    active = active_version(bot)
    ref = None if active is None else {"id": active.id, "number": active.number}
    own_faults = {v.id: faults[v.id] for v in bot.versions if v.id in faults}
    return {
        "id": bot.id,
        "name": bot.name,
        "game": bot.game,
        "created_at": iso(bot.created_at),
        "retired": bot.retired_at is not None,
        "human_play": bot.human_play,
        "active_version": ref,
        # Crash triage keeps the active version out of matchmaking until it is resumed.
        "paused": active is not None and active.paused_at is not None,
        "rating": None if active is None else version_summary(active, False)["rating"],
        "record": bot_record(own_faults),
        "versions": [_version(v, faults, tests) for v in bot.versions],
    }


def me(session: Session, user: User) -> dict:
    """The user, their bots (by game, then name) with every version, and their ratings
    at live tables."""
    bots = session.scalars(
        select(Bot)
        .where(Bot.owner_id == user.id)
        .order_by(Bot.game, Bot.name)
        .options(selectinload(Bot.versions).selectinload(BotVersion.rating))
    ).all()
    ids = [b.id for b in bots]
    faults = version_faults(session, *ids) if ids else {}
    tests = {
        t.version_id: t
        for t in (
            session.scalars(select(VersionTest).where(VersionTest.bot_id.in_(ids))) if ids else ()
        )
    }
    return {
        "user": {"id": user.id, "name": user.username},
        "bots": [_bot(b, faults, tests) for b in bots],
        "table_ratings": ratings_of(session, user.id),
    }
