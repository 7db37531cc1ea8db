"""Running a live table: the table worker's entry point `play_table`.

It hands `workers.table.run_table` the table's seats (each bot's stored file staged
in this host's bot cache, as for any match; None for a person) and two callables:
`ask_human`, which waits on the table's Redis list of moves (`broker.store`) in
slices of at most a second for the answer of the seat asked, at the step asked,
until that seat's clock runs out; and `on_step`, which appends each action to the
table's row in a unit of its own, so the web shows it at once. At the end the
outcome is stored (`tables.finish`).

It owns its transactions (its caller has none open): no transaction is left open
while a person thinks, which may take minutes.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

from sqlalchemy.orm import Session

import workers
from engine.core import find_legal
from ladder.broker import store
from ladder.errors import ServiceError
from ladder.models import LiveTableState, Match
from ladder.queries import tables as queries
from ladder.services import bot_files, tables
from ladder.services.infrastructure import describe, limits, unsafe
from ladder.services.matches import job_seat
from ladder.settings import Settings
from ladder.transactions import unit_of_work
from workers import BotSource, Job, Move, OutOfTime, Resign

log = logging.getLogger(__name__)


class Asker:
    """`ask_human` for one table: a person's answer from the table's list of moves.

    Moves for another seat or another step are stale (the web checked them against
    a game that has moved on) and dropped; a resignation counts whenever it comes,
    for whichever seat sent it, and that seat's next turn answers Resign.
    """

    def __init__(
        self,
        session: Session,
        table_id: int,
        client: store.Client,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session, self.table_id, self.client = session, table_id, client
        self.clock = clock
        self.step = 0  # actions applied so far, counted by `on_step`
        self.resigned: set[int] = set()

    def on_step(self, step: int, seat: int, action: dict, _by: str) -> None:
        self.step = step + 1
        with unit_of_work(self.session):
            tables.record_step(self.session, self.table_id, step, seat, action)

    def __call__(self, seat: int, _view: dict, legal: list[dict], time_left_ms: int):
        step = self.step
        with unit_of_work(self.session):
            tables.record_clock(
                self.session, self.table_id, seat, step, time_left_ms, queries.now_ms()
            )
        deadline = self.clock() + time_left_ms / 1000
        while seat not in self.resigned:
            left = deadline - self.clock()
            if left <= 0:
                return OutOfTime()
            message = store.take_move(self.client, self.table_id, left)
            if message is None:
                continue
            sender = message.get("seat")
            if message.get("resign") is True and isinstance(sender, int):
                self.resigned.add(sender)
                continue
            if sender != seat or message.get("step") != step:
                continue  # stale, or for a seat not asked now
            action = message.get("action")
            if find_legal(legal, action) is not None:
                return Move(cast(dict, action))  # equal to a legal action: a dict
        return Resign()


def table_job(session: Session, table_id: int) -> tuple[Job, list[int]]:
    """The table's bots as a worker job (numbered 0.. in table order, people left out: a
    job's seats are numbered without gaps), and its people's seats."""
    table, versions = tables.table_seats(session, table_id)
    bots = [version for version in versions if version is not None]
    seats = [job_seat(i, version) for i, version in enumerate(bots)]
    people = [i for i, v in enumerate(versions) if v is None]
    return Job(game=table.game, seed=table.seed, seats=tuple(seats), options={}), people


def play_table(
    session: Session, settings: Settings, table_id: int, client: store.Client
) -> Match | None:
    """Run a table that is being played, to its end; its match, or None if it was not
    this runner's to play (over, or started by another) or could not be played."""

    table = queries.get_table(session, table_id)
    if table.state != LiveTableState.PLAYING or table.actions:
        session.rollback()
        return None
    game, seed, players = table.game, table.seed, table.players
    labels = {s.seat: s.user.username for s in table.seats if s.user is not None}
    job, people = table_job(session, table_id)
    session.rollback()  # nothing stays open while the game is played
    asker = Asker(session, table_id, client)
    try:
        with bot_files.local_files(session, settings, job) as local:
            session.rollback()
            bots = iter(local.seats)  # in table order, each with its path on this host now
            seats: list[BotSource | None] = []
            for i in range(players):
                bot = None if i in people else next(bots)
                seats.append(
                    None
                    if bot is None
                    else BotSource(
                        bot.label, cast(Path, bot.path), bot.name, bot.owner, bot.version
                    )
                )
            outcome = workers.run_table(
                game,
                seats,
                seed,
                ask_human=asker,
                on_step=asker.on_step,
                labels=labels,
                options={},
                limits=limits(settings),
                human_move_ms=settings.table_move_ms,
                human_match_ms=settings.table_match_ms,
                unsafe=unsafe(settings),
            )
        with unit_of_work(session):
            return tables.finish(session, settings, table_id, outcome)
    except ServiceError as exc:
        log.warning("table not recorded", extra={"table_id": table_id, "reason": str(exc)})
        _end(session, table_id, f"it could not be recorded: {describe(exc)}")
        return None
    except Exception as exc:
        log.exception("table could not be played", extra={"table_id": table_id})
        _end(session, table_id, f"it could not be played: {describe(exc)}")
        return None
    finally:
        with contextlib.suppress(store.RedisError):
            store.drop_moves(client, table_id)


def _end(session: Session, table_id: int, note: str) -> None:
    session.rollback()
    with unit_of_work(session):
        tables.end_table(session, table_id, note)
