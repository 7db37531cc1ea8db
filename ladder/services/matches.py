"""Matches: creating them, handing them to a worker, recording the outcome.

`record_match` takes the `workers.Outcome` of the match (or its dict form)
and is idempotent: the first call claims the match with a compare-and-set
on its state, so a second call (or a second worker) changes nothing.

Commands here flush and lock but do not commit: the caller's unit of work does
(`ladder.transactions`), and what they announce is sent on its commit.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import cast

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, joinedload, selectinload

import engine
from ladder import artifacts
from ladder.broker import announce
from ladder.errors import (
    Conflict,
    Forbidden,
    Gone,
    NotFound,
    RateLimited,
    ServiceError,
    Superseded,
)
from ladder.models import (
    IN_FLIGHT,
    BotVersion,
    Match,
    MatchSeat,
    MatchState,
    Rating,
    RatingHistory,
    TournamentMatch,
    User,
    VersionState,
    rows_changed,
    utcnow,
)
from ladder.ranking import ratings
from ladder.services import bot_changes, head_to_head, storage, table_mix, throttle, triage
from ladder.services.bots import check_game, get_version, valid_id
from ladder.settings import Settings
from workers import BadOutcome, Job, JobSeat, Outcome

MAX_SEED = 2**31 - 1
REASON_CHARS = 2000
VOID = "the outcome was void"
REPLACED = "a seat's bot version was replaced or retired before the match was recorded"
CHALLENGE_WINDOW = timedelta(hours=1)
IN_FLIGHT_RETRY_S = 60  # past CHALLENGES_IN_FLIGHT: about how long a challenge takes


def get_match(session: Session, match_id: int) -> Match:
    match = session.get(Match, match_id) if valid_id(match_id) else None
    if match is None:
        raise NotFound(f"no match {match_id}")
    return match


def create_match(
    session: Session,
    settings: Settings,
    game: str,
    version_ids: Sequence[int | None],
    *,
    ranked: bool,
    seed: int | None = None,
    options: dict | None = None,
    requested_by: User | None = None,
    kind: str = "match",
    active_only: bool = True,
    people: Mapping[int, int] | None = None,
) -> Match:
    """Add a queued match between versions, one seat each, in the given order (flushed,
    for the caller to commit), announced to the workers when its transaction commits.

    Every match is made here: the ladder's, challenges and tournament matches.
    `kind` names the work announced (`broker.announce`): "match" for the ladder's,
    "challenge" for a user's challenge, "tournament" for a tournament's, each on a
    queue of its own, stored on the match. A tournament froze its entrants' versions
    at entry, so it passes `active_only=False`: a version replaced since still plays.
    A live table's match ("table", `services.tables.finish`) seats people too: `people`
    maps each of their seats to the user, and their entries of `version_ids` are None;
    it is recorded at once, so it is not announced.
    """
    spec = engine.get_game(check_game(game))
    people = dict(people or {})
    if sorted(people) != [i for i, vid in enumerate(version_ids) if vid is None]:
        raise ServiceError("every seat is a bot version or a person, never both or neither")
    bots = [vid for vid in version_ids if vid is not None]
    if len(set(bots)) != len(bots):
        raise ServiceError("a bot version can take only one seat in a match")
    if not spec.min_players <= len(version_ids) <= spec.max_players:
        raise ServiceError(
            f"{game} takes {spec.min_players} to {spec.max_players} players, not {len(version_ids)}"
        )
    if seed is None:
        seed = secrets.randbelow(MAX_SEED)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ServiceError(f"a seed is an integer from 0 to {MAX_SEED}")
    try:
        spec.new_game(len(version_ids), seed=seed, options=options)
    except ValueError as exc:
        raise ServiceError(str(exc)) from None
    for vid in bots:
        if not valid_id(vid):
            raise NotFound(f"no bot version {vid}")
    versions = {
        v.id: v
        for v in session.scalars(
            select(BotVersion)
            .where(BotVersion.id.in_(bots))
            .options(joinedload(BotVersion.bot))  # each seat's game, in the same query
        )
    }
    for vid in bots:
        version = versions.get(vid)
        if version is None:
            raise NotFound(f"no bot version {vid}")
        if version.bot.game != game:
            raise ServiceError(f"{version.label} plays {version.bot.game}, not {game}")
        if active_only and version.state != VersionState.ACTIVE:
            raise ServiceError(f"{version.label} is {version.state}, not active")
    match = Match(
        game=game,
        seed=seed,
        players=len(version_ids),
        options=dict(options or {}),
        ranked=ranked,
        state=MatchState.QUEUED,
        requested_by_id=requested_by.id if requested_by else None,
        queue=announce.MATCH_QUEUES[kind],
        seats=[
            MatchSeat(seat=i, version_id=vid, user_id=people.get(i))
            for i, vid in enumerate(version_ids)
        ],
    )
    session.add(match)
    session.flush()
    bot_changes.bots_changed(session, (v.bot_id for v in versions.values()))
    if kind != "table":
        announce.announce(session, kind, match.id)
    return match


def create_challenge(
    session: Session,
    settings: Settings,
    user: User,
    version_id: int,
    opponent_ids: list[int],
    seed: int | None = None,
) -> Match:
    """An unrated match between the user's own active version and chosen opponents.

    Limited per user (RateLimited, with a Retry-After): CHALLENGES_PER_HOUR started
    in a rolling hour, CHALLENGES_IN_FLIGHT queued or running at once. Workers play
    challenges from a queue of their own, so they never hold up the ladder.
    """
    version = get_version(session, version_id)
    if version.bot.owner_id != user.id:
        raise Forbidden("you can only challenge with your own bot")
    if not opponent_ids:
        raise ServiceError("choose at least one opponent")
    _check_challenge_limits(session, settings, user, utcnow())
    # A refused match raises: the caller's unit rolls back, which ends the limits' lock.
    return create_match(
        session,
        settings,
        version.bot.game,
        [version_id, *opponent_ids],
        ranked=False,
        seed=seed,
        requested_by=user,
        kind="challenge",
    )


def _check_challenge_limits(session: Session, settings: Settings, user: User, now) -> None:
    """Refuse a challenge past the user's limits; else hold their lock until it is stored.

    The count and the new match are one step (`throttle.lock`, held to the end of the
    caller's unit): simultaneous challenges see each other. A refused challenge is not
    counted (the count is of matches), so this needs no transaction of its own.
    """
    per_hour = settings.challenges_per_hour
    at_once = settings.challenges_in_flight
    throttle.lock(session, f"challenge:{user.id}")
    mine = Match.requested_by_id == user.id
    started, oldest = session.execute(
        select(func.count(Match.id), func.min(Match.created_at)).where(
            mine, Match.created_at >= now - CHALLENGE_WINDOW
        )
    ).one()
    if started >= per_hour:
        wait = throttle.seconds_until(oldest + CHALLENGE_WINDOW, now)
        raise RateLimited(
            f"at most {per_hour} challenges an hour; try again in {throttle.in_words(wait)}",
            retry_after=wait,
        )
    waiting = (
        session.scalar(select(func.count(Match.id)).where(mine, Match.state.in_(IN_FLIGHT))) or 0
    )
    if waiting >= at_once:
        raise RateLimited(
            f"you have {waiting} challenges queued or running, the most at once;"
            " start another when one has been played",
            retry_after=IN_FLIGHT_RETRY_S,
        )


def replay_bytes(session: Session, settings: Settings, match: Match) -> bytes:
    """A match's stored replay, gzipped JSON as kept; NotFound without one, Gone (410)
    once the retention policy dropped it."""
    expired = storage.replay_expired(match, settings.replay_keep_days)
    if expired:
        raise Gone(expired)
    if match.replay_key is None:
        raise NotFound(f"match {match.id} has no replay yet")
    try:
        return artifacts.store(settings, session).get(match.replay_key)
    except artifacts.ArtifactMissing:
        raise NotFound(f"the replay of match {match.id} is missing from the store") from None


def job_seat(seat: int, version: BotVersion) -> JobSeat:
    """A bot version as a job's seat `seat`, named by its stored file's key and hash."""
    return JobSeat(
        seat=seat,
        label=version.seat_label,
        name=version.bot.name,
        owner=version.bot.owner.username,
        version=version.number,
        key=version.file_key,
        sha256=version.sha256,
        kind=version.kind,
        version_id=version.id,
    )


def match_job(session: Session, settings: Settings, match_id: int) -> Job:
    """What a worker needs to play a match: game, seed, options and each seat's code,
    named by artifact key and content hash (the worker fetches it through its cache)."""
    match = get_match(session, match_id)
    seats = []
    for seat in match.seats:
        version = seat.version
        if version is None:  # a person's seat: only a live table has one, never a job
            raise Conflict(f"match {match.id} seats a person: it is not a worker's job")
        seats.append(job_seat(seat.seat, version))
    return Job(
        game=match.game,
        seed=match.seed,
        seats=tuple(seats),
        options=dict(match.options or {}),
        match_id=match.id,
        ranked=match.ranked,
    )


def start_match(session: Session, match_id: int) -> int:
    """Mark a queued match as running and count the attempt; the attempt's number, or 0
    if another worker has it.

    The row is locked first, skipping it if another worker holds it (PostgreSQL's
    FOR UPDATE SKIP LOCKED; SQLite's writers take turns anyway): the second of two
    workers handed one match moves on at once instead of waiting for the first's commit.
    The caller commits the claim (`playing.play_match`, before the match is played),
    and carries the attempt's number to what it records: a result of an attempt that
    is over is refused (`record_match`).
    """
    queued = session.scalar(
        select(Match.id)
        .where(Match.id == match_id, Match.state == MatchState.QUEUED)
        .with_for_update(skip_locked=True)
    )
    if queued is None:
        return 0
    attempt = session.scalar(
        update(Match)
        .where(Match.id == match_id, Match.state == MatchState.QUEUED)
        .values(state=MatchState.RUNNING, started_at=utcnow(), attempts=Match.attempts + 1)
        .returning(Match.attempts)
    )
    # No revision moves here (`bot_changes`): a start is the hot path of every match, and
    # a bot page showing a match queued rather than running until it is recorded (a
    # few seconds later) is the one lag that buys back, measured in bench/per_match.py.
    return attempt or 0


def requeue_match(session: Session, match_id: int, max_attempts: int) -> bool:
    """Put a running match back in the queue, unless it used `max_attempts` starts.

    False if it is not running, or has no start left (fail it then).
    """
    done = rows_changed(
        session.execute(
            update(Match)
            .where(
                Match.id == match_id,
                Match.state == MatchState.RUNNING,
                Match.attempts < max_attempts,
            )
            .values(state=MatchState.QUEUED, started_at=None)
        )
    )
    if done:
        bot_changes.matches_changed(session, [match_id])
    return bool(done)


def fail_match(session: Session, match_id: int, reason: str, attempt: int | None = None) -> bool:
    """Give up on a match that could not be played (not a bot's fault): unrated, and
    no longer in flight, so the scheduler seats its bots again. With `attempt`, only
    while that attempt is the match's running one (`start_match`)."""
    failed = rows_changed(
        session.execute(
            update(Match)
            .where(Match.id == match_id, *_current(attempt))
            .values(
                state=MatchState.FAILED, finished_at=utcnow(), unrated_reason=reason[:REASON_CHARS]
            )
        )
    )
    if failed:
        bot_changes.matches_changed(session, [match_id])
    return bool(failed)


def check_outcome(match: Match, outcome: Outcome | Mapping) -> Outcome:
    """The outcome, typed, if it fits the match; BadOutcome (a ValueError) says why not.

    An Outcome has checked itself when made; a dict (a stored or hand-made outcome)
    is checked as it is made into one.
    """
    if not isinstance(outcome, Outcome):
        outcome = Outcome.from_dict(outcome)
    if outcome.game != match.game or outcome.seed != match.seed:
        raise BadOutcome(
            f"the outcome is for {outcome.game} seed {outcome.seed},"
            f" not {match.game} seed {match.seed}"
        )
    if outcome.players != match.players:
        raise BadOutcome(f"the outcome has {outcome.players} players, the match {match.players}")
    return outcome


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _current(attempt: int | None) -> list:
    """Conditions on a match row: in flight; with `attempt`, running that very attempt."""
    if attempt is None:
        return [Match.state.in_(IN_FLIGHT)]
    return [Match.state == MatchState.RUNNING, Match.attempts == attempt]


def record_match(
    session: Session,
    settings: Settings,
    match_id: int,
    outcome: Outcome | Mapping,
    *,
    attempt: int | None = None,
) -> Match:
    """Store a finished match: seats, replay and (if ranked) new ratings.

    An outcome that is not `rated` (every seat faulted for one infrastructure-like
    reason, say) is kept, with its `unrated_reason`, but moves no rating.
    Recording a match that is already finished returns it unchanged.
    A worker passes the `attempt` it claimed (`start_match`): if the match was handed
    out again meanwhile (its lease lapsed), the result is refused with Superseded.
    """
    match = get_match(session, match_id)
    if match.state == MatchState.FINISHED:
        return match
    if match.state == MatchState.FAILED:
        raise Conflict(f"match {match_id} failed; it cannot be recorded")
    outcome = check_outcome(match, outcome)
    # Claim the match: the one transaction whose update hits the row records it.
    now = utcnow()
    claimed = rows_changed(
        session.execute(
            update(Match)
            .where(Match.id == match_id, *_current(attempt))
            .values(state=MatchState.FINISHED, finished_at=now)
            .execution_options(synchronize_session=False)
        )
    )
    if not claimed:  # recorded meanwhile by another worker: as it stored it
        session.refresh(match)
        if attempt is not None and match.state != MatchState.FINISHED:
            raise Superseded(
                f"match {match_id} was handed out again (now {match.state}, attempt"
                f" {match.attempts}): the result of attempt {attempt} is refused"
            )
        return match
    # The row as claimed, with its seats and their versions: two queries, not one a seat.
    match = session.scalars(
        select(Match)
        .where(Match.id == match_id)
        .options(selectinload(Match.seats).joinedload(MatchSeat.version))
        .execution_options(populate_existing=True)
    ).one()
    replay = outcome.replay
    # In this transaction (database store): the match is never recorded without it.
    match.replay_key = storage.save_replay(
        artifacts.store(settings, session), match.game, match.id, replay
    )
    match.engine_version = replay.get("engine_version")
    match.started_at = match.started_at or now
    for seat in match.seats:
        i = seat.seat
        seat.status = outcome.statuses[i]
        seat.rank = outcome.ranks[i]
        seat.score = _number(outcome.scores[i])
        seat.error = outcome.errors[i]
        seat.stderr = outcome.stderr[i]
    if not outcome.rated:
        match.unrated_reason = (outcome.unrated_reason or VOID)[:REASON_CHARS]
    elif match.ranked:
        match.unrated_reason = _rate(session, settings, match, now)
    head_to_head.count_match(session, match)
    triage.check(session, settings, match)
    bot_changes.bots_changed(session, (s.version.bot_id for s in match.seats if s.version))
    if match.queue == announce.TOURNAMENT_QUEUE:  # every entrant's standing may have moved
        bot_changes.tournaments_changed(
            session,
            session.scalars(
                select(TournamentMatch.tournament_id).where(TournamentMatch.match_id == match.id)
            ),
        )
    return match


def _rate(session: Session, settings: Settings, match: Match, now) -> str | None:
    """Update the seats' ratings, locking rating rows in id order; None, or why not.

    A match in which a version was replaced or retired meanwhile is kept
    (results, replay) but discarded from the ladder: nobody's rating moves.
    """
    if any(not seat.version or seat.version.state != VersionState.ACTIVE for seat in match.seats):
        return REPLACED
    ids = sorted(cast(int, seat.version_id) for seat in match.seats)
    with session.no_autoflush:  # the seats' results go in one UPDATE with their ratings
        rows = {
            r.version_id: r
            for r in session.scalars(
                select(Rating)
                .where(Rating.version_id.in_(ids))
                .order_by(Rating.version_id)
                .with_for_update()
            )
        }
    seats = list(match.seats)
    before = [
        ratings.Skill(rows[s.version_id].mu, rows[s.version_id].sigma)
        if s.version_id in rows
        else ratings.Skill()
        for s in seats
    ]
    ranks = [cast(int, s.rank) for s in seats]  # recorded just above, every seat
    after = ratings.rate(before, ranks, tau=settings.open_play_tau)
    rated = []
    for seat, old, new in zip(seats, before, after, strict=True):
        row = rows.get(cast(int, seat.version_id))  # every seat a version (checked above)
        if row is None:
            continue
        rated.append(seat)
        seat.mu_before, seat.sigma_before = old.mu, old.sigma
        seat.mu_after, seat.sigma_after = new.mu, new.sigma
        row.mu, row.sigma, row.skill = new.mu, new.sigma, new.conservative
        row.games += 1
        row.last_played_at = now
        session.add(
            RatingHistory(
                version_id=seat.version_id,
                match_id=match.id,
                mu=new.mu,
                sigma=new.sigma,
                skill=new.conservative,
                recorded_at=now,
            )
        )
    table_mix.count_rated(session, match.players, rated)  # after the rating rows' locks
    return None
