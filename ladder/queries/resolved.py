"""Reads of the re-solved ratings beside the online ones (ladder/RATINGS.md): both ratings
per bot on a game's board, a version's re-solved curve, the bots whose two ratings
disagree (for the staff page), and a game's last re-solve. Plain JSON-able dicts.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ladder.models import (
    Bot,
    BotVersion,
    Rating,
    ResolvedRating,
    ResolveRun,
    User,
    VersionState,
)
from ladder.queries.boards import iso, rating_figures
from ladder.settings import RATINGS_SHOWN

# Two ratings of a version disagree when their μ are more than this apart: half a β
# (4.17, one match's performance noise). Over a long history both see the same
# evidence and agree within about a point; a gap of two points or more means the order
# results came in (or an early run of luck) still weighs on the online rating, and
# moves a bot several rows on a crowded board.
DISAGREEMENT = 2.0


def both_ratings(session: Session, game: str, order: str = RATINGS_SHOWN[0]) -> list[dict]:
    """Every active version of `game` with its online and re-solved ratings (None if
    the last re-solve did not see it), best first by `order` ("online" or "resolved":
    μ − 3σ of that rating; versions without a re-solved rating after the rest)."""
    if order not in RATINGS_SHOWN:
        raise ValueError(f"order is one of {', '.join(RATINGS_SHOWN)}, not {order!r}")
    rows = session.execute(
        select(Rating, ResolvedRating, BotVersion.number, Bot.id, Bot.name, User.username)
        .join(BotVersion, Rating.version_id == BotVersion.id)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .join(User, Bot.owner_id == User.id)
        .outerjoin(ResolvedRating, ResolvedRating.version_id == Rating.version_id)
        .where(Rating.game == game, BotVersion.state == VersionState.ACTIVE)
    ).all()
    out = []
    for online, resolved, number, bot_id, name, owner in rows:
        out.append(
            {
                "bot_id": bot_id,
                "bot": name,
                "owner": owner,
                "version_id": online.version_id,
                "version": number,
                "online": {
                    **rating_figures(online.mu, online.sigma, online.skill),
                    "games": online.games,
                },
                "resolved": None
                if resolved is None
                else {
                    **rating_figures(resolved.mu, resolved.sigma, resolved.skill),
                    "matches": resolved.matches,
                },
                "gap": None if resolved is None else round(resolved.mu - online.mu, 3),
            }
        )

    def key(entry: dict) -> tuple:
        shown = entry[order]
        return (shown is None, -(shown or {"skill": 0.0})["skill"], entry["version_id"])

    out.sort(key=key)
    for place, entry in enumerate(out, 1):
        entry["rank"] = place
    return out


def disagreements(session: Session, game: str, threshold: float = DISAGREEMENT) -> list[dict]:
    """Active versions of `game` whose re-solved μ is more than `threshold` from their
    online μ, the largest gap first, each with its place on both boards."""
    online = both_ratings(session, game, "online")
    places = {e["version_id"]: e["rank"] for e in both_ratings(session, game, "resolved")}
    found = [
        {**e, "online_rank": e["rank"], "resolved_rank": places[e["version_id"]]}
        for e in online
        if e["gap"] is not None and abs(e["gap"]) > threshold
    ]
    for entry in found:
        del entry["rank"]
    found.sort(key=lambda e: (-abs(e["gap"]), e["version_id"]))
    return found


def resolved_curve(session: Session, version_id: int) -> list[dict]:
    """A version's re-solved curve, oldest first: its estimate after the last match of
    each day it played (bounded), with μ − 3σ; empty if the last re-solve did not see it."""
    row = session.get(ResolvedRating, version_id)
    if row is None:
        return []
    return [
        {"day": day, **rating_figures(mu, sigma, mu - 3 * sigma)} for day, mu, sigma in row.curve
    ]


def last_run(session: Session, game: str) -> dict | None:
    """When `game` was last re-solved and over what, or None if never."""
    run = session.get(ResolveRun, game)
    if run is None:
        return None
    return {
        "game": run.game,
        "solved_at": iso(run.solved_at),
        "matches": run.matches,
        "rated_matches": run.rated_matches,
        "windowed": run.matches < run.rated_matches,
        "first_match_id": run.first_match_id,
        "iterations": run.iterations,
        "step": round(run.step, 4),
        "seconds": round(run.seconds, 2),
    }


def resolve_stamp(session: Session, game: str) -> str | None:
    """When `game` was last re-solved (None: never): what a kept board's data is keyed
    on, so a re-solve's figures are never hidden behind an older copy."""
    return iso(session.scalar(select(ResolveRun.solved_at).where(ResolveRun.game == game)))


def resolve_stamps(session: Session) -> tuple:
    """Every game's last re-solve, (game, when) in game order: the front page's key."""
    return tuple(
        (game, iso(at))
        for game, at in session.execute(
            select(ResolveRun.game, ResolveRun.solved_at).order_by(ResolveRun.game)
        )
    )


def bot_curves(session: Session, bot_id: int) -> dict[int, list[dict]]:
    """The re-solved curve of each of a bot's versions the last re-solve saw, by version
    number (`resolved_curve`'s points)."""
    rows = session.execute(
        select(BotVersion.number, ResolvedRating.curve)
        .join(BotVersion, ResolvedRating.version_id == BotVersion.id)
        .where(BotVersion.bot_id == bot_id)
    )
    return {
        number: [{"day": d, **rating_figures(mu, sigma, mu - 3 * sigma)} for d, mu, sigma in curve]
        for number, curve in rows
    }
