"""What a worker does: validate a version, play a match, keep the ladder busy.

Plain functions of (session, config, id); the Celery tasks in `ladder.jobs.tasks`
only call them. A bot's misbehaviour is a result (a status and a log), never
an exception. What raises here either is infrastructure (database, Redis,
sandbox, disk: the work goes back where it was and the task retries) or is a
bug (the work fails at once with the reason: another try would fail again).
Each start counts as an attempt, and work that used MAX_ATTEMPTS fails
instead of going back, so nothing is handed out forever.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import random
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime, timedelta

from celery.exceptions import SoftTimeLimitExceeded
from sqlalchemy import select
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

import engine
from ladder import artifacts
from ladder.jobs import broker, dispatch
from ladder.models import (
    IN_FLIGHT,
    Bot,
    BotVersion,
    Match,
    MatchSeat,
    MatchState,
    Rating,
    TournamentMatch,
    User,
    VersionState,
    utcnow,
)
from ladder.ranking.matchmaking import Candidate, make_table
from ladder.services import bots as bot_service
from ladder.services import matches as match_service
from ladder.services import throttle
from ladder.services.errors import Conflict
from workers import BotCache, Limits, SandboxUnavailable, house_file, info, run_job

log = logging.getLogger(__name__)

# Failures of what runs the work, not of the work itself: worth another attempt.
INFRASTRUCTURE = (OperationalError, broker.RedisError, SandboxUnavailable, OSError)
REASON_CHARS = 300
TOO_LONG = "the match took too long"
WORKER_LOST = "its worker stopped before the end (lease lapsed)"


def limits(config: Mapping) -> Limits:
    return Limits.from_dict(config.get("BOT_LIMITS") or {})


def max_attempts(config: Mapping) -> int:
    return max(1, int(config.get("MAX_ATTEMPTS", 3)))


def describe(exc: BaseException) -> str:
    """An exception as one short line for a log a person reads."""
    if isinstance(exc, SoftTimeLimitExceeded):
        return TOO_LONG
    text = " ".join(str(exc).split())
    line = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return line if len(line) <= REASON_CHARS else line[: REASON_CHARS - 1] + "…"


# -- validation ---------------------------------------------------------------------
def seat_info(version: BotVersion) -> dict:
    """Who a stored version is, as every seat's `setup(info)["seats"]` shows it."""
    bot = version.bot
    return info.seat(bot.name, bot.owner.username, version.number)


def house_seat(session: Session, config: Mapping, game: str, name: str) -> dict:
    """House bot `name` as a ladder match seats it: the house account's, with the number
    of its active version (the first, when the house bots are not seeded here)."""
    owner = config.get("HOUSE_USER") or info.HOUSE_OWNER
    number = session.scalar(
        select(BotVersion.number)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .join(User, Bot.owner_id == User.id)
        .where(
            User.username == owner,
            Bot.game == game,
            Bot.name == name,
            BotVersion.state == VersionState.ACTIVE,
        )
        .order_by(BotVersion.number.desc())
        .limit(1)
    )
    return info.house_seat(name, owner, number or info.HOUSE_VERSION)


def validation_plan(game_name: str) -> list[tuple[int, int]]:
    """(players, the new bot's seat) of each validation match.

    The smallest table with the bot in its last seat, then the largest with the
    bot in a middle seat: a bot that breaks only with five players, or only
    away from seat 0, is caught before it reaches the ladder.
    """
    game = engine.get_game(game_name)
    plan = [(game.min_players, game.min_players - 1)]
    if game.max_players != game.min_players:
        plan.append((game.max_players, max(1, (game.max_players - 1) // 2)))
    return plan


def validation_jobs(version: BotVersion, house: dict | None = None) -> list[tuple[int, dict]]:
    """(the new bot's seat, job) for each validation match, against house `random` bots
    seated as `house` (`house_seat`; by default the seeded house bot): a bot is told
    who sits where exactly as in a ladder match."""
    game = version.bot.game
    house = {**(house or info.house_seat("random")), "path": str(house_file(game, "random"))}
    jobs = []
    for n, (players, mine) in enumerate(validation_plan(game)):
        seats = []
        for i in range(players):
            if i == mine:
                seats.append(
                    {
                        "seat": i,
                        "label": version.label,
                        "kind": version.kind,
                        "sha256": version.sha256,
                        "key": version.file_key,
                        **seat_info(version),
                    }
                )
            else:
                seats.append({"seat": i, "label": f"{game}/random", **house})
        job = {"game": game, "seed": version.id * 10 + n, "options": {}, "seats": seats}
        jobs.append((mine, job))
    return jobs


@contextlib.contextmanager
def local_files(session: Session, config: Mapping, job: dict) -> Iterator[dict]:
    """The job with each stored bot (a seat with a `key`) given a `path` on this host:
    its file in this host's bot cache, fetched from the artifact store on a miss and
    held (never evicted) until the block ends.

    A bot that plays thousands of matches is thus fetched once per worker host; a
    missing artifact raises ArtifactMissing, bytes that do not hash right a ValueError.
    """
    cache = BotCache(config["BOT_CACHE_DIR"], int(config["BOT_CACHE_BYTES"]))
    store = artifacts.store(config, session)
    with contextlib.ExitStack() as held:
        seats = []
        for seat in job["seats"]:
            if "key" in seat:
                fetch = functools.partial(store.get, seat["key"])
                path = held.enter_context(cache.hold(seat["sha256"], seat["kind"], fetch))
                seat = {**seat, "path": str(path)}
            seats.append(seat)
        yield {**job, "seats": seats}


def validation_log(results: list[tuple[int, dict]], planned: int) -> tuple[bool, str]:
    """Did the bot play every validation match cleanly, and the log its owner reads.

    `results` holds (the bot's seat, outcome) of the matches played, in order; the
    matches after the first failure are not played (`planned` counts them all).
    """
    lines = []
    for n, (seat, outcome) in enumerate(results, start=1):
        status = outcome["statuses"][seat]
        lines += [
            f"Validation match {n} of {planned}: {outcome['game']}, {outcome['players']} players,"
            f" seed {outcome['seed']}, your bot in seat {seat} against house random bots.",
            f"Your bot: {status}, rank {outcome['ranks'][seat]}, score {outcome['scores'][seat]}.",
        ]
        if outcome["errors"][seat]:
            lines.append(f"Fault: {outcome['errors'][seat]}")
        stderr = (outcome["stderr"][seat] or "").strip()
        lines.append("Its stderr (tail):" if stderr else "It wrote nothing to stderr.")
        if stderr:
            lines.append(stderr)
        lines.append("")
    ok = len(results) == planned and all(o["statuses"][seat] == "ok" for seat, o in results)
    if not ok and len(results) < planned:
        lines.append(f"The other {planned - len(results)} validation match(es) were not played.")
    verdict = "passed: the bot is on the ladder" if ok else "failed"
    lines.append(f"Validation {verdict}.")
    return ok, "\n".join(lines)


def not_run_log(reason: str) -> str:
    """The log of a validation the ladder could not run (its fault, as far as it knows)."""
    return (
        f"Validation failed: the validation match could not be run ({reason}).\n"
        "This is most likely a fault of the ladder, not of your bot;"
        " upload the same file again to retry."
    )


def validate_version(session: Session, config: Mapping, version_id: int) -> BotVersion | None:
    """Play the validation match and store the verdict; None if another worker has it."""
    try:
        version = bot_service.start_validation(session, version_id)
    except Conflict:
        return None  # validated already, or being validated by another worker
    try:
        planned = validation_jobs(version, house_seat(session, config, version.bot.game, "random"))
        results = []
        for seat, job in planned:
            with local_files(session, config, job) as local:
                outcome = run_job(local, limits(config), _unsafe(config))
            results.append((seat, outcome))
            if outcome["statuses"][seat] != "ok":
                break
        ok, text = validation_log(results, len(planned))
    except ValueError as exc:  # the stored file cannot be staged: the upload's fault
        return _fail_validation(session, version_id, f"Validation failed: {exc}")
    except SoftTimeLimitExceeded:
        return _fail_validation(session, version_id, f"Validation failed: {TOO_LONG}.")
    except INFRASTRUCTURE as exc:
        if release_version(session, config, version_id, describe(exc)) == VersionState.FAILED:
            return session.get(BotVersion, version_id)
        raise
    except Exception as exc:  # a bug: running it again would fail the same way
        log.exception("validation could not be run", extra={"version_id": version_id})
        return _fail_validation(session, version_id, not_run_log(describe(exc)))
    except BaseException:  # the worker is stopping: the attempt counts all the same
        release_version(session, config, version_id, "its worker was stopped")
        raise
    return bot_service.finish_validation(session, version_id, ok, text)


def _fail_validation(session: Session, version_id: int, text: str) -> BotVersion | None:
    session.rollback()
    try:
        return bot_service.finish_validation(session, version_id, False, text)
    except Conflict:
        return None  # finished meanwhile (its lease lapsed and another worker took it)


def release_version(
    session: Session, config: Mapping, version_id: int, reason: str, *, sweep: bool = False
) -> VersionState | None:
    """Put a version being validated back to pending, or fail it after MAX_ATTEMPTS.

    Decided with its row locked; the `sweep` skips a row another sweep holds.
    Returns its new state (pending or failed), None if it was not being validated.
    """
    session.rollback()
    attempts = session.scalar(
        select(BotVersion.attempts)
        .where(BotVersion.id == version_id, BotVersion.state == VersionState.VALIDATING)
        .with_for_update(skip_locked=sweep)
    )
    if attempts is None:
        session.rollback()
        return None
    if bot_service.requeue_validation(session, version_id, max_attempts(config)):
        return VersionState.PENDING
    text = not_run_log(f"{_tries(attempts)}; the last: {reason}")
    log.warning("validation failed for good", extra={"version_id": version_id, "reason": reason})
    return VersionState.FAILED if _fail_validation(session, version_id, text) else None


def _tries(attempts: int) -> str:
    return f"{attempts} attempt{'s' if attempts != 1 else ''} failed"


# -- matches ------------------------------------------------------------------------
def play_match(session: Session, config: Mapping, match_id: int) -> Match | None:
    """Play a queued match and record it; None if it is not queued (taken or done) or failed."""
    if not match_service.start_match(session, match_id):
        return None
    try:
        job = match_service.match_job(session, config, match_id)
        with local_files(session, config, job) as local:
            outcome = run_job(local, limits(config), _unsafe(config))
        return match_service.record_match(session, config, match_id, outcome)
    except SoftTimeLimitExceeded:
        return _fail_match(session, match_id, TOO_LONG)
    except INFRASTRUCTURE as exc:
        if release_match(session, config, match_id, describe(exc)) == MatchState.FAILED:
            return None
        raise
    except ValueError as exc:  # a stored file that cannot be staged, or a bad outcome
        return _fail_match(session, match_id, f"could not be played: {describe(exc)}")
    except Exception as exc:  # a bug: playing it again would fail the same way
        log.exception("match could not be played", extra={"match_id": match_id})
        return _fail_match(session, match_id, f"could not be played: {describe(exc)}")
    except BaseException:  # the worker is stopping: the attempt counts all the same
        release_match(session, config, match_id, "its worker was stopped")
        raise


def _fail_match(session: Session, match_id: int, reason: str) -> None:
    session.rollback()
    match_service.fail_match(session, match_id, reason)


def release_match(
    session: Session,
    config: Mapping,
    match_id: int,
    reason: str,
    *,
    lapsed_before: datetime | None = None,
) -> MatchState | None:
    """Put a running match back in the queue, or fail it (unrated) after MAX_ATTEMPTS.

    Decided with the match's row locked. The lapsed-lease sweep passes `lapsed_before`:
    then only a match running since before it is released (not one handed out again
    meanwhile), and one another sweep holds is skipped (FOR UPDATE SKIP LOCKED).
    Returns its new state (queued or failed), None if it was not running.
    """
    session.rollback()
    query = select(Match.attempts).where(Match.id == match_id, Match.state == MatchState.RUNNING)
    if lapsed_before is not None:
        query = query.where(Match.started_at < lapsed_before)
    attempts = session.scalar(query.with_for_update(skip_locked=lapsed_before is not None))
    if attempts is None:
        session.rollback()
        return None
    if match_service.requeue_match(session, match_id, max_attempts(config)):
        return MatchState.QUEUED
    log.warning("match failed for good", extra={"match_id": match_id, "reason": reason})
    failed = match_service.fail_match(session, match_id, f"{_tries(attempts)}; the last: {reason}")
    return MatchState.FAILED if failed else None


def _unsafe(config: Mapping) -> bool:
    return bool(config.get("UNSAFE_NO_SANDBOX"))


# -- keeping the ladder busy -------------------------------------------------------------
def ladder_candidates(session: Session, config: Mapping, game: str) -> list[Candidate]:
    """Every active, rated version of `game` that is not paused, as matchmaking sees it."""
    house = config.get("HOUSE_USER", "demo")
    rows = session.execute(
        select(BotVersion.id, Bot.owner_id, Rating.mu, Rating.sigma, Rating.games, User.username)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .join(Rating, Rating.version_id == BotVersion.id)
        .join(User, Bot.owner_id == User.id)
        .where(
            Bot.game == game,
            BotVersion.state == VersionState.ACTIVE,
            BotVersion.paused_at.is_(None),  # crash triage: left out until resumed
            Bot.retired_at.is_(None),
        )
        .order_by(BotVersion.id)
    )
    return [
        Candidate(vid, owner, mu, sigma, games, house=(name == house))
        for vid, owner, mu, sigma, games, name in rows
    ]


def schedule_ladder(session: Session, config: Mapping, rng: random.Random) -> list[int]:
    """Top every game up to LADDER_IN_FLIGHT ranked matches queued or running.

    A game whose owners cannot fill its smallest table under the owner rule
    (`ranking.matchmaking`) gets none and waits; the staff page says so.
    """
    created = []
    target = int(config.get("LADDER_IN_FLIGHT", 4))
    for name in engine.game_names():
        game = engine.get_game(name)
        while True:
            # Each match is counted, drawn, checked and made under the game's lock
            # (create_match commits, which ends it): two schedulers at once top up to the
            # target, not past it, never seat a bot the other just seated, and store only
            # tables whose owners the database shows apart.
            throttle.lock(session, f"schedule:{name}")
            in_flight = session.scalars(
                select(Match.id).where(Match.game == name, Match.ranked, Match.state.in_(IN_FLIGHT))
            ).all()
            busy = set(
                session.scalars(
                    select(MatchSeat.version_id).where(MatchSeat.match_id.in_(in_flight))
                )
            )
            candidates = ladder_candidates(session, config, name)
            table = len(in_flight) < target and make_table(
                candidates, game.min_players, game.max_players, rng, busy
            )
            if not table or not _owners_apart(session, config, table):
                session.rollback()  # ends the lock
                break
            match = match_service.create_match(session, config, name, table, ranked=True)
            created.append(match.id)
    return created


def _owners_apart(session: Session, config: Mapping, table: list[int]) -> bool:
    """Whether the rows seat each owner once (house bots apart), read under the game's
    lock just before the match is stored: the rule rests on the database, not only on
    the list the table was drawn from."""
    house = config.get("HOUSE_USER", "demo")
    owners = session.execute(
        select(Bot.owner_id, User.username)
        .join(BotVersion, BotVersion.bot_id == Bot.id)
        .join(User, Bot.owner_id == User.id)
        .where(BotVersion.id.in_(table))
    ).all()
    seated = [owner for owner, username in owners if username != house]
    if len(owners) == len(table) and len(seated) == len(set(seated)):
        return True
    log.error("a ladder table broke the owner rule; not stored", extra={"versions": table})
    return False


def requeue_stale(
    session: Session, config: Mapping, leased: Callable[[str, int], bool]
) -> dict[str, list[int]]:
    """Hand out again work whose worker died (no lease) or whose message was lost.

    `leased(kind, id)` tells whether a live worker holds that work. A running
    match or validating version without a lease goes back to the queue, or
    fails if that was its last attempt; work queued for longer than
    REQUEUE_AFTER_S is announced again. Playing and recording are idempotent,
    so a spare announcement costs only a no-op.
    """
    now = utcnow()
    grace = now - timedelta(seconds=int(config.get("LEASE_S", 30)))
    old = now - timedelta(seconds=int(config.get("REQUEUE_AFTER_S", 600)))
    again: dict[str, list[int]] = {"match": [], "validate": []}
    for match_id in session.scalars(
        select(Match.id)
        .where(Match.state == MatchState.RUNNING, Match.started_at < grace)
        .order_by(Match.id)
    ).all():
        released = not leased("match", match_id) and release_match(
            session, config, match_id, WORKER_LOST, lapsed_before=grace
        )
        if released == MatchState.QUEUED:
            again["match"].append(match_id)
    again["match"] += session.scalars(
        select(Match.id).where(Match.state == MatchState.QUEUED, Match.created_at < old)
    ).all()
    for version_id in session.scalars(
        select(BotVersion.id)
        .where(BotVersion.state == VersionState.VALIDATING, BotVersion.created_at < grace)
        .order_by(BotVersion.id)
    ).all():
        released = not leased("validate", version_id) and release_version(
            session, config, version_id, WORKER_LOST, sweep=True
        )
        if released == VersionState.PENDING:
            again["validate"].append(version_id)
    again["validate"] += session.scalars(
        select(BotVersion.id).where(
            BotVersion.state == VersionState.PENDING, BotVersion.created_at < old
        )
    ).all()
    # A tournament match goes back to the tournament queue, a challenge to the
    # challenge queue, not the ladder's.
    tournament = set(
        session.scalars(
            select(TournamentMatch.match_id).where(TournamentMatch.match_id.in_(again["match"]))
        )
    )
    challenge = set(
        session.scalars(
            select(Match.id).where(Match.id.in_(again["match"]), Match.requested_by_id.isnot(None))
        )
    )
    for kind, ids in again.items():
        for ident in sorted(set(ids)):
            log.info("requeue", extra={"kind": kind, "id": ident})
            if kind == "match" and ident in tournament:
                kind_of = "tournament"
            elif kind == "match" and ident in challenge:
                kind_of = "challenge"
            else:
                kind_of = kind  # (a version id may equal a match id: only matches move)
            dispatch.notify(config, kind_of, ident)
    return again
