"""Live tables: seating people and bots, checking moves, storing the outcome, rating people."""

from __future__ import annotations

import gzip
import json
import random

import pytest
from sqlalchemy import select

import engine
from ladder.broker import announce
from ladder.errors import Conflict, Forbidden, NotFound, RateLimited, ServiceError
from ladder.models import HumanRating, LiveTable, LiveTableState, Match, MatchState, Rating
from ladder.queries import tables as queries
from ladder.services import matches, tables
from tests.unit.ladder.conftest import make_active_bot, make_user
from tests.unit.ladder.helpers import played_out


class Pushed(list):
    """What `move` and `resign` hand the runner, in order (a stand-in for Redis)."""

    def __call__(self, table_id: int, message: dict) -> None:
        self.append((table_id, message))


def seat_me_first(session, config, user, opponents, players=2):
    return tables.create_table(session, config, user, "toyrace", players, 0, opponents)


def test_create_with_each_kind_of_opponent(session, config, alice, bob, house):
    sent = []
    announce.listen(session, lambda kind, ident: sent.append((kind, ident)))
    own = make_active_bot(session, config, alice, name="mine")
    lent = make_active_bot(session, config, bob, name="lent")
    lent.bot.human_play = True
    session.commit()
    made = tables.create_table(session, config, alice, "toyrace", 4, 1, [own.id, "greedy", lent.id])
    session.commit()
    table = made.table
    assert made.seat == 1 and not made.invitations
    assert [(s.seat, s.kind) for s in table.seats] == [
        (0, "bot"),
        (1, "human"),
        (2, "bot"),
        (3, "bot"),
    ]
    assert [s.version_id for s in table.seats] == [own.id, None, house["greedy"].id, lent.id]
    assert table.state == LiveTableState.PLAYING and table.started_at is not None
    assert sent[-1:] == [("table", table.id)]  # the runner, sent on the commit


def test_an_open_seat_waits_for_its_invitation(session, config, alice, bob, house):
    sent = []
    announce.listen(session, lambda kind, ident: sent.append((kind, ident)))
    made = tables.create_table(session, config, alice, "toyrace", 3, None, [None, "random"])
    session.commit()
    table = made.table
    assert table.state == LiveTableState.WAITING and not sent
    (open_seat,) = made.invitations
    token = made.invitations[open_seat]
    assert table.seats[open_seat].token_hash == tables.token_hash(token) != token
    with pytest.raises(Forbidden):
        tables.join(session, config, bob, table.id, token + "x")
    session.rollback()
    with pytest.raises(Conflict):  # a person takes one seat
        tables.join(session, config, alice, table.id, token)
    session.rollback()
    tables.join(session, config, bob, table.id, token)
    session.commit()
    assert table.state == LiveTableState.PLAYING and sent == [("table", table.id)]
    assert table.seats[open_seat].user_id == bob.id and table.seats[open_seat].token_hash is None
    with pytest.raises(Conflict):  # taken
        tables.join(session, config, make_user(session, "carol"), table.id, token)


@pytest.mark.parametrize(
    ("game", "players", "seat", "opponents", "error", "words", "field"),
    [
        ("chess", 2, 0, ["random"], ServiceError, "unknown game", "game"),
        ("toyrace", 1, 0, [], ServiceError, "takes 2 to 4 players", "players"),
        ("toyrace", 9, 0, ["random"], ServiceError, "takes 2 to 4 players", "players"),
        ("toyrace", "2", 0, ["random"], ServiceError, "players must be an integer", "players"),
        ("toyrace", 2, 2, ["random"], ServiceError, "seat must be an integer from 0 to 1", "seat"),
        ("toyrace", 2, True, ["random"], ServiceError, "seat must be", "seat"),
        ("toyrace", 3, 0, ["random"], ServiceError, "a list of 2 entries", "opponents"),
        ("toyrace", 2, 0, "random", ServiceError, "a list of 1 entries", "opponents"),
        ("toyrace", 2, 0, ["deep-blue"], ServiceError, "no house bot 'deep-blue'", "opponents[0]"),
        ("toyrace", 3, 0, [None, 0], ServiceError, "each opponent is a version id", "opponents[1]"),
        ("toyrace", 2, 0, [999], NotFound, "no bot version 999", "opponents[0]"),
        (
            "toyrace",
            4,
            0,
            ["random", None, "random"],
            ServiceError,
            "only one seat",
            "opponents[2]",
        ),
    ],
)
def test_create_refusals(
    session, config, alice, house, game, players, seat, opponents, error, words, field
):
    """Each refusal says why and names the field it is about (a form puts it there)."""
    with pytest.raises(error, match=words) as refused:
        tables.create_table(session, config, alice, game, players, seat, opponents)
    assert refused.value.field == field
    session.rollback()
    assert session.scalar(select(LiveTable.id)) is None


def test_create_refuses_others_bots_unless_lent_and_other_games(session, config, alice, bob):
    theirs = make_active_bot(session, config, bob, name="theirs")
    with pytest.raises(Forbidden, match="does not let others") as refused:
        seat_me_first(session, config, alice, [theirs.id])
    assert refused.value.field == "opponents[0]"
    session.rollback()
    elsewhere = make_active_bot(session, config, alice, name="sailor", game="meuterer")
    with pytest.raises(ServiceError, match="plays meuterer, not toyrace"):
        seat_me_first(session, config, alice, [elsewhere.id])
    session.rollback()
    theirs.bot.retired_at = theirs.bot.created_at
    theirs.bot.human_play = True
    session.commit()
    with pytest.raises(ServiceError, match="not active"):
        seat_me_first(session, config, alice, [theirs.id])


def test_tables_not_over_are_limited_per_user(session, config, alice, house):
    config["TABLE_OPEN_PER_USER"] = 2
    for _ in range(2):
        seat_me_first(session, config, alice, ["random"])
        session.commit()
    with pytest.raises(RateLimited) as refused:
        seat_me_first(session, config, alice, ["random"])
    assert refused.value.retry_after == tables.OPEN_RETRY_S
    assert refused.value.headers == {"Retry-After": str(tables.OPEN_RETRY_S)}
    session.rollback()
    first = session.scalars(select(LiveTable).order_by(LiveTable.id)).first()
    tables.resign(session, alice, first.id, Pushed())  # a resigned seat is not over yet
    tables.end_table(session, first.id, "ended by the test")
    session.commit()
    seat_me_first(session, config, alice, ["random"])


def test_a_move_is_checked_then_handed_to_the_runner(session, config, alice, bob, house):
    table = seat_me_first(session, config, alice, ["random"]).table
    session.commit()
    pushed = Pushed()
    with pytest.raises(Forbidden):
        tables.move(session, bob, table.id, {"add": 1}, pushed)
    with pytest.raises(ServiceError, match="not a legal action"):
        tables.move(session, alice, table.id, {"add": 4}, pushed)
    with pytest.raises(ServiceError, match="mind the types"):
        tables.move(session, alice, table.id, {"add": 1.0}, pushed)
    with pytest.raises(ServiceError, match="a JSON object"):
        tables.move(session, alice, table.id, [1], pushed)
    assert pushed == [] and table.actions == []  # nothing changed
    assert tables.move(session, alice, table.id, {"add": 2}, pushed) == 0
    assert pushed == [(table.id, {"seat": 0, "step": 0, "action": {"add": 2}})]
    # The runner applies it; now the bot is to move, and then alice again.
    assert tables.record_step(session, table.id, 0, 0, {"add": 2})
    assert not tables.record_step(session, table.id, 0, 0, {"add": 2})  # a repeated call
    session.commit()
    with pytest.raises(Conflict, match="not your turn: seat 1"):
        tables.move(session, alice, table.id, {"add": 1}, pushed)
    with pytest.raises(Conflict, match="leaves a gap"):
        tables.record_step(session, table.id, 5, 1, {"add": 1})
    session.rollback()
    tables.record_step(session, table.id, 1, 1, {"add": 3})
    session.commit()
    assert tables.move(session, alice, table.id, {"add": 3}, pushed) == 2


def test_no_move_at_a_table_not_being_played(session, config, alice, house):
    made = tables.create_table(session, config, alice, "toyrace", 2, 0, [None])
    session.commit()
    with pytest.raises(Conflict, match="waiting"):
        tables.move(session, alice, made.table.id, {"add": 1}, Pushed())


def test_resign_hands_the_seat_to_the_fallback(session, config, alice, house):
    table = seat_me_first(session, config, alice, ["random"]).table
    session.commit()
    pushed = Pushed()
    tables.resign(session, alice, table.id, pushed)
    session.commit()
    assert pushed == [(table.id, {"seat": 0, "step": 0, "resign": True})]
    assert (table.seats[0].status, table.seats[0].error) == ("timeout", "resigned")
    with pytest.raises(Conflict, match="played out"):
        tables.move(session, alice, table.id, {"add": 1}, pushed)
    with pytest.raises(Conflict):
        tables.resign(session, alice, table.id, pushed)


def test_resigning_a_waiting_table_ends_it(session, config, alice, house):
    table = tables.create_table(session, config, alice, "toyrace", 2, 0, [None]).table
    tables.resign(session, alice, table.id, Pushed())
    session.commit()
    assert table.state == LiveTableState.OVER and table.match_id is None


def test_finish_stores_a_match_that_replays_and_rates_only_people(
    session, config, alice, bob, house
):
    before = session.get(Rating, house["greedy"].id)
    bot_rating = (before.mu, before.sigma, before.games)
    made = tables.create_table(session, config, alice, "toyrace", 3, 0, [None, "greedy"])
    session.commit()
    tables.join(session, config, bob, made.table.id, next(iter(made.invitations.values())))
    session.commit()
    table = made.table
    outcome = played_out(table, random.Random(3))
    for step, (seat, action) in enumerate(outcome.replay["actions"]):
        tables.record_step(session, table.id, step, seat, action)
    match = tables.finish(session, config, table.id, outcome)
    session.commit()
    assert tables.finish(session, config, table.id, outcome).id == match.id  # idempotent
    assert match.state == MatchState.FINISHED and not match.ranked
    assert match.queue == announce.TABLE_QUEUE
    assert [(s.version_id, s.user_id) for s in match.seats] == [
        (None, alice.id),
        (None, bob.id),
        (house["greedy"].id, None),
    ]
    assert table.state == LiveTableState.OVER and table.match_id == match.id
    stored = json.loads(gzip.decompress(matches.replay_bytes(session, config, match)))
    assert engine.replay(stored).result() == {
        "scores": list(outcome.scores),
        "ranks": list(outcome.ranks),
    }
    assert stored["actions"] == table.actions
    # People moved; the bot did not.
    after = session.get(Rating, house["greedy"].id)
    session.refresh(after)
    assert (after.mu, after.sigma, after.games) == bot_rating
    people = {r.user_id: r for r in session.scalars(select(HumanRating))}
    assert set(people) == {alice.id, bob.id}
    assert all(r.games == 1 and r.sigma < 25 / 3 and r.game == "toyrace" for r in people.values())
    winner = min(range(2), key=lambda i: outcome.ranks[i])
    users = [alice.id, bob.id]
    if outcome.ranks[0] != outcome.ranks[1]:
        assert people[users[winner]].mu > people[users[1 - winner]].mu
    # Read back as the API shows it, and the bot's record against people.
    detail = queries.table_detail(session, config, table, alice)
    assert detail["state"] == "over" and detail["match_id"] == match.id
    assert detail["result"]["ranks"] == list(outcome.ranks)
    record = queries.record_against_people(session, house["greedy"].bot_id)
    assert record["tables"] == 1 and record["met"] == 2
    assert record["ahead"] + record["behind"] + record["tied"] == 2
    board = queries.human_leaderboard(session, "toyrace")
    assert [row["rank"] for row in board] == [1, 2]


def test_a_table_match_counts_against_no_challenge_limit(session, config, alice, house):
    table = seat_me_first(session, config, alice, ["random"]).table
    session.commit()
    tables.finish(session, config, table.id, played_out(table, random.Random(1)))
    session.commit()
    assert session.scalar(select(Match.requested_by_id)) is None


def test_a_table_whose_runner_is_gone_is_ended(session, config, alice, house):
    table = seat_me_first(session, config, alice, ["random"]).table
    session.commit()
    assert tables.abandoned(session, config, lambda _id: False) == []  # younger than a lease
    config["LEASE_S"] = -1
    assert tables.abandoned(session, config, lambda _id: True) == []  # its runner lives
    assert tables.abandoned(session, config, lambda _id: False) == [table.id]
    assert tables.end_table(session, table.id, tables.RUNNER_GONE)
    session.commit()
    assert table.state == LiveTableState.OVER and table.note == tables.RUNNER_GONE
    assert not tables.end_table(session, table.id, tables.RUNNER_GONE)


@pytest.mark.parametrize("game", ["manila", "meuterer", "caravelas"])
def test_spectators_never_see_a_seats_secrets(game):
    spec = engine.get_game(game)
    state = spec.new_game(spec.min_players, seed=5)
    secrets = type(state).private_view_keys
    assert secrets  # every title names them
    chooser = random.Random(5)
    while True:
        seen = queries.public_view(state)
        assert "private" not in seen and not set(secrets) & set(seen), secrets
        assert seen["spectator"] is True and seen["seat"] is None
        if state.is_over():
            break
        state.apply(chooser.choice(state.legal_actions()))
