"""Validating an uploaded version: the plan of short matches against house bots,
playing them (the worker's entry point `validate_version`), the log its owner
reads, and putting a validation back or failing it for good.

Plain functions of (session, settings, id); the Celery task only calls them.
`validate_version` and `release_version` own their transactions
(`ladder.transactions`): their caller has no unit open.
"""

from __future__ import annotations

import logging

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from ladder.errors import Conflict, Superseded
from ladder.models import Bot, BotVersion, User, VersionState
from ladder.services import bot_files
from ladder.services import bots as bot_service
from ladder.services.infrastructure import (
    INFRASTRUCTURE,
    NEVER,
    TOO_LONG,
    describe,
    max_attempts,
    tries,
)
from ladder.settings import Settings
from ladder.transactions import unit_of_work
from workers import BadBotFile, Job, JobSeat, Outcome, house_file, info

log = logging.getLogger(__name__)


# -- validation ---------------------------------------------------------------------
def seat_info(version: BotVersion) -> dict:
    """Who a stored version is, as every seat's `setup(info)["seats"]` shows it."""
    bot = version.bot
    return info.seat(bot.name, bot.owner.username, version.number)


def house_seat(session: Session, settings: Settings, game: str, name: str) -> dict:
    """House bot `name` as a ladder match seats it: the house account's, with the number
    of its active version (the first, when the house bots are not seeded here)."""
    owner = settings.house_user
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


def validation_jobs(version: BotVersion, house: dict | None = None) -> list[tuple[int, Job]]:
    """(the new bot's seat, job) for each validation match, against house `random` bots
    seated as `house` (`house_seat`; by default the seeded house bot): a bot is told
    who sits where exactly as in a ladder match."""
    game = version.bot.game
    house = house or info.house_seat("random")
    house_path = house_file(game, "random")
    jobs = []
    for n, (players, mine) in enumerate(validation_plan(game)):
        seats = []
        for i in range(players):
            if i == mine:
                seats.append(
                    JobSeat(
                        seat=i,
                        label=version.label,
                        key=version.file_key,
                        sha256=version.sha256,
                        kind=version.kind,
                        version_id=version.id,
                        **seat_info(version),
                    )
                )
            else:
                seats.append(JobSeat(seat=i, label=f"{game}/random", path=house_path, **house))
        jobs.append((mine, Job(game, version.id * 10 + n, tuple(seats), {})))
    return jobs


def validation_log(results: list[tuple[int, Outcome]], planned: int) -> tuple[bool, str]:
    """Did the bot play every validation match cleanly, and the log its owner reads.

    `results` holds (the bot's seat, outcome) of the matches played, in order; the
    matches after the first failure are not played (`planned` counts them all).
    """
    lines = []
    for n, (seat, outcome) in enumerate(results, start=1):
        status = outcome.statuses[seat]
        lines += [
            f"Validation match {n} of {planned}: {outcome.game}, {outcome.players} players,"
            f" seed {outcome.seed}, your bot in seat {seat} against house random bots.",
            f"Your bot: {status}, rank {outcome.ranks[seat]}, score {outcome.scores[seat]}.",
        ]
        if outcome.errors[seat]:
            lines.append(f"Fault: {outcome.errors[seat]}")
        stderr = (outcome.stderr[seat] or "").strip()
        lines.append("Its stderr (tail):" if stderr else "It wrote nothing to stderr.")
        if stderr:
            lines.append(stderr)
        lines.append("")
    ok = len(results) == planned and all(not o.statuses[seat].faulted for seat, o in results)
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


def validate_version(
    session: Session,
    settings: Settings,
    version_id: int,
    *,
    too_long: tuple[type[BaseException], ...] = NEVER,
) -> BotVersion | None:
    """Play the validation match and store the verdict; None if another worker has it.

    `too_long`: the exceptions that mean the work ran out of time (from the task layer).

    It owns its transactions (its caller has none open): the claim is committed before
    the bot is run, the validation matches run for seconds outside any unit, and the
    verdict is stored in a unit of its own (or the attempt released).
    """
    try:
        with unit_of_work(session):
            version = bot_service.start_validation(session, version_id)
    except Conflict:
        return None  # validated already, or being validated by another worker
    attempt = version.attempts  # what this worker stores names it (`finish_validation`)
    try:
        planned = validation_jobs(
            version, house_seat(session, settings, version.bot.game, "random")
        )
        results = []
        for seat, job in planned:
            outcome = bot_files.run_here(session, settings, job)
            results.append((seat, outcome))
            if outcome.statuses[seat].faulted:
                break
        ok, text = validation_log(results, len(planned))
    except BadBotFile as exc:  # the stored file cannot be staged: the upload's fault
        return _fail_validation(session, version_id, f"Validation failed: {exc}", attempt)
    except too_long:
        return _fail_validation(session, version_id, f"Validation failed: {TOO_LONG}.", attempt)
    except INFRASTRUCTURE as exc:
        session.rollback()  # what the failed attempt left, before the release's own transaction
        freed = release_version(session, settings, version_id, describe(exc), attempt=attempt)
        if freed == VersionState.FAILED:
            return session.get(BotVersion, version_id)
        raise
    except Exception as exc:  # a bug: running it again would fail the same way
        log.exception("validation could not be run", extra={"version_id": version_id})
        return _fail_validation(session, version_id, not_run_log(describe(exc)), attempt)
    except BaseException:  # the worker is stopping: the attempt counts all the same
        session.rollback()
        release_version(session, settings, version_id, "its worker was stopped", attempt=attempt)
        raise
    try:
        with unit_of_work(session):
            return bot_service.finish_validation(session, version_id, ok, text, attempt)
    except Superseded as exc:  # handed out again meanwhile: another worker runs it now
        log.warning("verdict refused", extra={"version_id": version_id, "reason": str(exc)})
        return None


def _fail_validation(
    session: Session, version_id: int, text: str, attempt: int
) -> BotVersion | None:
    session.rollback()  # what the failed attempt left
    try:
        with unit_of_work(session):
            return bot_service.finish_validation(session, version_id, False, text, attempt)
    except Conflict:
        return None  # finished meanwhile, or handed out again (its lease lapsed)


def release_version(
    session: Session,
    settings: Settings,
    version_id: int,
    reason: str,
    *,
    sweep: bool = False,
    attempt: int | None = None,
) -> VersionState | None:
    """Put a version being validated back to pending, or fail it after MAX_ATTEMPTS.

    Decided with its row locked; the `sweep` skips a row another sweep holds; a worker
    passes its `attempt`, and only that attempt, if still running, is released.
    Returns its new state (pending or failed), None if it was not being validated.

    It owns its transaction (the row lock, then the commit that requeues or fails the
    version): the caller has none open, having committed or rolled back its own first.
    """
    query = select(BotVersion.attempts).where(
        BotVersion.id == version_id, BotVersion.state == VersionState.VALIDATING
    )
    if attempt is not None:
        query = query.where(BotVersion.attempts == attempt)
    with unit_of_work(session):
        attempts = session.scalar(query.with_for_update(skip_locked=sweep))
        if attempts is None:
            return None
        if bot_service.requeue_validation(session, version_id, max_attempts(settings)):
            return VersionState.PENDING
        text = not_run_log(f"{tries(attempts)}; the last: {reason}")
        log.warning(
            "validation failed for good", extra={"version_id": version_id, "reason": reason}
        )
        # Under the row lock, the version is still being validated: this cannot conflict.
        bot_service.finish_validation(session, version_id, False, text)
    return VersionState.FAILED
