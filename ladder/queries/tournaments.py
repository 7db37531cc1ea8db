"""Tournaments as pages and the API read them, and the rows as the pure core sees them.

`core_of` rebuilds a core `Tournament` (`ladder.tournaments`) from the rows and
`results_of` gives it the results of the matches played so far; the commands in
`ladder.services.tournaments` use both to schedule rounds. `summary`, `detail`,
`listing` and `bot_tournaments` build the dictionaries the pages and the API show.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import cast

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladder.errors import NotFound
from ladder.models import (
    Bot,
    BotVersion,
    Match,
    MatchState,
    Tournament,
    TournamentEntrant,
    TournamentMatch,
    TournamentState,
    User,
    VersionState,
    active_version,
    valid_id,
)
from ladder.settings import Settings
from ladder.tournaments.model import Entrant, Result
from ladder.tournaments.tournament import Tournament as Core
from workers import SeatStatus

# A match that failed for good (not a bot's fault) counts as a tie of every seat,
# so the tournament can go on; its page says why it failed.
FAILED_SCORE = 0.0


def get_tournament(session: Session, tournament_id: int) -> Tournament:
    found = session.get(Tournament, tournament_id) if valid_id(tournament_id) else None
    if found is None:
        raise NotFound(f"no tournament {tournament_id}")
    return found


def house_choices(session: Session, settings: Settings, tournament: Tournament) -> list[BotVersion]:
    """Active house versions of the tournament's game not yet entered."""
    entered = {e.bot_id for e in tournament.entrants}
    rows = session.scalars(
        select(BotVersion)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .join(User, Bot.owner_id == User.id)
        .where(
            Bot.game == tournament.game,
            User.username == settings.house_user,
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
            tuple(cast(int, s.rank) for s in seats),  # a finished match ranks every seat
            tuple(s.score or 0.0 for s in seats),
            tuple(SeatStatus(s.status) if s.status else SeatStatus.OK for s in seats),
        )
    if match.state == MatchState.FAILED:
        return Result((1,) * match.players, (FAILED_SCORE,) * match.players)
    return None


def results_of(placed: Mapping[tuple[int, int, int], Match]) -> dict:
    found = {key: result_of(m) for key, m in placed.items()}
    return {key: r for key, r in found.items() if r is not None}


def tournament_of_match(session: Session, match_id: int) -> int | None:
    return session.scalar(
        select(TournamentMatch.tournament_id).where(TournamentMatch.match_id == match_id)
    )


# -- reading --------------------------------------------------------------------------------
def _labels(tournament: Tournament) -> dict[Hashable, dict]:
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
                made = placed.get(m.key)
                matches.append(
                    {
                        "rotation": m.rotation,
                        "seed": m.seed,
                        "match_id": made.id if made else None,
                        "state": str(made.state) if made else "unscheduled",
                        "seats": [_seat(labels, v, made, i) for i, v in enumerate(m.seats)],
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


def _seat(labels: Mapping, version_id: Hashable, match: Match | None, i: int) -> dict:
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
    return (
        session.scalar(
            select(func.count())
            .select_from(TournamentMatch)
            .join(Match, TournamentMatch.match_id == Match.id)
            .where(Match.state.in_((MatchState.QUEUED, MatchState.RUNNING)))
        )
        or 0
    )
