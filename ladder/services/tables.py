"""Live tables: people seated at a match against bots (issue 32, ladder/TABLES.md).

Commands here flush and lock but do not commit: the caller's unit of work does, and
what they announce (a table ready to play, kind "table") is sent on its commit.

- `create_table`, `join`: seat the people; once every person's seat is taken the
  table is `playing` and its runner (`ladder.play_table`) is announced.
- `move`, `resign`: a person's move is checked here against the game rebuilt from
  the table's actions (nothing is stored; 403, 409 or 400 when refused) and pushed
  to the runner through Redis (`broker.store.push_move`).
- `record_step`, `record_clock`, `finish`, `end_table`: what the runner and beat
  write: each action as it is applied, a person's clock when asked, the outcome
  (an ordinary finished, unranked Match, and the people's ratings), or the end of
  a table whose runner is gone.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import cast

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from engine.core import find_legal
from ladder.broker import announce
from ladder.errors import Conflict, Forbidden, NotFound, RateLimited, ServiceError
from ladder.models import (
    Bot,
    BotVersion,
    HumanRating,
    LiveTable,
    LiveTableSeat,
    LiveTableState,
    Match,
    Rating,
    User,
    VersionState,
    utcnow,
    valid_id,
)
from ladder.queries import tables as queries
from ladder.queries.tables import BOT, HUMAN
from ladder.ranking import humans, ratings
from ladder.services import matches, throttle
from ladder.services.bots import check_game
from ladder.settings import Settings
from workers import Outcome, SeatStatus

MAX_SEED = matches.MAX_SEED
OPEN_RETRY_S = 60  # past TABLE_OPEN_PER_USER: about when a table may have ended
RESIGNED = "resigned"
RUNNER_GONE = "its table runner stopped before the game ended"

Push = Callable[[int, dict], None]  # (table id, message) -> None: `broker.store.push_move`


@dataclass
class Created:
    """A table just made: the caller's seat, and each open seat's invitation token
    (shown this once: only its hash is kept)."""

    table: LiveTable
    seat: int
    invitations: dict[int, str] = field(default_factory=dict)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_table(
    session: Session,
    settings: Settings,
    user: User,
    game: str,
    players,
    seat=None,
    opponents=None,
    *,
    rng: random.Random | None = None,
) -> Created:
    """A table of `players` seats: `user` in `seat` (None: a random one), and in every
    other seat, in order, one of `opponents`: a version id of an active bot of the game
    whose owner allows human play (or the user's own), a house bot's name, or None for
    a seat another person takes with an invitation."""
    spec = engine.get_game(check_game(game))
    if isinstance(players, bool) or not isinstance(players, int):
        raise ServiceError("players must be an integer", field="players")
    if not spec.min_players <= players <= spec.max_players:
        raise ServiceError(
            f"{game} takes {spec.min_players} to {spec.max_players} players, not {players}",
            field="players",
        )
    rng = rng or random.Random(secrets.randbits(64))
    if seat is None:
        seat = rng.randrange(players)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise ServiceError(f"seat must be an integer from 0 to {players - 1}", field="seat")
    if not isinstance(opponents, list) or len(opponents) != players - 1:
        raise ServiceError(
            f"opponents must be a list of {players - 1} entries, one for every other seat"
            " in seat order: a version id, a house bot's name, or null for an open seat",
            field="opponents",
        )
    versions = [
        _opponent_at(session, settings, user, game, opponents, i) for i in range(len(opponents))
    ]
    taken: set[int] = set()
    for i, version in enumerate(versions):
        if version is not None and version.id in taken:
            raise ServiceError(
                "a bot version can take only one seat at a table", field=f"opponents[{i}]"
            )
        if version is not None:
            taken.add(version.id)
    _check_open_limit(session, settings, user)
    others = iter(versions)
    table = LiveTable(
        game=game,
        players=players,
        seed=secrets.randbelow(MAX_SEED),
        options={},
        state=LiveTableState.WAITING,
        created_by_id=user.id,
        actions=[],
        clocks=[None] * players,
    )
    invitations = {}
    for i in range(players):
        if i == seat:
            table.seats.append(LiveTableSeat(seat=i, kind=HUMAN, user_id=user.id))
            continue
        version = next(others)
        if version is not None:
            table.seats.append(LiveTableSeat(seat=i, kind=BOT, version_id=version.id))
            continue
        token = secrets.token_urlsafe(18)
        invitations[i] = token
        table.seats.append(LiveTableSeat(seat=i, kind=HUMAN, token_hash=token_hash(token)))
    session.add(table)
    session.flush()
    if not invitations:
        _start(session, table)
    return Created(table, seat, invitations)


def _opponent_at(session: Session, settings: Settings, user: User, game: str, entries, i: int):
    """Entry `i` of `opponents`; a refusal names that entry as its field."""
    try:
        return _opponent(session, settings, user, game, entries[i])
    except ServiceError as exc:
        exc.field = exc.field or f"opponents[{i}]"
        raise


def _opponent(session: Session, settings: Settings, user: User, game: str, entry):
    """The version an entry of `opponents` names (None: an open seat)."""
    if entry is None:
        return None
    if isinstance(entry, str):
        return _house_version(session, settings, game, entry)
    if not valid_id(entry):
        raise ServiceError(
            "each opponent is a version id (an integer), a house bot's name, or null"
        )
    version = session.get(BotVersion, entry)
    if version is None:
        raise NotFound(f"no bot version {entry}")
    bot = version.bot
    if bot.game != game:
        raise ServiceError(f"{version.label} plays {bot.game}, not {game}")
    if version.state != VersionState.ACTIVE or bot.retired_at is not None:
        raise ServiceError(f"{version.label} is {version.state}, not active")
    if bot.owner_id != user.id and not bot.human_play and bot.owner.username != settings.house_user:
        raise Forbidden(f"the owner of {bot.name} does not let others seat it at live tables")
    return version


def _house_version(session: Session, settings: Settings, game: str, name: str) -> BotVersion:
    version = session.scalar(
        select(BotVersion)
        .join(Bot, Bot.id == BotVersion.bot_id)
        .join(User, User.id == Bot.owner_id)
        .where(
            User.username == settings.house_user,
            Bot.game == game,
            Bot.name == name,
            Bot.retired_at.is_(None),
            BotVersion.state == VersionState.ACTIVE,
        )
    )
    if version is None:
        raise ServiceError(f"no house bot {name!r} plays {game}")
    return version


def _check_open_limit(session: Session, settings: Settings, user: User) -> None:
    """Refuse a seat past TABLE_OPEN_PER_USER tables not over; else hold the user's lock
    until the caller's unit ends, so simultaneous tables see each other."""
    throttle.lock(session, f"table:{user.id}")
    seated = queries.open_tables(session, user.id)
    if seated >= settings.table_open_per_user:
        raise RateLimited(
            f"you are seated at {seated} live tables not yet over, the most at once;"
            " finish or resign one first",
            retry_after=OPEN_RETRY_S,
        )


def _start(session: Session, table: LiveTable) -> None:
    """Every person is seated: the table plays, its runner sent on the commit."""
    table.state = LiveTableState.PLAYING
    table.started_at = utcnow()
    session.flush()
    announce.announce(session, "table", table.id)


def join(session: Session, settings: Settings, user: User, table_id: int, token) -> LiveTable:
    """Take the open seat the invitation `token` is for."""
    table = _locked(session, table_id)
    if not isinstance(token, str) or not token:
        raise ServiceError("send the invitation's token")
    if table.state != LiveTableState.WAITING:
        raise Conflict(f"table {table.id} is {table.state}: its seats are taken")
    if queries.seat_of(table, user) is not None:
        raise Conflict(f"you hold a seat at table {table.id} already")
    wanted = token_hash(token)
    seat = next(
        (
            s
            for s in table.seats
            if s.user_id is None and s.token_hash and hmac.compare_digest(s.token_hash, wanted)
        ),
        None,
    )
    if seat is None:
        raise Forbidden("that invitation is not for an open seat of this table")
    _check_open_limit(session, settings, user)
    seat.user_id, seat.token_hash = user.id, None
    session.flush()
    if all(s.kind == BOT or s.user_id is not None for s in table.seats):
        _start(session, table)
    return table


def _locked(session: Session, table_id: int) -> LiveTable:
    """The table, its row locked to the end of the caller's unit."""
    if not valid_id(table_id):
        raise NotFound(f"no table {table_id}")
    table = session.scalar(select(LiveTable).where(LiveTable.id == table_id).with_for_update())
    if table is None:
        raise NotFound(f"no table {table_id}")
    return table


def _seated(table: LiveTable, user: User) -> LiveTableSeat:
    seat = queries.seat_of(table, user)
    if seat is None:
        raise Forbidden(f"you hold no seat at table {table.id}")
    return table.seats[seat]


def move(session: Session, user: User, table_id: int, action, push: Push) -> int:
    """Check `user`'s move against the game as it stands and hand it to the runner;
    returns the step it was checked at (the actions applied so far). Nothing is stored:
    the runner appends the move once it applies it (`record_step`).

    403 for a caller without a seat, 409 when it is not their turn (or the table is not
    being played), 400 naming why an action is not legal.
    """
    table = queries.get_table(session, table_id)
    seat = _seated(table, user)
    if table.state != LiveTableState.PLAYING:
        raise Conflict(f"table {table.id} is {table.state}, not being played")
    if seat.status is not None:
        raise Conflict(f"your seat was played out for you: {seat.error or seat.status}")
    state = queries.game_state(table)
    to_move = state.current_player()
    if to_move != seat.seat:
        raise Conflict(f"it is not your turn: seat {to_move} is to move")
    legal = state.legal_actions()
    if find_legal(legal, action) is None:
        raise ServiceError(f"not a legal action: {_why_illegal(state, action, len(legal))}")
    step = len(table.actions)
    push(table.id, {"seat": seat.seat, "step": step, "action": action})
    return step


def _why_illegal(state, action, count: int) -> str:
    """The engine's reason an action is refused, or why it does not match a legal one."""
    if not isinstance(action, dict):
        return "an action is a JSON object, one of `legal`"
    try:
        state.clone().apply(action)
    except engine.IllegalAction as exc:
        return str(exc)
    except (KeyError, TypeError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return f"it is not written exactly as one of the {count} legal actions (mind the types)"


def resign(session: Session, user: User, table_id: int, push: Push) -> LiveTable:
    """Give up the caller's seat: the fallback policy plays it out (status `timeout`,
    error "resigned"). A table still waiting for its people simply ends."""
    table = _locked(session, table_id)
    seat = _seated(table, user)
    if table.state == LiveTableState.OVER:
        raise Conflict(f"table {table.id} is over")
    if seat.status is not None:
        raise Conflict(f"your seat was played out already: {seat.error or seat.status}")
    if table.state == LiveTableState.WAITING:
        table.state, table.finished_at = LiveTableState.OVER, utcnow()
        table.note = f"{user.username} left before every seat was taken"
        return table
    seat.status, seat.error = SeatStatus.TIMEOUT, RESIGNED
    push(table.id, {"seat": seat.seat, "step": len(table.actions), "resign": True})
    return table


def record_step(session: Session, table_id: int, step: int, seat: int, action: dict) -> bool:
    """Append the runner's `step`-th action (counted from 0); False if it is there already
    (a repeated call), Conflict if it would leave a gap."""
    table = _locked(session, table_id)
    done = len(table.actions)
    if step < done:
        return False
    if step > done:
        raise Conflict(f"table {table_id} has {done} actions; step {step} leaves a gap")
    table.actions = [*table.actions, [seat, action]]  # a new list: the JSON column sees it
    return True


def record_clock(
    session: Session, table_id: int, seat: int, step: int, left_ms: int, now_ms: int
) -> None:
    """The runner asks `seat` at `step` with `left_ms` on its clock (from `now_ms`)."""
    table = _locked(session, table_id)
    clocks = list(table.clocks or [None] * table.players)
    clocks[seat] = {"step": step, "left_ms": int(left_ms), "asked_at_ms": int(now_ms)}
    table.clocks = clocks


def table_seats(session: Session, table_id: int) -> tuple[LiveTable, list[BotVersion | None]]:
    """The table and each seat's bot version (None: a person), for its runner."""
    table = queries.get_table(session, table_id)
    return table, [s.version if s.kind == BOT else None for s in table.seats]


def finish(session: Session, settings: Settings, table_id: int, outcome: Outcome) -> Match:
    """Store the table's outcome as an ordinary finished, unranked Match (queue "tables",
    with its replay), end the table, and rate its people (bots' ratings never move).
    A table already over with its match returns that match unchanged."""
    table = _locked(session, table_id)
    if table.match_id is not None:
        return matches.get_match(session, table.match_id)
    people = {s.seat: cast(int, s.user_id) for s in table.seats if s.kind == HUMAN}
    match = matches.create_match(
        session,
        settings,
        table.game,
        [s.version_id if s.kind == BOT else None for s in table.seats],
        ranked=False,
        seed=table.seed,
        options=dict(table.options or {}),
        # Not `requested_by`: that is a challenge's, counted against CHALLENGES_PER_HOUR.
        kind="table",
        active_only=False,
        people=people,
    )
    match.started_at = table.started_at
    match = matches.record_match(session, settings, match.id, outcome)
    for seat in table.seats:
        seat.status = outcome.statuses[seat.seat]
        seat.error = outcome.errors[seat.seat]
    table.state, table.finished_at, table.match_id = LiveTableState.OVER, utcnow(), match.id
    if outcome.rated:
        _rate_people(session, settings, table, outcome.ranks)
    return match


def _rate_people(session: Session, settings: Settings, table: LiveTable, ranks: Sequence[int]):
    """One-sided TrueSkill (`ranking.humans`): the people's ratings move, each bot's
    ladder rating stands in as a fixed opponent and is never written."""
    people = sorted((s.user_id, s.seat) for s in table.seats if s.kind == HUMAN and s.user_id)
    rows = {
        r.user_id: r
        for r in session.scalars(
            select(HumanRating)
            .where(
                HumanRating.game == table.game,
                HumanRating.user_id.in_([u for u, _ in people]),
            )
            .order_by(HumanRating.user_id)
            .with_for_update()
        )
    }
    bots = {
        r.version_id: r
        for r in session.scalars(
            select(Rating).where(
                Rating.version_id.in_([s.version_id for s in table.seats if s.version_id])
            )
        )
    }
    before = []
    for s in table.seats:
        found = (
            rows.get(cast(int, s.user_id)) if s.kind == HUMAN else bots.get(cast(int, s.version_id))
        )
        before.append(ratings.Skill(found.mu, found.sigma) if found else ratings.Skill())
    after = humans.rate_people(
        before, list(ranks), [seat for _, seat in people], tau=settings.open_play_tau
    )
    for user_id, seat in people:
        row = rows.get(user_id)
        if row is None:
            row = HumanRating(user_id=user_id, game=table.game, games=0)
            session.add(row)
            rows[user_id] = row
        new = after[seat]
        row.mu, row.sigma, row.skill = new.mu, new.sigma, new.conservative
        row.games = (row.games or 0) + 1


def end_table(session: Session, table_id: int, note: str) -> bool:
    """End a table whose game cannot go on (its runner stopped): over, without a match,
    `note` saying why. False if it was over already."""
    table = _locked(session, table_id)
    if table.state == LiveTableState.OVER:
        return False
    table.state, table.finished_at, table.note = LiveTableState.OVER, utcnow(), note
    return True


def abandoned(session: Session, settings: Settings, held: Callable[[int], bool]) -> list[int]:
    """The tables being played for longer than a lease whose runner holds no lease."""
    since = utcnow() - timedelta(seconds=settings.lease_s)
    playing = session.scalars(
        select(LiveTable.id)
        .where(LiveTable.state == LiveTableState.PLAYING, LiveTable.started_at < since)
        .order_by(LiveTable.id)
    ).all()
    return [table_id for table_id in playing if not held(table_id)]
