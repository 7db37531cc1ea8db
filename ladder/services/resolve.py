"""Re-solve a game's rated history with TrueSkill Through Time, kept beside the online
rating (ladder/RATINGS.md).

Reads the game's rated matches oldest first (the ones that moved the online rating:
ranked, finished, not discarded; a match from a replaced version or a void outcome
moved nothing and is left out here too), solves them (`ranking.through_time`), and
replaces the game's `resolved_ratings` and its `resolve_runs` row. Keyed by version,
like the online rating.

Past RESOLVE_WINDOW rated matches only the latest RESOLVE_WINDOW are solved: the
solve's time grows with the matches solved (bench/ratings_resolve.py), and what the
older matches said is carried into the window by the priors, each version's online
rating just before its first match in the window. A version seen only before the
window gets no re-solved rating.

Like every service it flushes; the command or task that calls it commits.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from ladder.errors import ServiceError
from ladder.models import (
    BotVersion,
    Match,
    MatchSeat,
    MatchState,
    ResolvedRating,
    ResolveRun,
    utcnow,
)
from ladder.ranking import through_time
from ladder.ranking.ratings import Skill
from ladder.services import bot_changes
from ladder.services.bots import check_game
from ladder.settings import Settings


@dataclass(frozen=True)
class Report:
    """What one re-solve did."""

    game: str
    matches: int  # solved
    rated_matches: int  # the game's rated matches in all
    versions: int
    iterations: int
    step: float
    seconds: float

    @property
    def windowed(self) -> bool:
        return self.matches < self.rated_matches


def rated(game: str):
    """The WHERE clause of a game's rated matches: those that moved the online rating."""
    return (
        Match.game == game,
        Match.state == MatchState.FINISHED,
        Match.ranked.is_(True),
        Match.unrated_reason.is_(None),
    )


def check_window(window: int) -> int:
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ServiceError(f"a re-solve window is 1 or more matches, not {window!r}")
    return window


def load_history(
    session: Session, game: str, window: int
) -> tuple[list[through_time.RatedMatch], int]:
    """The latest `window` rated matches of `game`, oldest first, and how many it has."""
    total = session.scalar(select(func.count()).select_from(Match).where(*rated(game))) or 0
    latest = (
        select(Match.id)
        .where(*rated(game))
        .order_by(Match.finished_at.desc(), Match.id.desc())
        .limit(window)
        .subquery()
    )
    rows = session.execute(
        select(
            Match.id,
            Match.finished_at,
            MatchSeat.version_id,
            MatchSeat.rank,
            MatchSeat.mu_before,
            MatchSeat.sigma_before,
        )
        .join(latest, latest.c.id == Match.id)
        .join(MatchSeat, MatchSeat.match_id == Match.id)
        .order_by(Match.finished_at, Match.id, MatchSeat.seat)
    )
    out: list[through_time.RatedMatch] = []
    seats: list = []
    for row in rows:
        if seats and seats[0].id != row.id:
            out.append(_match(seats))
            seats = []
        seats.append(row)
    if seats:
        out.append(_match(seats))
    return out, total


def _match(seats: list) -> through_time.RatedMatch:
    first = seats[0]
    return through_time.RatedMatch(
        match_id=first.id,
        day=first.finished_at.date(),
        versions=tuple(s.version_id for s in seats),
        ranks=tuple(s.rank for s in seats),
        before=tuple(
            Skill(s.mu_before, s.sigma_before)
            if s.mu_before is not None and s.sigma_before is not None
            else Skill()
            for s in seats
        ),
    )


def resolve_game(
    session: Session, settings: Settings, game: str, window: int | None = None
) -> Report:
    """Re-solve `game`'s latest `window` (default RESOLVE_WINDOW) rated matches and
    store every version's re-solved rating and curve, replacing the last re-solve's."""
    check_game(game)
    window = check_window(settings.resolve_window if window is None else window)
    started = time.perf_counter()
    history, total = load_history(session, game, window)
    solution = through_time.solve(history, gamma=settings.open_play_tau)
    # Bot pages show the re-solved rating: those of the bots rated before and now change.
    versions = set(solution.versions) | set(
        session.scalars(select(ResolvedRating.version_id).where(ResolvedRating.game == game))
    )
    if versions:
        bot_changes.bots_changed(
            session, session.scalars(select(BotVersion.bot_id).where(BotVersion.id.in_(versions)))
        )
    session.execute(delete(ResolvedRating).where(ResolvedRating.game == game))
    session.execute(delete(ResolveRun).where(ResolveRun.game == game))
    session.add_all(
        ResolvedRating(
            version_id=version,
            game=game,
            mu=solved.mu,
            sigma=solved.sigma,
            skill=solved.conservative,
            matches=solved.matches,
            curve=[[day.isoformat(), mu, sigma] for day, mu, sigma in solved.curve],
        )
        for version, solved in sorted(solution.versions.items())
    )
    seconds = time.perf_counter() - started
    session.add(
        ResolveRun(
            game=game,
            solved_at=utcnow(),
            matches=len(history),
            rated_matches=total,
            first_match_id=history[0].match_id if history else None,
            iterations=solution.iterations,
            step=solution.step,
            seconds=seconds,
        )
    )
    session.flush()
    return Report(
        game, len(history), total, len(solution.versions), solution.iterations,
        solution.step, seconds,
    )  # fmt: skip
