"""Live tables as people and the API see them: a seat's view or the spectators', the
tables being played, the people's leaderboard, a bot's record against people.

A table's game is never stored as a state: it is rebuilt from its seed, options and
the actions applied so far (`game_state`), which the engine does in microseconds a
move. A spectator gets `State.spectate()` without its "private" part (every seat's
secrets), so nothing a seat hides reaches anyone but that seat.
"""

from __future__ import annotations

import time

from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import Session, aliased, selectinload

import engine
from engine.core import State
from ladder.broker.announce import TABLE_QUEUE
from ladder.errors import NotFound
from ladder.models import (
    BotVersion,
    HumanRating,
    LiveTable,
    LiveTableSeat,
    LiveTableState,
    Match,
    MatchSeat,
    MatchState,
    User,
    valid_id,
)
from ladder.queries.boards import iso
from ladder.settings import Settings

HUMAN, BOT = "human", "bot"
LIVE_LIMIT = 100  # tables listed at most, newest first


def now_ms() -> int:
    """The wall clock in milliseconds: people's clocks are stored as moments of it."""
    return int(time.time() * 1000)


def get_table(session: Session, table_id: int) -> LiveTable:
    """The table with its seats; NotFound for no such table."""
    table = session.get(LiveTable, table_id) if valid_id(table_id) else None
    if table is None:
        raise NotFound(f"no table {table_id}")
    return table


def game_state(table: LiveTable) -> State:
    """The table's game as it stands: its seed and options, then every action applied."""
    state = engine.get_game(table.game).new_game(
        table.players, seed=table.seed, options=dict(table.options or {})
    )
    for _seat, action in table.actions:
        state.apply(action)
    return state


def seat_of(table: LiveTable, user) -> int | None:
    """The seat `user` holds at the table (a person holds one at most), or None."""
    if user is None:
        return None
    return next((s.seat for s in table.seats if s.kind == HUMAN and s.user_id == user.id), None)


def public_view(state: State) -> dict:
    """What a spectator sees: the all-seeing view without any seat's secrets."""
    if not engine.get_game(state.game_name).capabilities.spectate:
        return {"seat": None, "spectator": True}
    seen = state.spectate()
    seen.pop("private", None)
    return seen


def seat_info(seat: LiveTableSeat) -> dict:
    """Who sits in a seat, as anyone may read it."""
    if seat.kind == HUMAN:
        player = seat.user.username if seat.user is not None else None
    else:
        player = seat.version.seat_label if seat.version is not None else None
    return {
        "seat": seat.seat,
        "kind": seat.kind,
        "player": player,
        "status": seat.status,
        "error": seat.error,
    }


def time_left_ms(settings: Settings, table: LiveTable, seat: int, step: int, now: int) -> int:
    """What a person has left on their clock: the move's time while they are asked
    (counted down from when the runner asked), else the match time last reported."""
    clock = table.clocks[seat] if seat < len(table.clocks or []) else None
    if not clock:
        return min(settings.table_move_ms, settings.table_match_ms)
    if clock.get("step") == step and table.state == LiveTableState.PLAYING:
        return max(0, int(clock["left_ms"]) - max(0, now - int(clock["asked_at_ms"])))
    return int(clock.get("match_left_ms", clock["left_ms"]))


def table_detail(
    session: Session, settings: Settings, table: LiveTable, user=None, now: int | None = None
) -> dict:
    """The table as the API answers it: for the seat `user` holds, its view and legal
    actions; for anyone else the spectators' view and no `legal`."""
    now = now_ms() if now is None else now
    state = game_state(table)
    step = len(table.actions)
    seat = seat_of(table, user)
    to_move = state.current_player() if table.state == LiveTableState.PLAYING else None
    body: dict = {
        "id": table.id,
        "game": table.game,
        "state": table.state,
        "players": table.players,
        "step": step,
        "seat": seat,
        "to_move": to_move,
        "seats": [seat_info(s) for s in table.seats],
        "created_at": iso(table.created_at),
    }
    if seat is not None:
        body["view"] = state.view(seat)
        body["legal"] = state.legal_actions() if to_move == seat else []
        body["time_left_ms"] = time_left_ms(settings, table, seat, step, now)
    else:
        body["view"] = public_view(state)
        human = to_move is not None and table.seats[to_move].kind == HUMAN
        body["time_left_ms"] = (
            time_left_ms(settings, table, to_move, step, now)
            if to_move is not None and human
            else None
        )
    if table.state == LiveTableState.OVER:
        body["note"] = table.note
        if table.match_id is not None:
            body["match_id"] = table.match_id
            body["result"] = _result(session, table.match_id)
    return body


def _result(session: Session, match_id: int) -> dict:
    seats = session.scalars(
        select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)
    ).all()
    return {
        "scores": [s.score for s in seats],
        "ranks": [s.rank for s in seats],
        "statuses": [s.status for s in seats],
    }


def open_tables(session: Session, user_id: int) -> int:
    """How many tables not yet over `user_id` holds a seat at."""
    seated = session.scalar(
        select(func.count(func.distinct(LiveTable.id)))
        .join(LiveTableSeat, LiveTableSeat.table_id == LiveTable.id)
        .where(LiveTable.state != LiveTableState.OVER, LiveTableSeat.user_id == user_id)
    )
    return seated or 0


def live_tables(session: Session, game: str | None = None, limit: int = LIVE_LIMIT) -> list[dict]:
    """The tables waiting or being played, newest first: anyone may watch them."""
    query = (
        select(LiveTable)
        .where(LiveTable.state != LiveTableState.OVER)
        .options(
            selectinload(LiveTable.seats).selectinload(LiveTableSeat.user),
            selectinload(LiveTable.seats)
            .selectinload(LiveTableSeat.version)
            .selectinload(BotVersion.bot),
        )
        .order_by(LiveTable.id.desc())
        .limit(limit)
    )
    if game:
        query = query.where(LiveTable.game == game)
    return [
        {
            "id": t.id,
            "game": t.game,
            "state": t.state,
            "players": t.players,
            "step": len(t.actions),
            "seats": [seat_info(s) for s in t.seats],
            "created_at": iso(t.created_at),
        }
        for t in session.scalars(query)
    ]


def human_leaderboard(session: Session, game: str, limit: int = 100) -> list[dict]:
    """People by skill (μ − 3σ) in one game, from their live tables."""
    rows = session.execute(
        select(HumanRating, User.username)
        .join(User, User.id == HumanRating.user_id)
        .where(HumanRating.game == game)
        .order_by(HumanRating.skill.desc(), HumanRating.user_id)
        .limit(limit)
    ).all()
    return [
        {
            "rank": i,
            "user": name,
            "mu": round(r.mu, 3),
            "sigma": round(r.sigma, 3),
            "skill": round(r.skill, 3),
            "games": r.games,
        }
        for i, (r, name) in enumerate(rows, start=1)
    ]


def record_against_people(session: Session, bot_id: int) -> dict:
    """How a bot fared against people at live tables: per pair of its seat and a
    person's seat of one finished table, ahead, behind or tied."""
    bot_seat, person = aliased(MatchSeat), aliased(MatchSeat)
    row = session.execute(
        select(
            func.count(func.distinct(Match.id)),
            func.count(person.id),
            func.coalesce(func.sum(case((bot_seat.rank < person.rank, 1), else_=0)), 0),
            func.coalesce(func.sum(case((bot_seat.rank > person.rank, 1), else_=0)), 0),
        )
        .select_from(bot_seat)
        .join(BotVersion, BotVersion.id == bot_seat.version_id)
        .join(Match, Match.id == bot_seat.match_id)
        # A person's seat is one without a version: its user may be gone (SET NULL).
        .join(person, and_(person.match_id == Match.id, person.version_id.is_(None)))
        .where(
            BotVersion.bot_id == bot_id,
            Match.queue == TABLE_QUEUE,
            Match.state == MatchState.FINISHED,
        )
    ).one()
    tables, met, won, lost = (int(v or 0) for v in row)
    return {"tables": tables, "met": met, "ahead": won, "behind": lost, "tied": met - won - lost}
