"""How sure each rating is, read for the pages and the API (ladder/RATINGS.md): which
versions are provisional and why, a version's standing (μ ± 2σ, both ratings), and two
bots compared (the chance one is stronger, the matches to 95 %). The figures themselves
are `ranking.certainty`'s; this module reads what they need.

Opponents met are counted only for versions with fewer than PROVISIONAL_OPPONENTS rated
games: each rated match meets at least one opponent, so a version with that many games
has met enough, and the count reads fewer than PROVISIONAL_OPPONENTS seats a version
however long the ladder's history.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import engine
from ladder.errors import NotFound, ServiceError
from ladder.models import (
    Bot,
    BotVersion,
    Match,
    MatchSeat,
    Rating,
    ResolvedRating,
    User,
    VersionState,
    active_version,
    utcnow,
)
from ladder.ranking import certainty
from ladder.settings import RATINGS_SHOWN

# The "compare with" list on a bot page: the bots nearest it on the board, this many.
COMPARE_CHOICES = 40
NOT_RESOLVED = "not in the last re-solve"
# The thresholds the pages explain "provisional" with.
LIMITS = {"sigma": certainty.PROVISIONAL_SIGMA, "opponents": certainty.PROVISIONAL_OPPONENTS}


def check_rating(value: str | None, default: str) -> str:
    """The rating a board is ordered by: `value` if given (400 for an unknown one), else
    `default` (RATING_SHOWN)."""
    if value is None:
        return default
    if value not in RATINGS_SHOWN:
        raise ServiceError(
            f"rating is one of {', '.join(RATINGS_SHOWN)}, not {value!r}", field="rating"
        )
    return value


def rated_seats():
    """The WHERE clause of a rated seat: one the online rating moved (`services.matches`)."""
    return MatchSeat.mu_after.is_not(None)


def young_opponents(session: Session, game: str) -> dict[int, int]:
    """Opponents met by each active version of `game` with fewer than
    PROVISIONAL_OPPONENTS rated games (a match at a table of n meets n − 1)."""
    young = (
        select(Rating.version_id)
        .join(BotVersion, Rating.version_id == BotVersion.id)
        .where(
            Rating.game == game,
            Rating.games < certainty.PROVISIONAL_OPPONENTS,
            BotVersion.state == VersionState.ACTIVE,
        )
    )
    found = dict.fromkeys(session.scalars(young), 0)
    if not found:
        return found
    rows = session.execute(
        select(MatchSeat.version_id, func.sum(Match.players - 1))
        .join(Match, Match.id == MatchSeat.match_id)
        .where(MatchSeat.version_id.in_(list(found)), rated_seats())
        .group_by(MatchSeat.version_id)
    )
    for version_id, met in rows:
        if version_id is not None:  # always: the seats asked for are versions'
            found[version_id] = int(met or 0)
    return found


def provisional_reason(
    sigma: float | None, games: int, opponents: int | None, resolved: bool = False
) -> str | None:
    """Why a rating is provisional, in words, or None if it is settled. `opponents` is
    None when not counted (`games` already past the threshold); `sigma` None on the
    re-solved board means the last re-solve did not see the version."""
    if sigma is None:
        return NOT_RESOLVED if resolved else "no rating yet"
    if sigma > certainty.PROVISIONAL_SIGMA:
        return f"σ {sigma:.2f} is above {certainty.PROVISIONAL_SIGMA}"
    met = games if opponents is None else opponents  # games ≥ threshold: met enough
    if met < certainty.PROVISIONAL_OPPONENTS:
        return f"met {met} of {certainty.PROVISIONAL_OPPONENTS} opponents"
    return None


def table_sizes(session: Session, version_id: int) -> dict[int, int]:
    """A version's rated matches by table size."""
    rows = session.execute(
        select(Match.players, func.count())
        .join(MatchSeat, MatchSeat.match_id == Match.id)
        .where(MatchSeat.version_id == version_id, rated_seats())
        .group_by(Match.players)
    )
    return {int(size): int(n) for size, n in rows}


def _figures(mu: float, sigma: float) -> dict:
    return {
        "mu": round(mu, 3),
        "sigma": round(sigma, 3),
        "skill": round(mu - 3 * sigma, 3),
        "low": round(mu - 2 * sigma, 3),
        "high": round(mu + 2 * sigma, 3),
    }


def _first_rated(session: Session, version_id: int) -> tuple[float | None, datetime | None]:
    """σ before the version's first rated match, and when that match finished."""
    row = session.execute(
        select(MatchSeat.sigma_before, Match.finished_at)
        .join(Match, Match.id == MatchSeat.match_id)
        .where(MatchSeat.version_id == version_id, rated_seats())
        .order_by(MatchSeat.match_id)
        .limit(1)
    ).first()
    return (None, None) if row is None else (row[0], row[1])


def standing(session: Session, version: BotVersion) -> dict | None:
    """An active version's online rating with μ ± 2σ, whether it is provisional and why,
    its re-solved rating (None if the last re-solve did not see it), and what the
    comparison needs: information per match and matches a day. None without a rating."""
    rating = version.rating
    if rating is None:
        return None
    young = rating.games < certainty.PROVISIONAL_OPPONENTS
    sizes = table_sizes(session, version.id) if young else {}
    opponents = certainty.opponents_met(sizes) if young else None
    reason = provisional_reason(rating.sigma, rating.games, opponents)
    resolved = session.get(ResolvedRating, version.id)
    sigma_start, first_at = _first_rated(session, version.id)
    info = None
    if sigma_start is not None:
        info = certainty.information_per_match(sigma_start, rating.sigma, rating.games)
    if info is None:  # no history that tells: an even match at its usual table
        info = certainty.even_match_information(_usual_table(session, version, sizes))
    since = first_at or version.validated_at or version.created_at
    days = max((utcnow() - since).total_seconds() / 86_400, 1.0)
    return {
        "version_id": version.id,
        "version": version.number,
        "online": {**_figures(rating.mu, rating.sigma), "games": rating.games},
        "resolved": None
        if resolved is None
        else {**_figures(resolved.mu, resolved.sigma), "matches": resolved.matches},
        "provisional": reason is not None,
        "provisional_reason": reason,
        "opponents_met": opponents,
        "information_per_match": round(info, 5),
        "matches_per_day": round(max(rating.games, 1) / days, 3),
    }


def _usual_table(session: Session, version: BotVersion, sizes: dict[int, int]) -> int:
    """The table size the version plays most (the game's smallest if it has not played)."""
    if not sizes:
        sizes = Counter(table_sizes(session, version.id))
    if sizes:
        return max(sizes, key=lambda size: (sizes[size], -size))
    return max(2, engine.get_game(version.bot.game).min_players)


def rated_active(bot: Bot) -> BotVersion:
    """The bot's active version with a rating, or a clear refusal."""
    version = active_version(bot)
    if version is None or version.rating is None:
        raise ServiceError(f"bot {bot.id} ({bot.name}) has no rated active version")
    return version


def compare(session: Session, bot: Bot, other_id: int) -> dict:
    """`bot` against another bot of its board: each one's standing, the chance `bot` is
    the stronger (on each rating), and how many more matches of `bot`, at both bots'
    current rates, would make the one ahead in μ stronger with probability 95 %
    (`certainty.matches_to_confidence`; None: not within its limit, or never)."""
    other = session.get(Bot, other_id)
    if other is None:
        raise NotFound(f"no bot {other_id}")
    if other.id == bot.id:
        raise ServiceError("compare a bot with another bot, not with itself", field="compare")
    if other.game != bot.game:
        raise ServiceError(
            f"bot {other.id} plays {other.game}, not {bot.game}: compare bots of one board",
            field="compare",
        )
    mine, theirs = standing(session, rated_active(bot)), standing(session, rated_active(other))
    assert mine is not None and theirs is not None  # both rated (checked above)
    a = (mine["online"]["mu"], mine["online"]["sigma"])
    b = (theirs["online"]["mu"], theirs["online"]["sigma"])
    resolved = None
    if mine["resolved"] and theirs["resolved"]:
        resolved = round(
            certainty.prob_stronger(
                (mine["resolved"]["mu"], mine["resolved"]["sigma"]),
                (theirs["resolved"]["mu"], theirs["resolved"]["sigma"]),
            ),
            4,
        )
    return {
        "bot": {"id": bot.id, "name": bot.name, "owner": bot.owner.username, **mine},
        "other": {"id": other.id, "name": other.name, "owner": other.owner.username, **theirs},
        "prob_stronger": round(certainty.prob_stronger(a, b), 4),
        "prob_stronger_resolved": resolved,
        "matches_to_95": certainty.matches_to_confidence(
            a,
            b,
            mine["information_per_match"],
            theirs["information_per_match"],
            mine["matches_per_day"],
            theirs["matches_per_day"],
        ),
    }


def compare_choices(session: Session, bot: Bot, count: int = COMPARE_CHOICES) -> list[dict]:
    """Bots of `bot`'s board nearest it by online skill (about `count`, half above and
    half below), best first: the bot page's "compare with" list."""
    version = active_version(bot)
    if version is None or version.rating is None:
        return []
    skill = version.rating.skill
    base = (
        select(Bot.id, Bot.name, User.username, Rating.skill)
        .join(BotVersion, Rating.version_id == BotVersion.id)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .join(User, Bot.owner_id == User.id)
        .where(
            Rating.game == bot.game,
            BotVersion.state == VersionState.ACTIVE,
            Bot.id != bot.id,
        )
    )
    above = session.execute(
        base.where(Rating.skill >= skill)
        .order_by(Rating.skill, Rating.version_id)
        .limit(count // 2)
    ).all()
    below = session.execute(
        base.where(Rating.skill < skill)
        .order_by(Rating.skill.desc(), Rating.version_id)
        .limit(count - len(above))
    ).all()
    rows = sorted([*above, *below], key=lambda r: (-r[3], r[0]))
    return [{"bot_id": i, "bot": name, "owner": owner} for i, name, owner, _skill in rows]
