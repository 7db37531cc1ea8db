"""Bot revisions: every command that changes what a bot page shows moves its bot's
revision once its transaction commits, and nothing else does (a rollback, another bot's
match, a read). The bot page is kept as long as the number stays put
(tests/unit/ladder/web/test_page_speed.py), so a path missing here is a stale page."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from ladder.models import BotVersion, Match, MatchState, TournamentMatch, utcnow
from ladder.queries.boards import bot_revision
from ladder.services import bot_changes, bots, matches, tournaments, triage
from ladder.transactions import unit_of_work
from tests.unit.ladder.conftest import BOT_SOURCE, make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for


@pytest.fixture
def table(session, config, alice, bob):
    """Two active toyrace bots, one each."""
    return [make_active_bot(session, config, owner) for owner in (alice, bob)]


def revisions(session, versions) -> list[int]:
    session.rollback()  # a fresh read of what is committed
    return [bot_revision(session, v.bot_id) for v in versions]


def moved(session, versions, before) -> list[int]:
    return [a - b for a, b in zip(revisions(session, versions), before, strict=True)]


def test_no_row_is_revision_zero_and_a_bump_adds_one_per_commit(session, table):
    assert bot_revision(session, 10_000) == 0
    before = revisions(session, table)
    bot_changes.bots_changed(session, [table[0].bot_id])
    bot_changes.bots_changed(session, [table[0].bot_id])  # twice in one transaction: once
    session.commit()
    assert moved(session, table, before) == [1, 0]


def test_a_rollback_forgets_what_it_changed(session, table):
    before = revisions(session, table)
    bot_changes.bots_changed(session, [v.bot_id for v in table])
    session.rollback()
    session.commit()  # a later, empty transaction bumps nothing
    assert moved(session, table, before) == [0, 0]
    with pytest.raises(RuntimeError), unit_of_work(session):
        bot_changes.matches_changed(session, [1])
        raise RuntimeError("the unit fails")
    assert moved(session, table, before) == [0, 0]


def test_a_match_moves_its_seated_bots_at_each_step_and_no_other(session, config, table, alice):
    bystander = make_active_bot(session, config, alice, name="other")
    everyone = [*table, bystander]
    before = revisions(session, everyone)
    match = matches.create_match(session, config, "toyrace", [v.id for v in table], ranked=True)
    session.commit()
    assert moved(session, everyone, before) == [1, 1, 0]

    def step(run) -> list[int]:
        start = revisions(session, everyone)
        run()
        session.commit()
        return moved(session, everyone, start)

    # A start moves nothing, on purpose (the hot path; its record follows in seconds).
    assert step(lambda: matches.start_match(session, match.id)) == [0, 0, 0]
    assert step(lambda: matches.requeue_match(session, match.id, 5)) == [1, 1, 0]
    attempt = matches.start_match(session, match.id)
    session.commit()
    outcome = outcome_for(session.get(type(match), match.id), [1, 2])
    recorded = step(
        lambda: matches.record_match(session, config, match.id, outcome, attempt=attempt)
    )
    assert recorded == [1, 1, 0]
    # A match that went nowhere moves nothing: failing a finished match changes no row.
    assert step(lambda: matches.fail_match(session, match.id, "late")) == [0, 0, 0]
    other = matches.create_match(session, config, "toyrace", [v.id for v in table], ranked=True)
    session.commit()
    assert step(lambda: matches.fail_match(session, other.id, "the host went away")) == [1, 1, 0]
    assert session.get(type(other), other.id).state == MatchState.FAILED


def test_versions_move_their_bot_from_upload_to_retirement(session, config, alice):
    first = make_active_bot(session, config, alice)
    bot_id = first.bot_id

    def step(run) -> int:
        session.rollback()
        start = bot_revision(session, bot_id)
        run()
        session.commit()
        session.rollback()
        return bot_revision(session, bot_id) - start

    holder: dict = {}
    assert (
        step(
            lambda: holder.update(
                v=bots.upload_version(session, config, alice, "toyrace", "b", "bot.py", BOT_SOURCE)
            )
        )
        == 1
    )
    version_id = holder["v"].id
    assert step(lambda: bots.start_validation(session, version_id)) == 1
    assert step(lambda: bots.requeue_validation(session, version_id, 5)) == 1
    assert step(lambda: bots.finish_validation(session, version_id, True, "passed")) == 1
    assert step(lambda: bots.retire_bot(session, alice, bot_id)) == 1
    # A new bot's first upload counts too (its row is made in the same transaction).
    fresh = bots.upload_version(session, config, alice, "toyrace", "new", "bot.py", BOT_SOURCE)
    session.commit()
    session.rollback()
    assert bot_revision(session, fresh.bot_id) == 1


def test_a_paused_version_resumed_moves_its_bot(session, config, alice, table):
    version = table[0]
    session.get(BotVersion, version.id).paused_at = utcnow()
    session.commit()
    before = revisions(session, table)
    triage.resume(session, alice, version.id)
    session.commit()
    assert moved(session, table, before) == [1, 0]


def test_a_tournament_moves_every_entrant(session, config, alice, bob, table):
    staff = make_user(session, "sam")
    staff.is_staff = True
    session.commit()
    carol = make_user(session, "carol")
    third = make_active_bot(session, config, carol)
    entrants = [*table, third]
    tid = tournaments.create_tournament(session, staff, "cup", "toyrace", table_size=2).id
    session.commit()
    before = revisions(session, entrants)
    tournaments.open_tournament(session, staff, tid)
    session.commit()
    assert moved(session, entrants, before) == [0, 0, 0]  # nobody entered yet
    for user, version in zip((alice, bob, carol), entrants, strict=True):
        tournaments.enter(session, user, tid, version.bot_id)
    session.commit()
    assert moved(session, entrants, before) == [1, 1, 1]
    before = revisions(session, entrants)
    tournaments.withdraw(session, carol, tid, third.bot_id)
    tournaments.enter(session, carol, tid, third.bot_id)
    session.commit()
    assert moved(session, entrants, before) == [0, 0, 1]
    before = revisions(session, entrants)
    tournaments.start(session, config, staff, tid)
    session.commit()
    assert moved(session, entrants, before) == [1, 1, 1]
    # One table's result moves every entrant: the standings each bot page lists.
    match = session.scalars(
        select(Match)
        .join(TournamentMatch, TournamentMatch.match_id == Match.id)
        .where(TournamentMatch.tournament_id == tid)
        .order_by(Match.id)
    ).first()
    seated = {seat.version.bot_id for seat in match.seats}
    assert len(seated) == 2
    before = revisions(session, entrants)
    matches.record_match(session, config, match.id, outcome_for(match, [1, 2]))
    session.commit()
    assert moved(session, entrants, before) == [1, 1, 1]
    before = revisions(session, entrants)
    tournaments.cancel(session, staff, tid)
    session.commit()
    assert moved(session, entrants, before) == [1, 1, 1]


def test_letting_people_play_a_bot_moves_it(session, alice, table):
    from ladder.services import table_settings

    before = revisions(session, table)
    table_settings.set_human_play(session, alice, table[0].bot_id, True)
    session.commit()
    assert moved(session, table, before) == [1, 0]
