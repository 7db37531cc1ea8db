"""Tournaments on the service, the commands: the lifecycle, entries, scheduling rounds.

draft → open → running → finished, and cancelled from any state before finished.
Staff create, open, add house bots, start and cancel; while open an owner enters
one active version of a bot (frozen at entry: a later upload changes nothing).

The schedule and standings come from the pure core (`ladder.tournaments`), fed
through `ladder.queries.tournaments` (`core_of`, `results_of`). Each scheduled
match is an unranked `Match` (so no rating moves) made by `matches.create_match` like
every other match, played and recorded by the ladder's own machinery (leases,
attempts, idempotent recording), plus a `TournamentMatch` row placing it in the
schedule. `advance` schedules every match the core can know and not yet created,
and finishes the tournament when the core says so; a worker calls it after each
tournament match, and beat calls it for every running tournament, so a lost call
only delays a round. What pages and the API read is in `ladder.queries.tournaments`.

Commands here flush but do not commit: the caller's unit of work does
(`ladder.transactions`). `advance` (and `advance_running`, beat's loop over it) owns
its transaction: two workers scheduling one round race for its slots, and the loser's
IntegrityError must end its own transaction only, not its caller's.
"""

from __future__ import annotations

import logging
import secrets

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

import engine
from ladder.errors import Conflict, Forbidden, NotFound, ServiceError
from ladder.models import (
    BotVersion,
    MatchState,
    Rating,
    Tournament,
    TournamentEntrant,
    TournamentMatch,
    TournamentState,
    User,
    VersionState,
    active_version,
    utcnow,
)
from ladder.queries.tournaments import core_of, get_tournament, results_of, slots
from ladder.services import bot_changes
from ladder.services.bots import check_game, get_bot, get_version
from ladder.services.matches import MAX_SEED, create_match, fail_match
from ladder.settings import Settings
from ladder.tournaments.model import FORMATS
from ladder.transactions import unit_of_work

log = logging.getLogger(__name__)

NAME_CHARS = 80
CANCELLED = "the tournament was cancelled"
LIVE = (TournamentState.OPEN, TournamentState.RUNNING)


def _staff(user: User | None) -> None:
    if user is None or not user.is_staff:
        raise Forbidden("only staff may do that")


def _state(tournament: Tournament, *allowed: TournamentState) -> None:
    if tournament.state not in allowed:
        names = " or ".join(str(s) for s in allowed)
        raise Conflict(f"tournament {tournament.id} is {tournament.state}, not {names}")


def _optional_int(value, what: str, low: int, high: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ServiceError(f"{what} is an integer from {low} to {high}")
    return value


def create_tournament(
    session: Session,
    user: User,
    name: str,
    game: str,
    format: str = "round-robin",
    *,
    table_size: int | None = None,
    rounds: int | None = None,
    duplicate: bool = False,
    advance: int | None = None,
    seed: int | None = None,
) -> Tournament:
    """Staff create a tournament in draft; its settings are checked again at start."""
    _staff(user)
    name = " ".join((name or "").split())
    if not name or len(name) > NAME_CHARS:
        raise ServiceError(f"a tournament's name has 1 to {NAME_CHARS} characters")
    spec = engine.get_game(check_game(game))
    if format not in FORMATS:
        raise ServiceError(f"format is one of {', '.join(FORMATS)}")
    low, high = max(spec.min_players, 2), min(spec.max_players, 5)
    table_size = _optional_int(table_size, "table size", low, high)
    rounds = _optional_int(rounds, "rounds", 1, 100)
    advance = _optional_int(advance, "advancing per table", 1, 4)
    if format == "elimination" and rounds is not None:
        raise ServiceError("an elimination's rounds follow from its bracket; give no rounds")
    if format != "elimination" and advance is not None:
        raise ServiceError("only an elimination has a number advancing")
    if duplicate and table_size is None:
        table_size = max(low, min(4, high))
    seed = secrets.randbelow(MAX_SEED) if seed is None else seed
    _optional_int(seed, "seed", 0, MAX_SEED)
    tournament = Tournament(
        name=name,
        game=game,
        format=format,
        table_size=table_size,
        rounds=rounds,
        duplicate=bool(duplicate),
        advance=advance,
        seed=seed,
        state=TournamentState.DRAFT,
        created_by_id=user.id,
    )
    session.add(tournament)
    session.flush()
    return tournament


def open_tournament(session: Session, user: User, tournament_id: int) -> Tournament:
    """Staff open a draft for entries."""
    _staff(user)
    tournament = get_tournament(session, tournament_id)
    _state(tournament, TournamentState.DRAFT)
    tournament.state = TournamentState.OPEN
    bot_changes.tournaments_changed(session, [tournament.id])
    return tournament


def _add(session: Session, tournament: Tournament, version: BotVersion, house: bool):
    if version.bot.game != tournament.game:
        raise ServiceError(f"{version.label} plays {version.bot.game}, not {tournament.game}")
    if version.state != VersionState.ACTIVE or version.bot.retired_at is not None:
        raise ServiceError(f"{version.label} is not active")
    if any(e.bot_id == version.bot_id for e in tournament.entrants):
        raise Conflict(f"{version.bot.name} is already entered")
    entrant = TournamentEntrant(bot_id=version.bot_id, version_id=version.id, house=house)
    tournament.entrants.append(entrant)
    bot_changes.bots_changed(session, [version.bot_id])
    try:
        session.flush()
    except IntegrityError:  # entered meanwhile by another request
        raise Conflict(f"{version.bot.name} is already entered") from None
    return entrant


def enter(session: Session, user: User, tournament_id: int, bot_id: int) -> TournamentEntrant:
    """An owner enters the active version of their bot (frozen: a later upload is not it)."""
    tournament = get_tournament(session, tournament_id)
    _state(tournament, TournamentState.OPEN)
    bot = get_bot(session, bot_id)
    if bot.owner_id != user.id:
        raise Forbidden("you can only enter your own bot")
    version = active_version(bot)
    if version is None:
        raise ServiceError(f"{bot.name} has no active version")
    return _add(session, tournament, version, house=False)


def withdraw(session: Session, user: User, tournament_id: int, bot_id: int) -> None:
    """An owner (or staff) takes a bot out again while the tournament is open."""
    tournament = get_tournament(session, tournament_id)
    _state(tournament, TournamentState.DRAFT, TournamentState.OPEN)
    entrant = next((e for e in tournament.entrants if e.bot_id == bot_id), None)
    if entrant is None:
        raise NotFound(f"bot {bot_id} is not entered")
    if not user.is_staff and get_bot(session, bot_id).owner_id != user.id:
        raise Forbidden("you can only withdraw your own bot")
    tournament.entrants.remove(entrant)
    bot_changes.bots_changed(session, [bot_id])


def add_house_bot(
    session: Session, settings: Settings, user: User, tournament_id: int, version_id: int
) -> TournamentEntrant:
    """Staff add an active version of a house bot (owned by HOUSE_USER)."""
    _staff(user)
    tournament = get_tournament(session, tournament_id)
    _state(tournament, TournamentState.DRAFT, TournamentState.OPEN)
    version = get_version(session, version_id)
    if version.bot.owner.username != settings.house_user:
        raise ServiceError(f"{version.label} is not a house bot")
    return _add(session, tournament, version, house=True)


# -- running --------------------------------------------------------------------------------
def start(session: Session, settings: Settings, user: User, tournament_id: int) -> Tournament:
    """Staff start an open tournament: freeze the entrants' ratings, schedule round 1
    (in the caller's unit: the start and its first matches are committed together)."""
    _staff(user)
    tournament = get_tournament(session, tournament_id)
    _state(tournament, TournamentState.OPEN)
    ratings = {
        r.version_id: r
        for r in session.scalars(
            select(Rating).where(Rating.version_id.in_([e.version_id for e in tournament.entrants]))
        )
    }
    for entrant in tournament.entrants:
        rating = ratings.get(entrant.version_id)
        entrant.mu, entrant.sigma = (rating.mu, rating.sigma) if rating else (None, None)
    try:
        core_of(tournament)
    except ValueError as exc:
        raise ServiceError(f"cannot start: {exc}") from None
    tournament.state = TournamentState.RUNNING
    tournament.started_at = utcnow()
    bot_changes.tournaments_changed(session, [tournament.id])
    session.flush()
    created = _advance(session, settings, tournament)
    log.info("tournament scheduled", extra={"tournament_id": tournament.id, "matches": created})
    return tournament


def advance(session: Session, settings: Settings, tournament_id: int) -> list[int]:
    """Create every match the schedule knows and has not got yet; finish when all are played.

    Idempotent and safe to call from several workers at once: the unique schedule
    key lets only one of them create a slot's match. Returns the new match ids.
    It owns its transaction (its caller has none open): the loser of that race ends
    its own with the IntegrityError, and the winner's commit sends the new matches.
    """
    try:  # a flush inside the loop meets the other worker's rows as soon as a commit would
        with unit_of_work(session):
            tournament = get_tournament(session, tournament_id)
            if tournament.state != TournamentState.RUNNING:
                return []
            created = _advance(session, settings, tournament)
    except IntegrityError:  # another worker scheduled these slots first
        return []
    if tournament.state == TournamentState.FINISHED:
        log.info("tournament finished", extra={"tournament_id": tournament.id})
    elif created:
        log.info("tournament scheduled", extra={"tournament_id": tournament.id, "matches": created})
    return created


def _advance(session: Session, settings: Settings, tournament: Tournament) -> list[int]:
    """`advance` in the caller's transaction: the new matches' ids (flushed), or the
    tournament marked finished."""
    core = core_of(tournament)
    placed = slots(session, tournament.id)
    results = results_of(placed)
    if core.finished(results):
        tournament.state = TournamentState.FINISHED
        tournament.finished_at = utcnow()
        bot_changes.tournaments_changed(session, [tournament.id])
        return []
    new = [m for m in core.pending(results) if m.key not in placed]
    return _create_slots(session, settings, tournament, new) if new else []


def _create_slots(
    session: Session, settings: Settings, tournament: Tournament, new: list
) -> list[int]:
    """Add a queued match and its schedule row for each planned slot; their match ids.

    The matches are announced (on the tournament queue) when the caller commits."""
    created = []
    for planned in new:
        match = create_match(
            session,
            settings,
            tournament.game,
            list(planned.seats),
            ranked=False,  # a tournament match never moves a ladder rating
            seed=planned.seed,
            kind="tournament",
            active_only=False,  # entrants' versions were frozen at entry
        )
        round_, table, rotation = planned.key
        session.add(
            TournamentMatch(
                match_id=match.id,
                tournament_id=tournament.id,
                round=round_,
                table_no=table,
                rotation=rotation,
            )
        )
        created.append(match.id)
    session.flush()
    return created


def advance_running(session: Session, settings: Settings) -> dict[int, list[int]]:
    """Beat's check: advance every running tournament (a lost worker call only delays),
    each in a transaction of its own (`advance`); its caller has none open."""
    ids = session.scalars(
        select(Tournament.id).where(Tournament.state == TournamentState.RUNNING)
    ).all()
    return {tid: created for tid in ids if (created := advance(session, settings, tid))}


def cancel(session: Session, user: User, tournament_id: int) -> Tournament:
    """Staff cancel a tournament not yet finished; its unplayed matches fail, unrated."""
    _staff(user)
    tournament = get_tournament(session, tournament_id)
    _state(tournament, TournamentState.DRAFT, TournamentState.OPEN, TournamentState.RUNNING)
    tournament.state = TournamentState.CANCELLED
    tournament.finished_at = utcnow()
    bot_changes.tournaments_changed(session, [tournament.id])
    for match in slots(session, tournament.id).values():
        if match.state in (MatchState.QUEUED, MatchState.RUNNING):
            fail_match(session, match.id, CANCELLED)
    return tournament
