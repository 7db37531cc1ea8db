"""The table worker: its queue of its own, the runner's `ask_human` over Redis, and a table
played through `table_play.play_table` with a stand-in for `run_table` (no sandbox here;
the runner itself is tested in tests/unit/workers/test_table.py)."""

from __future__ import annotations

import random

import workers
from ladder.broker import announce, store
from ladder.cli.processes import worker_command
from ladder.jobs import celery_app
from ladder.models import LiveTableState, MatchState
from ladder.queries import tables as queries
from ladder.services import table_play, tables
from tests.unit.ladder.conftest import ListRedis
from tests.unit.ladder.helpers import played_out
from workers import Move, OutOfTime, Resign


def queues_of(command: list[str]) -> list[str]:
    return command[command.index("--queues") + 1].split(",")


def test_only_the_table_worker_takes_the_tables_queue(app):
    assert announce.TABLE_QUEUE == "tables" and "tables" not in announce.QUEUES
    assert "tables" not in queues_of(worker_command(2))
    assert queues_of(worker_command(4, tables=True)) == ["tables"]
    router = app.extensions["celery"].amqp.router
    assert router.route({}, celery_app.TASKS["table"])["queue"].name == "tables"
    assert router.route({}, "ladder.end_abandoned_tables")["queue"].name == "beat"


class Clock:
    """A monotonic clock that moves a second each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_ask_human_skips_stale_and_others_moves(session, config, alice, house):
    table = tables.create_table(session, config, alice, "toyrace", 2, 0, ["random"]).table
    session.commit()
    redis = ListRedis()
    asker = table_play.Asker(session, table.id, redis, clock=Clock())
    legal = [{"add": 1}, {"add": 2}, {"add": 3}]
    for message in (
        {"seat": 0, "step": 5, "action": {"add": 1}},  # stale
        {"seat": 1, "step": 0, "action": {"add": 1}},  # another seat's
        {"seat": 0, "step": 0, "action": {"add": 9}},  # not legal
        "not json",
        {"seat": 0, "step": 0, "action": {"add": 3}},
    ):
        if isinstance(message, str):
            redis.rpush(store.moves_key(table.id), message)
        else:
            store.push_move(redis, table.id, message)
    assert asker(0, {}, legal, 60_000) == Move({"add": 3})
    session.refresh(table)
    assert table.clocks[0]["step"] == 0 and table.clocks[0]["left_ms"] == 60_000
    asker.on_step(0, 0, {"add": 3}, "human")
    session.refresh(table)
    assert table.actions == [[0, {"add": 3}]] and asker.step == 1
    # Nothing comes: out of time once the clock has run (the fake clock: a second a look).
    assert asker(0, {}, legal, 3_000) == OutOfTime()
    store.push_move(redis, table.id, {"seat": 0, "step": 0, "resign": True})
    assert asker(0, {}, legal, 60_000) == Resign()
    assert asker(0, {}, legal, 60_000) == Resign()  # resigned for good


def test_a_table_is_played_by_its_runner_and_stored(session, config, alice, house, monkeypatch):
    table = tables.create_table(session, config, alice, "toyrace", 2, 0, ["random"]).table
    session.commit()
    redis = ListRedis()
    seen = {}

    def run_table(game, seats, seed, *, ask_human, on_step, labels, **_kwargs):
        """A runner stand-in: the person through ask_human, the bot at random."""
        seen.update(seats=seats, labels=labels)
        state = queries.game_state(table)
        chooser, step = random.Random(seed), 0
        while not state.is_over():
            seat, legal = state.current_player(), state.legal_actions()
            if seats[seat] is None:
                store.push_move(redis, table.id, {"seat": seat, "step": step, "action": legal[0]})
                answer = ask_human(seat, state.view(seat), legal, 10_000)
                action = answer.action
            else:
                action = chooser.choice(legal)
            state.apply(action)
            on_step(step, seat, action, "bot")
            step += 1
        return played_from(state)

    def played_from(state):
        session.refresh(table)
        assert table.actions == [[s, a] for s, a in state.history]
        return played_out(table, random.Random(0))

    monkeypatch.setattr(workers, "run_table", run_table)
    match = table_play.play_table(session, config, table.id, redis)
    assert match is not None and match.state == MatchState.FINISHED
    assert seen["seats"][0] is None and seen["seats"][1].label.endswith("random v1")
    assert seen["labels"] == {0: "alice"}
    session.refresh(table)
    assert table.state == LiveTableState.OVER and table.match_id == match.id
    assert table_play.play_table(session, config, table.id, redis) is None  # over: not again
