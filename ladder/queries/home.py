"""What the front page shows of the ladder's life: one read per block, each a few rows.

Every read is bounded (a LIMIT, or a count over an index range of in-flight rows) and
walks an index, so the page costs the same with 10^6 matches as with ten:

- recent matches: per game, `ix_matches_game_finished` backwards (finished_at DESC);
- matches being played: `ix_matches_state_created` (state = running);
- tournaments (running, upcoming, the last finished): `ix_tournaments_state_created`,
  then the few tournaments' entrants and matches by their own indexes;
- newest bots: the bots' primary key backwards (ids grow with creation time);
- live tables: `ix_live_tables_state_created` (waiting and playing only).

The seats of the matches shown are read as the match lists read them
(`boards.match_summaries`), so the front page names bots and people as they do.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session, selectinload

from ladder.models import (
    LIVE_VERSION_STATES,
    Bot,
    BotVersion,
    LiveTable,
    LiveTableSeat,
    LiveTableState,
    Match,
    MatchState,
    Rating,
    Tournament,
    TournamentEntrant,
    TournamentMatch,
    TournamentState,
    User,
    VersionState,
)
from ladder.queries.boards import iso, leaderboard, match_summaries
from ladder.queries.tables import seat_info
from ladder.ranking import ratings

TOP = 5  # bots per game on the front page's boards
RECENT = 8  # finished matches
PLAYING = 5  # matches being played
TOURNAMENTS = 4  # running ones, and as many upcoming
FINISHED_TOURNAMENTS = 2  # the last finished, so a quiet week still shows the last result
NEWEST = 6  # bots
TABLES = 5  # live tables
UPCOMING = (TournamentState.OPEN, TournamentState.DRAFT)
LIVE_TABLE_STATES = (LiveTableState.WAITING, LiveTableState.PLAYING)


def top_boards(
    session: Session, games: Iterable[str], count: int = TOP, rating: str = "online"
) -> dict[str, dict]:
    """Each game's leaderboard by `rating`, its first `count` bots (settled ones first)."""
    return {game: leaderboard(session, game, 1, count, rating) for game in games}


def _with_winners(summaries: list[dict]) -> list[dict]:
    """Each match with `winners` (its seats ranked first) and `others` (the rest)."""
    for match in summaries:
        match["winners"] = [s for s in match["seats"] if s["rank"] == 1]
        match["others"] = [s for s in match["seats"] if s["rank"] != 1]
    return summaries


def recent_matches(session: Session, games: Iterable[str], count: int = RECENT) -> list[dict]:
    """The `count` matches finished last, of any game, newest first, with their winners."""
    newest: list[tuple] = []
    for game in games:  # one short index walk per game, then merged
        newest += session.execute(
            select(Match.finished_at, Match.id)
            .where(
                Match.game == game,
                Match.finished_at.is_not(None),
                Match.state == MatchState.FINISHED,
            )
            .order_by(Match.finished_at.desc())
            .limit(count)
        ).all()
    newest.sort(reverse=True)
    return _with_winners(match_summaries(session, [i for _at, i in newest[:count]]))


def playing_matches(session: Session, count: int = PLAYING) -> dict:
    """Matches a worker is playing now (the newest `count`) and how many there are,
    with how many wait for a worker."""
    in_flight = dict(
        session.execute(
            select(Match.state, func.count())
            .where(Match.state.in_((MatchState.RUNNING, MatchState.QUEUED)))
            .group_by(Match.state)
        ).all()
    )
    ids = session.scalars(
        select(Match.id)
        .where(Match.state == MatchState.RUNNING)
        .order_by(Match.created_at.desc())
        .limit(count)
    ).all()
    return {
        "matches": match_summaries(session, list(ids)),
        "running": in_flight.get(MatchState.RUNNING, 0),
        "queued": in_flight.get(MatchState.QUEUED, 0),
    }


def tournaments(session: Session, count: int = TOURNAMENTS) -> dict[str, list[dict]]:
    """Running tournaments and upcoming ones (open for entries, then drafts), newest
    first, `count` of each, and the last FINISHED_TOURNAMENTS finished, with their
    entrants and matches played so far."""
    found: dict[str, list[Tournament]] = {}
    sections = (
        ("running", (TournamentState.RUNNING,), count),
        ("upcoming", UPCOMING, count),
        ("finished", (TournamentState.FINISHED,), FINISHED_TOURNAMENTS),
    )
    for section, states, most in sections:
        found[section] = list(
            session.scalars(
                select(Tournament)
                .where(Tournament.state.in_(states))
                .order_by(Tournament.state.desc(), Tournament.created_at.desc())
                .limit(most)
            )
        )
    ids = [t.id for ts in found.values() for t in ts]
    entrants = dict(
        session.execute(
            select(TournamentEntrant.tournament_id, func.count())
            .where(TournamentEntrant.tournament_id.in_(ids))
            .group_by(TournamentEntrant.tournament_id)
        ).all()
    )
    # From the tournaments' own matches to each one's row (EXISTS by primary key): a join
    # may be planned from the finished matches instead, all 10^6 of them.
    finished = exists().where(
        Match.id == TournamentMatch.match_id, Match.state == MatchState.FINISHED
    )
    played = dict(
        session.execute(
            select(TournamentMatch.tournament_id, func.count())
            .where(TournamentMatch.tournament_id.in_(ids), finished)
            .group_by(TournamentMatch.tournament_id)
        ).all()
    )
    return {
        section: [
            {
                "id": t.id,
                "name": t.name,
                "game": t.game,
                "format": t.format,
                "duplicate": t.duplicate,
                "state": str(t.state),
                "entrants": entrants.get(t.id, 0),
                "played": played.get(t.id, 0),
                "created_at": iso(t.created_at),
                "started_at": iso(t.started_at),
                "finished_at": iso(t.finished_at),
            }
            for t in ts
        ]
        for section, ts in found.items()
    }


def newest_bots(session: Session, count: int = NEWEST) -> list[dict]:
    """The bots made last that may still play (a version not failed or retired), newest
    first, with their active version's skill once they have one."""
    may_play = exists().where(
        BotVersion.bot_id == Bot.id, BotVersion.state.in_(LIVE_VERSION_STATES)
    )
    rows = session.execute(
        select(Bot.id, Bot.name, Bot.game, Bot.created_at, User.username)
        .join(User, User.id == Bot.owner_id)
        .where(Bot.retired_at.is_(None), may_play)
        .order_by(Bot.id.desc())
        .limit(count)
    ).all()
    # By the bots' versions (a few each), the active one picked here: a condition on the
    # state may be planned as a walk over every active version instead.
    rated = {
        bot_id: rating
        for bot_id, state, rating in session.execute(
            select(BotVersion.bot_id, BotVersion.state, Rating)
            .join(Rating, Rating.version_id == BotVersion.id)
            .where(BotVersion.bot_id.in_([r.id for r in rows]))
        )
        if state == VersionState.ACTIVE
    }
    out = []
    for bot_id, name, game, created_at, owner in rows:
        rating = rated.get(bot_id)
        out.append(
            {
                "bot_id": bot_id,
                "bot": name,
                "game": game,
                "owner": owner,
                "created_at": iso(created_at),
                # None until its first version passes validation.
                "skill": None if rating is None else round(rating.skill, 3),
                "games": None if rating is None else rating.games,
            }
        )
    return out


def live_tables(session: Session, count: int = TABLES) -> dict:
    """Tables with people at them that are being played or wait for a player, newest
    first, and how many of each there are."""
    counts = dict(
        session.execute(
            select(LiveTable.state, func.count())
            .where(LiveTable.state.in_(LIVE_TABLE_STATES))
            .group_by(LiveTable.state)
        ).all()
    )
    found = session.scalars(
        select(LiveTable)
        .where(LiveTable.state.in_(LIVE_TABLE_STATES))
        .options(
            selectinload(LiveTable.seats).selectinload(LiveTableSeat.user),
            selectinload(LiveTable.seats)
            .selectinload(LiveTableSeat.version)
            .selectinload(BotVersion.bot)
            .selectinload(Bot.owner),
        )
        .order_by(LiveTable.created_at.desc(), LiveTable.id.desc())
        .limit(count)
    )
    return {
        "tables": [
            {
                "id": t.id,
                "game": t.game,
                "state": t.state,
                "step": len(t.actions),
                "seats": [seat_info(s) for s in t.seats],
                "created_at": iso(t.created_at),
            }
            for t in found
        ],
        "waiting": counts.get(LiveTableState.WAITING, 0),
        "playing": counts.get(LiveTableState.PLAYING, 0),
    }


def skill_facts() -> dict:
    """The numbers behind 'skill' (μ − 3σ) for the front page's explanation."""
    return {
        "mu": ratings.MU,
        "sigma": round(ratings.SIGMA, 2),
        "start": ratings.conservative(ratings.MU, ratings.SIGMA),
    }
