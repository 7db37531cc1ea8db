"""Read-only queries behind the pages and the API, returning plain JSON-able dicts.

The site and the API show the same facts, so both use these shapes.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import cast

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.orm import Session, aliased

from ladder.broker.announce import TABLE_QUEUE, TEST_QUEUE
from ladder.models import (
    SEAT_STATUSES,
    Bot,
    BotRevision,
    BotVersion,
    HeadToHead,
    LiveTable,
    Match,
    MatchSeat,
    MatchTally,
    Rating,
    RatingHistory,
    ResolvedRating,
    ResolveRun,
    TournamentMatch,
    User,
    VersionState,
    VersionTest,
    VersionTestMatch,
)
from ladder.queries import certainty as certainty_queries
from ladder.ranking import certainty, ratings
from ladder.settings import RATINGS_SHOWN
from workers import SeatStatus

HISTORY_POINTS = 500
# The rating-history table under the chart: the newest rows only (the chart has all of
# HISTORY_POINTS; 500 table rows were a quarter of the bot page's time).
HISTORY_TABLE_ROWS = 50
RECENT_MATCHES = 20
# A person's seat whose account is gone (match_seats.user_id is SET NULL with it).
FORMER_PLAYER = "a former player"
HEAD_TO_HEAD_ROWS = 50


def iso(moment: datetime | None) -> str | None:
    """UTC time as ISO 8601 with a Z, or None."""
    return None if moment is None else moment.replace(microsecond=0).isoformat() + "Z"


def _pages(total: int, page: int, per_page: int) -> dict:
    return {
        "page": page,
        "per_page": per_page,
        "total": total,
        "pages": max(1, -(-total // per_page)),
    }


def leaderboard(
    session: Session, game: str, page: int, per_page: int, rating: str = RATINGS_SHOWN[0]
) -> dict:
    """Active versions of `game`, one page of them: settled ones first, then provisional
    ones (ladder/RATINGS.md), each part best first by μ − 3σ of `rating` ("online" or
    "resolved"). Each entry has both ratings; the board says how many are settled, the
    range μ ± 2σ spans over all of it (`scale`, for the bars) and the last re-solve."""
    if rating not in RATINGS_SHOWN:
        raise ValueError(f"rating is one of {', '.join(RATINGS_SHOWN)}, not {rating!r}")
    resolved = rating == "resolved"
    where = and_(Rating.game == game, BotVersion.state == VersionState.ACTIVE)
    young = certainty_queries.young_opponents(session, game)
    settled_young = [v for v, met in young.items() if met >= certainty.PROVISIONAL_OPPONENTS]
    shown = ResolvedRating if resolved else Rating
    # A version is provisional on σ of the rating shown (none: the last re-solve did not
    # see it) or on opponents met, counted only below PROVISIONAL_OPPONENTS games.
    provisional = or_(
        shown.sigma.is_(None),
        shown.sigma > certainty.PROVISIONAL_SIGMA,
        and_(
            Rating.games < certainty.PROVISIONAL_OPPONENTS,
            Rating.version_id.not_in(settled_young),
        ),
    )

    def board(*columns):
        return (
            select(*columns)
            .select_from(Rating)
            .join(BotVersion, Rating.version_id == BotVersion.id)
            .outerjoin(ResolvedRating, ResolvedRating.version_id == Rating.version_id)
            .where(where)
        )

    total, settled, low, high = session.execute(
        board(
            func.count(),
            func.coalesce(func.sum(case((provisional, 0), else_=1)), 0),
            func.min(shown.mu - 2 * shown.sigma),
            func.max(shown.mu + 2 * shown.sigma),
        )
    ).one()
    rows = session.execute(
        board(
            Rating,
            ResolvedRating,
            BotVersion.number,
            BotVersion.paused_at,
            Bot.id,
            Bot.name,
            User.username,
        )
        .join(Bot, BotVersion.bot_id == Bot.id)
        .join(User, Bot.owner_id == User.id)
        .order_by(
            case((provisional, 1), else_=0),
            shown.skill.is_(None),
            shown.skill.desc(),
            Rating.version_id,
        )
        .limit(per_page)
        .offset((page - 1) * per_page)
    ).all()
    first = (page - 1) * per_page + 1
    entries = []
    for i, (online, again, number, paused_at, bot_id, name, owner) in enumerate(rows):
        figures = again if resolved else online
        reason = certainty_queries.provisional_reason(
            None if figures is None else figures.sigma,
            online.games,
            young.get(online.version_id),
            resolved,
        )
        entries.append(
            {
                "rank": first + i,
                "bot_id": bot_id,
                "bot": name,
                "owner": owner,
                "version_id": online.version_id,
                "version": number,
                "skill": round(online.skill, 3),
                "mu": round(online.mu, 3),
                "sigma": round(online.sigma, 3),
                "games": online.games,
                "last_played_at": iso(online.last_played_at),
                # Crash triage took it out of matchmaking: it keeps its place but plays no match.
                "paused": paused_at is not None,
                "provisional": reason is not None,
                "provisional_reason": reason,
                "resolved": None
                if again is None
                else {
                    **rating_figures(again.mu, again.sigma, again.skill),
                    "matches": again.matches,
                },
            }
        )
    run = session.get(ResolveRun, game)
    return {
        "game": game,
        **_pages(total, page, per_page),
        "rating": rating,
        "settled": int(settled),
        "scale": None if low is None else {"low": round(low, 3), "high": round(high, 3)},
        "resolve": None
        if run is None
        else {"solved_at": iso(run.solved_at), "matches": run.matches},
        "entries": entries,
    }


def rating_figures(mu: float, sigma: float, skill: float) -> dict:
    """A rating's μ, σ and skill as the pages and the API give them (3 decimals)."""
    return {"mu": round(mu, 3), "sigma": round(sigma, 3), "skill": round(skill, 3)}


def version_summary(version: BotVersion, owner_view: bool) -> dict:
    """A version's public facts; its log only for its owner."""
    rating = version.rating
    out = {
        "id": version.id,
        "bot_id": version.bot_id,
        "number": version.number,
        "state": version.state,
        "size": version.size,
        "sha256": version.sha256,
        "kind": version.kind,
        "created_at": iso(version.created_at),
        "validated_at": iso(version.validated_at),
        "rating": None
        if rating is None
        else {
            **rating_figures(rating.mu, rating.sigma, rating.skill),
            "games": rating.games,
            "last_played_at": iso(rating.last_played_at),
        },
    }
    out["paused"] = (
        None
        if version.paused_at is None
        else {"at": iso(version.paused_at), "reason": version.paused_reason}
    )
    if owner_view:
        out["validation_log"] = version.validation_log
    return out


def version_faults(session: Session, *bot_ids: int) -> dict[int, dict]:
    """Per version of these bots: finished matches by seat status, and the last fault
    (match, seat, status, reason), for the bot pages' version tables; and the ranked
    seats, wins and sum of ranks that `bot_record` adds up. A candidate's test matches
    are not counted (two versions of the bot sit at each; its test page has them), but
    a fault in one is still the last fault."""
    tests = select(VersionTestMatch.match_id)
    counts = session.execute(
        select(
            MatchSeat.version_id,
            MatchSeat.status,
            func.count(MatchSeat.id),
            func.count(MatchSeat.rank),
            func.coalesce(func.sum(case((MatchSeat.rank == 1, 1), else_=0)), 0),
            func.coalesce(func.sum(MatchSeat.rank), 0),
        )
        .join(BotVersion, MatchSeat.version_id == BotVersion.id)
        .where(
            BotVersion.bot_id.in_(bot_ids),
            MatchSeat.status.is_not(None),
            MatchSeat.match_id.not_in(tests),
        )
        .group_by(MatchSeat.version_id, MatchSeat.status)
    ).all()
    out: dict[int, dict] = {}
    for version_id, status, n, ranked, wins, rank_sum in counts:
        entry = out.setdefault(
            version_id,
            {
                "counts": dict.fromkeys(SEAT_STATUSES, 0),
                "matches": 0,
                "last_fault": None,
                "ranked": 0,  # seats with a rank, their wins and ranks: for `bot_record`
                "wins": 0,
                "rank_sum": 0,
            },
        )
        entry["counts"][status] = entry["counts"].get(status, 0) + n
        entry["matches"] += n
        entry["ranked"] += ranked
        entry["wins"] += wins
        entry["rank_sum"] += rank_sum
    last = (
        select(MatchSeat.version_id, func.max(MatchSeat.match_id).label("match_id"))
        .join(BotVersion, MatchSeat.version_id == BotVersion.id)
        .where(BotVersion.bot_id.in_(bot_ids), MatchSeat.status != SeatStatus.OK)
        .group_by(MatchSeat.version_id)
        .subquery()
    )
    rows = session.execute(
        select(MatchSeat, Match.finished_at)
        .join(
            last,
            (MatchSeat.version_id == last.c.version_id) & (MatchSeat.match_id == last.c.match_id),
        )
        .join(Match, Match.id == MatchSeat.match_id)
    ).all()
    for seat, finished_at in rows:
        if seat.version_id in out:
            out[seat.version_id]["last_fault"] = {
                "match_id": seat.match_id,
                "seat": seat.seat,
                "status": seat.status,
                "error": seat.error,
                "at": iso(finished_at),
            }
    return out


def bot_summary(bot: Bot, owner_view: bool) -> dict:
    return {
        "id": bot.id,
        "name": bot.name,
        "game": bot.game,
        "owner": bot.owner.username,
        "created_at": iso(bot.created_at),
        "retired": bot.retired_at is not None,
        "versions": [version_summary(v, owner_view) for v in bot.versions],
    }


def bot_revision(session: Session, bot_id: int) -> int:
    """How many commits have changed the bot's page (`services.bot_changes`): a page
    made at one revision is right until the number moves."""
    return session.scalar(select(BotRevision.revision).where(BotRevision.bot_id == bot_id)) or 0


def rating_history(session: Session, bot_id: int) -> list[dict]:
    """The bot's ratings after each rated match, oldest first, across its versions."""
    rows = session.execute(  # columns, not objects: up to HISTORY_POINTS rows a page
        select(
            RatingHistory.match_id,
            BotVersion.number,
            RatingHistory.mu,
            RatingHistory.sigma,
            RatingHistory.skill,
            RatingHistory.recorded_at,
        )
        .join(BotVersion, RatingHistory.version_id == BotVersion.id)
        .where(BotVersion.bot_id == bot_id)
        .order_by(RatingHistory.id.desc())
        .limit(HISTORY_POINTS)
    ).all()
    return [
        {
            "match_id": match_id,
            "version": number,
            "mu": round(mu, 3),
            "sigma": round(sigma, 3),
            "skill": round(skill, 3),
            "at": iso(at),
        }
        for match_id, number, mu, sigma, skill, at in reversed(rows)
    ]


def bot_record(faults: dict[int, dict]) -> dict:
    """Games finished, wins (rank 1) and mean rank, over all the bot's versions: summed
    from `version_faults`' rows, so a bot page reads the bot's seats once."""
    games = sum(entry["ranked"] for entry in faults.values())
    wins = sum(entry["wins"] for entry in faults.values())
    rank_sum = sum(entry["rank_sum"] for entry in faults.values())
    return {
        "games": games,
        "wins": wins,
        "mean_rank": round(rank_sum / games, 2) if games else None,
    }


def head_to_head(session: Session, bot_id: int) -> list[dict]:
    """Against each opponent bot: shared matches and how often this bot finished ahead,
    most met first; read from the rows kept as results are recorded (`HeadToHead`)."""
    # The rows shown first (a busy bot has met thousands), then their names.
    top = (
        select(HeadToHead)
        .where(HeadToHead.bot_id == bot_id)
        .order_by(HeadToHead.met.desc(), HeadToHead.opponent_id)
        .limit(HEAD_TO_HEAD_ROWS)
        .subquery()
    )
    rows = session.execute(
        select(Bot.id, Bot.name, User.username, top.c.met, top.c.ahead, top.c.behind, top.c.tied)
        .join(Bot, top.c.opponent_id == Bot.id)
        .join(User, Bot.owner_id == User.id)
        .order_by(top.c.met.desc(), Bot.id)
    ).all()
    return [
        {
            "bot_id": b,
            "bot": name,
            "owner": owner,
            "matches": n,
            "ahead": a,
            "behind": be,
            "tied": t,
        }
        for b, name, owner, n, a, be, t in rows
    ]


def seat_facts(session: Session, match_ids: list[int]) -> list:
    """The seats of these matches, by match and seat: (seat, version number, bot id, bot
    name, owner's name, person's name), the bot's fields None at a person's seat and the
    person's None at a bot's."""
    owner, person = aliased(User), aliased(User)
    return list(
        session.execute(
            select(MatchSeat, BotVersion.number, Bot.id, Bot.name, owner.username, person.username)
            .outerjoin(BotVersion, MatchSeat.version_id == BotVersion.id)
            .outerjoin(Bot, BotVersion.bot_id == Bot.id)
            .outerjoin(owner, Bot.owner_id == owner.id)
            .outerjoin(person, MatchSeat.user_id == person.id)
            .where(MatchSeat.match_id.in_(match_ids))
            .order_by(MatchSeat.match_id, MatchSeat.seat)
        ).all()
    )


def _seat_rows(session: Session, match_ids: list[int]) -> dict[int, list[dict]]:
    """Public facts of the seats of these matches, by match, every seat in seat order.

    A bot's seat names its bot, owner and version, and `person` is None; a person's
    seat at a live table (no version) has `person`, its user's name (FORMER_PLAYER once
    the account is gone), and None for the bot's fields."""
    rows = seat_facts(session, match_ids)
    by_match: dict[int, list[dict]] = {m: [] for m in match_ids}
    for seat, number, b, name, owned_by, username in rows:
        change = None
        if seat.mu_after is not None and seat.mu_before is not None:
            # A rated seat stores mu and sigma together, before and after.
            change = round(
                ratings.conservative(seat.mu_after, cast(float, seat.sigma_after))
                - ratings.conservative(seat.mu_before, cast(float, seat.sigma_before)),
                3,
            )
        by_match[seat.match_id].append(
            {
                "seat": seat.seat,
                "person": None if seat.version_id is not None else username or FORMER_PLAYER,
                "bot_id": b,
                "bot": name,
                "owner": owned_by,
                "version_id": seat.version_id,
                "version": number,
                "status": seat.status,
                "rank": seat.rank,
                "score": seat.score,
                "error": seat.error,
                "mu_before": seat.mu_before,
                "mu_after": seat.mu_after,
                "sigma_before": seat.sigma_before,
                "sigma_after": seat.sigma_after,
                "skill_change": change,
            }
        )
    return by_match


def match_summary(match: Match, seats: list[dict]) -> dict:
    return {
        "id": match.id,
        "game": match.game,
        "seed": match.seed,
        "players": match.players,
        "ranked": match.ranked,
        "state": match.state,
        "unrated_reason": match.unrated_reason,
        "created_at": iso(match.created_at),
        "started_at": iso(match.started_at),
        "finished_at": iso(match.finished_at),
        "engine_version": match.engine_version,
        "has_replay": match.replay_key is not None,
        "seats": seats,
    }


def _matches_query(game: str | None, bot_id: int | None):
    query = select(Match.id)
    if game:
        query = query.where(Match.game == game)
    if bot_id is not None:
        with_bot = (
            select(MatchSeat.match_id)
            .join(BotVersion, MatchSeat.version_id == BotVersion.id)
            .where(BotVersion.bot_id == bot_id)
        )
        query = query.where(Match.id.in_(with_bot))
    return query


def match_summaries(session: Session, ids: list[int]) -> list[dict]:
    """The matches of these ids, in this order, with their seats (as `match_list` shows them)."""
    found = {m.id: m for m in session.scalars(select(Match).where(Match.id.in_(ids)))}
    seats = _seat_rows(session, ids)
    return [match_summary(found[i], seats[i]) for i in ids]


def match_list(
    session: Session, page: int, per_page: int, game: str | None = None, bot_id: int | None = None
) -> dict:
    """Matches newest first, optionally of one game or with one bot."""
    query = _matches_query(game, bot_id)
    if bot_id is None:  # a few rows kept by triggers, not a count of 10^6 (`MatchTally`)
        tallied = select(func.sum(MatchTally.matches))
        total = session.scalar(tallied.where(MatchTally.game == game) if game else tallied) or 0
    else:
        total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    ids = session.scalars(
        query.order_by(Match.id.desc()).limit(per_page).offset((page - 1) * per_page)
    ).all()
    return {**_pages(total, page, per_page), "matches": match_summaries(session, list(ids))}


def recent_matches(session: Session, bot_id: int, count: int = RECENT_MATCHES) -> list[dict]:
    """The bot's newest matches, as `match_list` shows them, without counting them all
    (a bot page needs a few, and a busy bot has thousands)."""
    query = _matches_query(None, bot_id).order_by(Match.id.desc()).limit(count)
    return match_summaries(session, list(session.scalars(query)))


def match_detail(session: Session, match: Match) -> dict:
    return match_summary(match, _seat_rows(session, [match.id])[match.id])


def match_table(session: Session, match: Match, seats: list[dict], house: str) -> dict:
    """Who made the table: `kind` ("ladder", "challenge", "tournament" with its
    `tournament_id`, "test" with the `candidate_id` whose test it is, or "table", a live
    table's match, with its `table_id`), and `shared_owners`, the owners (house apart)
    holding two bot seats or more, which a rated ladder table never seats
    (`ranking.matchmaking`)."""
    tournament_id = session.scalar(
        select(TournamentMatch.tournament_id).where(TournamentMatch.match_id == match.id)
    )
    candidate = table_id = None
    if tournament_id is not None:
        kind = "tournament"
    elif match.queue == TEST_QUEUE:
        kind = "test"
        candidate = session.scalar(
            select(VersionTest.version_id)
            .join(VersionTestMatch, VersionTestMatch.test_id == VersionTest.id)
            .where(VersionTestMatch.match_id == match.id)
        )
    elif match.queue == TABLE_QUEUE:
        kind = "table"
        table_id = session.scalar(select(LiveTable.id).where(LiveTable.match_id == match.id))
    else:
        kind = "challenge" if match.requested_by_id is not None else "ladder"
    seated = Counter(s["owner"] for s in seats if s["owner"] not in (None, house))
    return {
        "kind": kind,
        "tournament_id": tournament_id,
        "candidate_id": candidate,
        "table_id": table_id,
        "shared_owners": sorted(owner for owner, n in seated.items() if n > 1),
    }
