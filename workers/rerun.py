"""Run one bot again on the views one seat had in a recorded match (`ladder replay`).

The record's actions drive the game; at each decision of the chosen seat the
bot, in the same sandbox and under the same limits as on the ladder, gets
exactly the view and legal list that seat got, and its answer is compared
with the recorded one. It stops at the first divergence, fault or the end.
The bot gets exactly the `info` the seat had (`bot_infos`, or for an older
record the same shape rebuilt by `workers.info.record_infos`), its seed
included, so a bot that draws from `random` makes the same draws: a crash on
the server crashes here too. Its limits are the recorded ones unless the
caller overrides them, and then `info["limits"]` says the ones it runs under.
It is paused whenever another seat would be thinking, as in the match. If
the host stalls meanwhile, it raises `HostStalled` rather than report a fault.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import engine
from engine.core import State, find_legal
from workers import protocol
from workers.bot_process import BotFault
from workers.contract import SeatStatus
from workers.cpus import one_cpu
from workers.info import record_infos
from workers.limits import Limits
from workers.match import _ask, _ready, _Seat
from workers.pool import pool
from workers.sandbox import runtime
from workers.staging import BotSource
from workers.stall import StallWatch


@dataclass
class Step:
    """One decision of the seat: what it saw, what was recorded, what the bot said."""

    step: int  # index in the record's actions
    view: dict
    legal: list
    recorded: dict
    answer: dict | None = None
    ms: float | None = None
    fault: str | None = None  # "status: reason" when the bot faulted here

    @property
    def same(self) -> bool:
        return self.fault is None and self.answer == self.recorded


@dataclass
class Rerun:
    """The outcome: every decision compared, and why it stopped."""

    seat: int
    label: str
    steps: list[Step] = field(default_factory=list)
    stopped: str = "end"  # "end", "divergence" or the fault's SeatStatus
    stderr: str = ""
    recorded_fault: tuple[int, str, str | None] | None = None  # (step, status, reason)

    @property
    def ok(self) -> bool:
        return self.stopped == "end"


def recorded_fault(record: dict, seat: int) -> tuple[int, str, str | None] | None:
    """Where the seat faulted in the record: its first fallback move (no decision time)."""
    statuses = record.get("statuses") or []
    if seat >= len(statuses) or statuses[seat] == SeatStatus.OK:
        return None
    times = record.get("decision_ms") or []
    errors = record.get("errors") or [None] * len(statuses)
    for i, (who, _action) in enumerate(record["actions"]):
        if who == seat and i < len(times) and times[i] is None:
            return i, statuses[seat], errors[seat]
    return len(record["actions"]), statuses[seat], errors[seat]


def seat_decisions(record: dict, seat: int, from_step: int = 0) -> Iterator[tuple[int, State]]:
    """(step, state before it) for each recorded decision of `seat` at or after `from_step`,
    driving the game with the recorded actions (checked like `engine.replay`)."""
    state = engine.replay_start(record)
    for i, (who, action) in enumerate(record["actions"]):
        if who != state.current_player():
            raise ValueError(f"action {i} is recorded for seat {who}, not the seat on move")
        if who == seat and i >= from_step:
            yield i, state
        state.apply(action)


def check_record(record: dict, seat: int, from_step: int) -> None:
    """ValueError with the reason when the record cannot be re-run for `seat`."""
    for key in ("game", "players", "seed", "actions"):
        if key not in record:
            raise ValueError(f"not a replay record: no {key!r}")
    if not isinstance(seat, int) or not 0 <= seat < record["players"]:
        raise ValueError(f"--seat must be 0 to {record['players'] - 1}, not {seat}")
    if from_step < 0 or from_step > len(record["actions"]):
        raise ValueError(f"--from-step must be 0 to {len(record['actions'])}, not {from_step}")


def seat_info(record: dict, seat: int, overrides: dict | None = None) -> tuple[dict, Limits]:
    """The `info` to give the bot re-run as `seat`, and the limits it runs under: the
    recorded ones (`bot_limits`, else the defaults, with the seat's times), with
    `overrides` (limit names to values) on top."""
    infos = record_infos(record)
    info = infos[seat] if seat < len(infos) else None
    if not isinstance(info, dict) or not isinstance(info.get("limits"), dict):
        raise ValueError(f"the record's bot_infos has no info for seat {seat}")
    recorded = record.get("bot_limits")
    recorded = recorded if isinstance(recorded, dict) else {}
    limits = Limits.from_dict({**recorded, **info["limits"], **(overrides or {})})
    if limits.wire() != info["limits"]:
        info = {**info, "limits": limits.wire()}  # the bot is told what it runs under
    return info, limits


def rerun(
    record: dict,
    source: BotSource,
    seat: int,
    from_step: int = 0,
    overrides: dict | None = None,
    unsafe: bool = False,
) -> Rerun:
    """Run `source` as `seat` on the record's views; stops at the first divergence or fault.

    `overrides`: limits (by `Limits` name) to run under instead of the recorded ones.
    HostStalled (a SandboxUnavailable) if the host stalled while the bot's clock ran.
    """
    check_record(record, seat, from_step)
    info, limits = seat_info(record, seat, overrides)
    report = Rerun(seat, source.label, recorded_fault=recorded_fault(record, seat))
    decisions = seat_decisions(record, seat, from_step)
    player = _Seat(source.label)
    with StallWatch() as watch, one_cpu() as cpu, pool(runtime(unsafe)).lease(1) as (slot,):
        slot.stage(source)
        try:
            try:
                player.bot = slot.spawn(limits, cpu)
                _ready(player.bot, protocol.start_from(info), limits, watch)
                player.bot.pause()  # as in the match: paused until its first decision
            except BotFault as exc:
                report.stopped = exc.status
                report.steps.append(Step(-1, {}, [], {}, fault=f"{exc.status}: {exc.reason}"))
                return report
            except OSError as exc:
                report.stopped = SeatStatus.CRASH
                report.steps.append(Step(-1, {}, [], {}, fault=f"crash: could not start: {exc}"))
                return report
            player.bank_ms = float(limits.bank_ms)
            for i, state in decisions:
                legal = state.legal_actions()
                step = Step(i, state.view(seat), legal, record["actions"][i][1])
                report.steps.append(step)
                try:
                    step.answer, step.ms = _ask(player, step.view, legal, limits, watch)
                except BotFault as exc:
                    step.fault = f"{exc.status}: {exc.reason}"
                    report.stopped = exc.status
                    return report
                if find_legal([step.recorded], step.answer) is None:
                    report.stopped = "divergence"
                    return report
                if _other_moves_next(record, i, seat):
                    player.bot.pause()  # another seat thinks next in the match
            player.bot.resume()
            player.bot.send(protocol.end(state_result(record)))
        finally:
            player.close()
            report.stderr = player.stderr
    return report


def _other_moves_next(record: dict, step: int, seat: int) -> bool:
    actions = record["actions"]
    return step + 1 < len(actions) and actions[step + 1][0] != seat


def state_result(record: dict) -> dict:
    return record.get("result") or engine.replay(record).result()
