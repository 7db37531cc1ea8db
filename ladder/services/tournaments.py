"""Tournaments on the service: the lifecycle, entries, scheduling rounds, standings.

draft → open → running → finished, and cancelled from any state before finished.
Staff create, open, add house bots, start and cancel; while open an owner enters
one active version of a bot (frozen at entry: a later upload changes nothing).

The schedule and standings come from the pure core (`ladder.tournaments`): this
module rebuilds a core `Tournament` from the rows (`core_of`) and hands it the
results of the matches played so far (`results_of`). Each scheduled match is an
unranked `Match` (so no rating moves), played and recorded by the ladder's own
machinery (leases, attempts, idempotent recording), plus a `TournamentMatch`
row placing it in the schedule. `advance` schedules every match the core can
know and not yet created, and finishes the tournament when the core says so;
a worker calls it after each tournament match, and beat calls it for every
running tournament, so a lost call only delays a round.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

import engine
from ladder.jobs import dispatch
from ladder.models import (
    Bot,
    BotVersion,
    Match,
    MatchSeat,
    MatchState,
    Rating,
    Tournament,
    TournamentEntrant,
    TournamentMatch,
    TournamentState,
    User,
    VersionState,
    utcnow,
)
from ladder.services.bots import active_version, check_game, get_bot, get_version, valid_id
from ladder.services.errors import Conflict, Forbidden, NotFound, ServiceError
from ladder.services.matches import MAX_SEED, fail_match
from ladder.tournaments.model import FORMATS, Entrant, Result
from ladder.tournaments.tournament import Tournament as Core

log = logging.getLogger(__name__)

NAME_CHARS = 80
CANCELLED = "the tournament was cancelled"
# A match that failed for good (not a bot's fault) counts as a tie of every seat,
# so the tournament can go on; its page says why it failed.
FAILED_SCORE = 0.0
LIVE = (TournamentState.OPEN, TournamentState.RUNNING)


def get_tournament(session: Session, tournament_id: int) -> Tournament:
    found = session.get(Tournament, tournament_id) if valid_id(tournament_id) else None
    if found is None:
        raise NotFound(f"no tournament {tournament_id}")
    return found


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
    session.commit()
    return tournament


def open_tournament(session: Session, user: User, tournament_id: int) -> Tournament:
    """Staff open a draft for entries."""
    _staff(user)
    tournament = get_tournament(session, tournament_id)
    _state(tournament, TournamentState.DRAFT)
    tournament.state = TournamentState.OPEN
    session.commit()
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
    try:
        session.commit()
    except IntegrityError:  # entered meanwhile by another request
        session.rollback()
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
    session.commit()


def add_house_bot(
    session: Session, config: Mapping, user: User, tournament_id: int, version_id: int
) -> TournamentEntrant:
    """Staff add an active version of a house bot (owned by HOUSE_USER)."""
    _staff(user)
    tournament = get_tournament(session, tournament_id)
    _state(tournament, TournamentState.DRAFT, TournamentState.OPEN)
    version = get_version(session, version_id)
    if version.bot.owner.username != config.get("HOUSE_USER", "demo"):
        raise ServiceError(f"{version.label} is not a house bot")
    return _add(session, tournament, version, house=True)


def house_choices(session: Session, config: Mapping, tournament: Tournament) -> list[BotVersion]:
    """Active house versions of the tournament's game not yet entered."""
    entered = {e.bot_id for e in tournament.entrants}
    rows = session.scalars(
        select(BotVersion)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .join(User, Bot.owner_id == User.id)
        .where(
            Bot.game == tournament.game,
            User.username == config.get("HOUSE_USER", "demo"),
            BotVersion.state == VersionState.ACTIVE,
            Bot.retired_at.is_(None),
        )
        .order_by(Bot.name)
    )
    return [v for v in rows if v.bot_id not in entered]


def enterable_bots(session: Session, user: User, tournament: Tournament) -> list[Bot]:
    """The user's bots of the tournament's game with an active version, not yet entered."""
    entered = {e.bot_id for e in tournament.entrants}
    bots = session.scalars(
        select(Bot)
        .where(Bot.owner_id == user.id, Bot.game == tournament.game, Bot.retired_at.is_(None))
        .order_by(Bot.name)
    )
    return [b for b in bots if b.id not in entered and active_version(b) is not None]


# -- the core's view of the rows ------------------------------------------------------------
def core_of(tournament: Tournament) -> Core:
    """The pure core's Tournament for these rows (entrants in entry order, by version id)."""
    entrants = tuple(Entrant(e.version_id, e.mu, e.sigma) for e in tournament.entrants)
    return Core(
        tournament.game,
        entrants,
        tournament.format,
        table_size=tournament.table_size,
        rounds=tournament.rounds,
        seed=tournament.seed,
        duplicate=tournament.duplicate,
        advance=tournament.advance,
    )


def slots(session: Session, tournament_id: int) -> dict[tuple[int, int, int], Match]:
    """The tournament's matches by schedule key (round, table, rotation)."""
    rows = session.execute(
        select(TournamentMatch, Match)
        .join(Match, TournamentMatch.match_id == Match.id)
        .where(TournamentMatch.tournament_id == tournament_id)
    )
    return {(tm.round, tm.table_no, tm.rotation): m for tm, m in rows}


def result_of(match: Match) -> Result | None:
    """A match's result as the core reads it; None while it is in flight."""
    if match.state == MatchState.FINISHED:
        seats = sorted(match.seats, key=lambda s: s.seat)
        return Result(
            tuple(s.rank for s in seats),
            tuple(s.score or 0.0 for s in seats),
            tuple(s.status or "ok" for s in seats),
        )
    if match.state == MatchState.FAILED:
        return Result((1,) * match.players, (FAILED_SCORE,) * match.players)
    return None


def results_of(placed: Mapping[tuple[int, int, int], Match]) -> dict:
    found = {key: result_of(m) for key, m in placed.items()}
    return {key: r for key, r in found.items() if r is not None}


# -- running --------------------------------------------------------------------------------
def start(session: Session, config: Mapping, user: User, tournament_id: int) -> Tournament:
    """Staff start an open tournament: freeze the entrants' ratings, schedule round 1."""
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
        session.rollback()
        raise ServiceError(f"cannot start: {exc}") from None
    tournament.state = TournamentState.RUNNING
    tournament.started_at = utcnow()
    session.commit()
    advance(session, config, tournament.id)
    return tournament


def advance(session: Session, config: Mapping, tournament_id: int) -> list[int]:
    """Create every match the schedule knows and has not got yet; finish when all are played.

    Idempotent and safe to call from several workers at once: the unique schedule
    key lets only one of them create a slot's match. Returns the new match ids.
    """
    tournament = get_tournament(session, tournament_id)
    if tournament.state != TournamentState.RUNNING:
        return []
    core = core_of(tournament)
    placed = slots(session, tournament.id)
    results = results_of(placed)
    if core.finished(results):
        tournament.state = TournamentState.FINISHED
        tournament.finished_at = utcnow()
        session.commit()
        log.info("tournament finished", extra={"tournament_id": tournament.id})
        return []
    new = [m for m in core.pending(results) if m.key not in placed]
    if not new:
        session.rollback()
        return []
    try:  # a flush inside the loop meets the other worker's rows as soon as a commit would
        created = _create_slots(session, tournament, new)
        session.commit()
    except IntegrityError:  # another worker scheduled these slots first
        session.rollback()
        return []
    for match_id in created:
        dispatch.notify(config, "tournament", match_id)
    log.info("tournament scheduled", extra={"tournament_id": tournament.id, "matches": created})
    return created


def _create_slots(session: Session, tournament: Tournament, new: list) -> list[int]:
    """Add a queued match and its schedule row for each planned slot; their match ids."""
    created = []
    for planned in new:
        match = Match(
            game=tournament.game,
            seed=planned.seed,
            players=len(planned.seats),
            options={},
            ranked=False,  # a tournament match never moves a ladder rating
            state=MatchState.QUEUED,
            seats=[MatchSeat(seat=i, version_id=v) for i, v in enumerate(planned.seats)],
        )
        session.add(match)
        session.flush()
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


def advance_running(session: Session, config: Mapping) -> dict[int, list[int]]:
    """Beat's check: advance every running tournament (a lost worker call only delays)."""
    ids = session.scalars(
        select(Tournament.id).where(Tournament.state == TournamentState.RUNNING)
    ).all()
    return {tid: created for tid in ids if (created := advance(session, config, tid))}


def tournament_of_match(session: Session, match_id: int) -> int | None:
    return session.scalar(
        select(TournamentMatch.tournament_id).where(TournamentMatch.match_id == match_id)
    )


def cancel(session: Session, user: User, tournament_id: int) -> Tournament:
    """Staff cancel a tournament not yet finished; its unplayed matches fail, unrated."""
    _staff(user)
    tournament = get_tournament(session, tournament_id)
    _state(tournament, TournamentState.DRAFT, TournamentState.OPEN, TournamentState.RUNNING)
    tournament.state = TournamentState.CANCELLED
    tournament.finished_at = utcnow()
    session.commit()
    for match in slots(session, tournament.id).values():
        if match.state in (MatchState.QUEUED, MatchState.RUNNING):
            fail_match(session, match.id, CANCELLED)
    return tournament


# -- reading --------------------------------------------------------------------------------
def _labels(tournament: Tournament) -> dict[int, dict]:
    return {
        e.version_id: {
            "version_id": e.version_id,
            "bot_id": e.bot_id,
            "bot": e.version.bot.name,
            "owner": e.version.bot.owner.username,
            "version": e.version.number,
            "house": e.house,
        }
        for e in tournament.entrants
    }


def summary(tournament: Tournament) -> dict:
    """A tournament's settings and state, as the pages and the API show them."""
    core = None
    if len(tournament.entrants) >= 2:
        try:
            core = core_of(tournament)
        except ValueError:
            core = None
    return {
        "id": tournament.id,
        "name": tournament.name,
        "game": tournament.game,
        "format": tournament.format,
        "state": str(tournament.state),
        "table_size": core.table_size if core else tournament.table_size,
        "rounds": core.round_count if core else tournament.rounds,
        "duplicate": tournament.duplicate,
        "advance": core.advancing if core and tournament.format == "elimination" else None,
        "seed": tournament.seed,
        "entrants": len(tournament.entrants),
        "created_at": _iso(tournament.created_at),
        "started_at": _iso(tournament.started_at),
        "finished_at": _iso(tournament.finished_at),
    }


def _iso(moment) -> str | None:
    return None if moment is None else moment.isoformat(timespec="seconds") + "Z"


def detail(session: Session, tournament: Tournament) -> dict:
    """Everything the tournament page and the API show: settings, entrants, standings,
    the schedule by round (each match linked to its row) and, for elimination, the bracket."""
    labels = _labels(tournament)
    info = summary(tournament)
    info["entrant_list"] = list(labels.values())
    info["standings"], info["schedule"], info["bracket"] = [], [], None
    placed = slots(session, tournament.id)
    info["match_counts"] = _counts(placed.values())
    if tournament.state not in (TournamentState.RUNNING, TournamentState.FINISHED) and not placed:
        return info
    try:
        core = core_of(tournament)
    except ValueError:
        return info
    results = results_of(placed)
    for line in core.standings(results):
        row = line.to_dict()
        entrant = row.pop("entrant")
        row.pop("fault_kinds", None)
        info["standings"].append({**labels[entrant], **row})
    for planned in core.schedule(results):
        tables = []
        for table in planned.tables:
            matches = []
            for m in table.matches:
                row = placed.get(m.key)
                matches.append(
                    {
                        "rotation": m.rotation,
                        "seed": m.seed,
                        "match_id": row.id if row else None,
                        "state": str(row.state) if row else "unscheduled",
                        "seats": [_seat(labels, v, row, i) for i, v in enumerate(m.seats)],
                    }
                )
            tables.append({"table": table.number, "matches": matches})
        info["schedule"].append(
            {
                "round": planned.number,
                "tables": tables,
                "byes": [labels[v]["bot"] for v in planned.byes],
            }
        )
    if tournament.format == "elimination":
        info["bracket"] = _bracket(core.bracket(results), labels)
    return info


def _seat(labels: Mapping, version_id: int, match: Match | None, i: int) -> dict:
    seat = match.seats[i] if match is not None and match.state == MatchState.FINISHED else None
    return {
        **{k: labels[version_id][k] for k in ("bot", "bot_id", "version_id")},
        "rank": seat.rank if seat else None,
        "score": seat.score if seat else None,
        "status": seat.status if seat else None,
    }


def _bracket(rounds: list[dict], labels: Mapping) -> list[dict]:
    def name(v):
        return labels[v]["bot"]

    drawn = []
    for r in rounds:
        byes = r["byes"]
        drawn.append(
            {
                "round": r["round"],
                "final": r["final"],
                "byes": [name(v) for v in byes] if isinstance(byes, list) else [],
                "tables": [
                    {
                        "table": t["table"],
                        "size": t["size"],
                        "entrants": [name(v) for v in t["entrants"]],
                        "places": [name(v) for v in t["places"]] if t["places"] else None,
                        "advancing": [name(v) for v in t["advancing"]],
                    }
                    for t in r["tables"]
                ],
            }
        )
    return drawn


def _counts(matches) -> dict:
    counts = {str(s): 0 for s in MatchState}
    for m in matches:
        counts[str(m.state)] += 1
    counts["total"] = sum(counts.values())
    return counts


def listing(session: Session) -> dict[str, list[dict]]:
    """Tournaments by section: upcoming (draft, open), running, finished (and cancelled)."""
    found = session.scalars(select(Tournament).order_by(Tournament.created_at.desc())).all()
    sections: dict[str, list[dict]] = {"upcoming": [], "running": [], "finished": []}
    for t in found:
        if t.state in (TournamentState.DRAFT, TournamentState.OPEN):
            sections["upcoming"].append(summary(t))
        elif t.state == TournamentState.RUNNING:
            sections["running"].append(summary(t))
        else:
            sections["finished"].append(summary(t))
    return sections


def bot_tournaments(session: Session, bot_id: int) -> list[dict]:
    """The tournaments a bot entered, newest first, with its place where there are standings."""
    rows = session.scalars(
        select(Tournament)
        .join(TournamentEntrant, TournamentEntrant.tournament_id == Tournament.id)
        .where(TournamentEntrant.bot_id == bot_id)
        .order_by(Tournament.created_at.desc())
    ).all()
    entries = []
    for t in rows:
        info = detail(session, t)
        line = next((s for s in info["standings"] if s["bot_id"] == bot_id), None)
        entries.append(
            {
                "id": t.id,
                "name": t.name,
                "state": str(t.state),
                "format": t.format,
                "version": line["version"] if line else None,
                "rank": line["rank"] if line else None,
                "of": len(info["standings"]) or info["entrants"],
                "points": line["points"] if line else None,
            }
        )
    return entries


def match_counts(session: Session, tournament_id: int) -> dict:
    return _counts(slots(session, tournament_id).values())


def count_in_flight(session: Session) -> int:
    """Tournament matches queued or running (for the status page)."""
    return session.scalar(
        select(func.count())
        .select_from(TournamentMatch)
        .join(Match, TournamentMatch.match_id == Match.id)
        .where(Match.state.in_((MatchState.QUEUED, MatchState.RUNNING)))
    )
