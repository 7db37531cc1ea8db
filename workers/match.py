"""Run one match between sandboxed bot processes and return its outcome.

Plain Python (no Flask, no Celery): the ladder's worker task (`run_job`) and
`ladder play` (`run_match`) both end here. A bot that faults is killed at once
and its seat is played out by the fallback policy; the `Outcome` records every
seat's status. A match during which the host stalled (`workers.stall`) has no
outcome: it raises `HostStalled` before any seat is charged, and is played again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence

import engine
from workers import protocol
from workers.bot_process import BotFault, BotProcess
from workers.contract import BadJob, Job, JobSeat, Outcome, SeatStatus
from workers.cpus import one_cpu
from workers.fallback import Fallback
from workers.info import bot_seed, match_infos
from workers.limits import Limits
from workers.pool import pool
from workers.sandbox import runtime
from workers.staging import BotSource, resolve
from workers.stall import StallWatch

# A person's turn at a live table (workers.table): (action, think ms) or (None, None).
HumanTurn = Callable[[int, "_Seat", dict, list[dict]], tuple[dict | None, float | None]]
OnStep = Callable[[int, int, dict, str], None]


def fault_ranks(engine_ranks: Sequence[int], statuses: Sequence[str]) -> list[int]:
    """Ranks after the fault rule: ok seats keep their order among themselves
    (ties share); every faulted seat shares the rank just below the last ok seat."""
    ok = [i for i, status in enumerate(statuses) if status == SeatStatus.OK]
    ranks = [len(ok) + 1] * len(statuses)
    for i in ok:
        ranks[i] = 1 + sum(1 for j in ok if engine_ranks[j] < engine_ranks[i])
    return ranks


class _Seat:
    """One seat's bot process and bookkeeping."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.bot: BotProcess | None = None
        self.status = SeatStatus.OK
        self.error: str | None = None
        self.bank_ms = 0.0
        self.used_ms = 0.0  # thinking time spent in the match so far
        self.stderr = ""

    def fault(self, exc: BotFault) -> None:
        """Record the first fault and kill the process at once."""
        if not self.status.faulted:
            self.status, self.error = exc.status, exc.reason
        self.close()

    def close(self) -> None:
        if self.bot is not None:
            self.bot.kill()
            self.stderr = self.bot.stderr_tail()
            self.bot = None


def run_match(
    game: str,
    bots: Sequence[str | BotSource],
    seed: int,
    options: dict | None = None,
    limits: Limits | None = None,
    unsafe: bool = False,
) -> Outcome:
    """Play one match of `game` between `bots` (paths, house names or BotSources).

    Raises ValueError for a bad game, player count, option or bot (BadBotFile for a bot
    whose file cannot be staged); SandboxUnavailable when bwrap is missing and `unsafe`
    is not set, HostStalled (one of them) when the host stalled during the match. Bot
    misbehaviour never raises.
    """
    sources = [b if isinstance(b, BotSource) else resolve(b) for b in bots]
    seating = Seating(sources, [source.label for source in sources])
    return play(game, seating, seed, options, limits or Limits(), unsafe)


class Seating:
    """What sits at a match: each seat's bot (None: a person, asked through `human`),
    each seat's label and `setup(info)` seat, and who is told of each action.

    A plain match is every seat a bot and nobody told; `workers.table` fills the rest.
    `human(i, seat, view, legal)` is (the action, the person's think time in ms), or
    (None, None) when the seat is to be played out by the fallback from now on (it has
    marked the seat faulted). `on_step(step, seat, action, by)` follows every action.
    """

    def __init__(
        self,
        sources: Sequence[BotSource | None],
        labels: Sequence[str],
        seat_infos: Sequence[dict] | None = None,
        human: HumanTurn | None = None,
        on_step: OnStep | None = None,
        claim_cpu: bool = True,
    ) -> None:
        self.sources = list(sources)
        self.labels = list(labels)
        if seat_infos is None:  # every seat a bot: each says who it is
            seat_infos = [source.seat_info() for source in sources if source is not None]
        self.seat_infos = list(seat_infos)
        self.human = human
        self.on_step = on_step
        self.claim_cpu = claim_cpu


def play(
    game: str, seating: Seating, seed: int, options: dict | None, limits: Limits, unsafe: bool
) -> Outcome:
    """Play one match with `seating`'s seats to its end and make its Outcome (as run_match)."""
    state = engine.get_game(game).new_game(len(seating.sources), seed=seed, options=options)
    rt = runtime(unsafe)
    seats = [_Seat(label) for label in seating.labels]
    infos = match_infos(
        state.game_name, state.num_players, state.options, limits, state.seed, seating.seat_infos,
    )  # fmt: skip
    bots = sum(1 for source in seating.sources if source is not None)
    cpus = one_cpu() if seating.claim_cpu else contextlib.nullcontext(None)
    # The watch first: its thread keeps this process's affinity, off the match's CPU.
    with StallWatch() as watch, cpus as cpu, pool(rt).lease(bots) as slots:
        try:
            _start(infos, seats, seating.sources, slots, limits, cpu, watch)
            timings = _play(state, seats, limits, Fallback(seed), watch, seating)
            result = state.result()
            for seat in seats:
                if seat.bot is not None:
                    try:
                        seat.bot.resume()
                        seat.bot.send(protocol.end(result))
                    except BotFault:
                        pass
            watch.check()  # a stall anywhere in the match: no outcome, nobody charged
        finally:
            for seat in seats:
                seat.close()
    return _outcome(state, seats, timings, result, infos, limits)


def run_job(job: Job, limits: Limits | None = None, unsafe: bool = False) -> Outcome:
    """Play the match a ladder job describes, every seat's code a file on this host
    (BadJob for a seat that is still only a stored bot's key); as `run_match`."""
    bots = [_source(seat) for seat in job.seats]
    return run_match(job.game, bots, job.seed, dict(job.options), limits, unsafe)


def _source(seat: JobSeat) -> BotSource:
    if seat.path is None:
        raise BadJob(f"seat {seat.seat} ({seat.label}) has no file on this host")
    return BotSource(seat.label, seat.path, seat.name, seat.owner, seat.version)


def _start(infos, seats, sources, slots, limits, cpu, watch) -> None:
    """Start the seats one at a time, each with its own init_ms to say `ready`.

    One at a time, so a bot that hangs or computes in `setup()` takes nothing
    from the others: each has the CPU to itself and a clock that starts once
    its process is forked (the fork and the sandbox are ours, never charged).
    """
    # A person's seat (no source) has no process; every other seat takes the next slot.
    started = [(i, s, seat) for i, s, seat in zip(infos, sources, seats, strict=True) if s]
    # Stage every bot first: a bad upload raises before any process starts.
    for slot, (_info, source, _seat) in zip(slots, started, strict=True):
        slot.stage(source)
    for (info, _source, seat), slot in zip(started, slots, strict=True):
        seat.bank_ms = float(limits.bank_ms)
        start = protocol.start_from(info)
        try:
            seat.bot = slot.spawn(limits, cpu)
            _ready(seat.bot, start, limits, watch)
            seat.bot.pause()
        except OSError as exc:
            seat.fault(BotFault(SeatStatus.CRASH, f"could not start: {exc}"))
        except BotFault as exc:
            if exc.status == SeatStatus.TIMEOUT:
                exc = BotFault(SeatStatus.TIMEOUT, f"not ready within init_ms={limits.init_ms}")
            seat.fault(exc)


def _ready(bot: BotProcess, start: bytes, limits: Limits, watch: StallWatch) -> None:
    """Send `start` and wait init_ms for `ready` (BotFault if it is late or wrong), unless
    the host stalled meanwhile: then HostStalled, before any fault is charged."""
    try:
        bot.send(start)
        protocol.ready(bot.read_line(limits.init_ms / 1000))
    except BotFault:
        watch.check()  # late because the host stalled? Then no fault at all.
        raise
    watch.check()


def _play(state, seats, limits, fallback, watch, seating: Seating) -> tuple[list, list]:
    """Play the game to its end; per decision, the bot's wall-clock ms and its CPU ms
    (None for a fallback move, and CPU None where no control group measures it); a
    person's decision has their think time and no CPU."""
    wall: list[float | None] = []
    cpu: list[float | None] = []
    awake: _Seat | None = None  # the one bot not paused: the last one asked
    while not state.is_over():
        i = state.current_player()
        seat = seats[i]
        legal = state.legal_actions()
        if awake is not seat and awake is not None and awake.bot is not None:
            awake.bot.pause()  # nobody else runs while a bot (or a person) thinks
        awake = seat
        chosen = elapsed = cpu_ms = None
        by = "bot"
        if seat.bot is not None:
            try:
                chosen, elapsed = _ask(seat, state.view(i), legal, limits, watch)
                cpu_ms = seat.bot.last_cpu_ms
            except BotFault as exc:
                seat.fault(exc)
        elif seating.human is not None and seating.sources[i] is None and not seat.status.faulted:
            watch.check()  # as before a bot's turn: a stall since the last one raises
            chosen, elapsed = seating.human(i, seat, state.view(i), legal)
            # A wait on a person stops no clock of a bot: a stall during it is nobody's.
            watch.forget()
            by = "human"
        if chosen is None:
            chosen, elapsed, cpu_ms, by = fallback.choose(legal), None, None, "fallback"
        state.apply(chosen)
        wall.append(None if elapsed is None else round(elapsed, 3))
        cpu.append(None if cpu_ms is None else round(cpu_ms, 3))
        if seating.on_step is not None:
            seating.on_step(len(wall) - 1, i, chosen, by)
    return wall, cpu


def _ask(
    seat: _Seat, view: dict, legal: list, limits: Limits, watch: StallWatch
) -> tuple[dict, float]:
    """One decision of a sandboxed bot, with its wall-clock time; BotFault on any fault,
    HostStalled instead (and nothing charged) if the host stalled while the bot's clock ran."""
    bot = seat.bot
    assert bot is not None  # only a seat with a live bot is asked
    left = limits.match_ms - seat.used_ms
    allowed = min(limits.move_ms + seat.bank_ms, left)
    message = protocol.act(view, legal, int(allowed))
    try:
        raw, elapsed = bot.ask(message, allowed / 1000)
    except BotFault as exc:
        watch.check()  # late, or wrong, because the host stalled? Then no fault at all.
        if exc.status == SeatStatus.TIMEOUT and allowed == left:
            exc = BotFault(
                SeatStatus.TIMEOUT, f"used its {limits.match_ms} ms of thinking for the match"
            )
        elif exc.status == SeatStatus.TIMEOUT:
            exc = BotFault(
                SeatStatus.TIMEOUT, f"no move within {allowed:.0f} ms (move time + bank)"
            )
        raise exc from None
    watch.check()  # before its time is charged: a stall must not draw on its bank
    seat.used_ms += elapsed
    # Time over the move limit is drawn from the bank; an empty bank is a timeout.
    seat.bank_ms -= max(0.0, elapsed - limits.move_ms)
    if seat.bank_ms < 0:
        raise BotFault(SeatStatus.TIMEOUT, f"time bank of {limits.bank_ms} ms used up")
    return protocol.action(raw, legal), elapsed


def _outcome(state, seats, timings, result, infos, limits) -> Outcome:
    statuses = [seat.status for seat in seats]
    ranks = fault_ranks(result["ranks"], statuses)
    errors = [seat.error for seat in seats]
    replay = state.record()
    replay.update(
        statuses=[status.value for status in statuses],
        ranks=ranks,
        errors=errors,
        decision_ms=timings[0],
        decision_cpu_ms=timings[1],
        seats=[seat.label for seat in seats],
        bot_seeds=[bot_seed(state.seed, i) for i in range(len(seats))],
        bot_infos=infos,  # each seat's setup(info), for `ladder replay` to give again
        bot_limits=limits.as_dict(),  # all of them (info has the times only), likewise
    )
    rated, unrated_reason = True, None
    if len(seats) > 1 and all(status.faulted for status in statuses):
        # Nobody played the match: no standing to rate, and when every seat fails at
        # once the likeliest cause is the host (a stalled machine), not the bots.
        rated = False
        unrated_reason = "every seat faulted: " + "; ".join(
            f"seat {i} {status} ({error})"
            for i, (status, error) in enumerate(zip(statuses, errors, strict=True))
        )
    return Outcome(
        game=state.game_name,
        seed=state.seed,
        players=state.num_players,
        options=dict(state.options),
        statuses=tuple(statuses),
        scores=tuple(result["scores"]),
        ranks=tuple(ranks),
        errors=tuple(errors),
        stderr=tuple(seat.stderr for seat in seats),
        replay=replay,
        rated=rated,
        unrated_reason=unrated_reason,
    )
