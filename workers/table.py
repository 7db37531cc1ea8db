"""Run one live table: a match in which some seats are people, asked through a callable.

Plain Python (no Flask, no database, no Redis): the ladder's `play_table` task
calls `run_table` and gives it two callables, `ask_human` (how a person's move
reaches the runner: the ladder waits on Redis) and `on_step` (how each action
leaves it: the ladder appends it to the table's row). Everything else is a
match as `workers.match` plays it, through the very same code (`Seating`,
`play`): the same sandboxed bots with the same limits, started one at a time,
paused whenever anyone else decides, faulted and played out by the fallback in
the same way, and the same `Outcome` and replay.

What a table adds, and what it costs (TABLES.md has the figures):

- A person's clock: `human_move_ms` a move, `human_match_ms` the match, on the
  runner's monotonic clock from the moment `ask_human` is called to its return.
  `ask_human` is told `time_left_ms` (the smaller of the two) and should give up
  by then; the runner holds it to it anyway: a move returned later counts as
  out of time. Out of time or resigned, the seat is played out by the fallback
  for the rest of the match, with the fixed status `timeout` and the error
  "out of time" or "resigned" (there is no status of its own for people).
- A move a person sends must be one of the `legal` actions they were shown
  (matched exactly, as a bot's is): the caller checks moves before they reach
  the runner (the web answers 400), so anything else is a bug of the caller and
  raises ValueError, which ends the table (every bot killed), rather than being
  silently replaced by a fallback move the person never chose.
- While a person decides, every bot is paused (SIGSTOP of its whole control
  group): no bot computes, and no bot's clock runs, for however long the person
  takes. A bot is charged only the wall clock of its own `ask`, as in a match.
- The stall watch (`workers.stall`) keeps ticking while the runner waits, so a
  long wait is no stall; a real host stall during a person's turn stops no
  bot's clock, so it is forgiven once the person answers (`StallWatch.forget`).
  A stall while a bot is asked still raises HostStalled, as in a match.
- No CPU claim: a match claims one CPU for itself and its bots
  (`workers.cpus.one_cpu`) for the seconds it lasts; a table lasts up to an hour
  and is idle nearly all of it, so holding a claim would take a CPU from every
  ladder match on the host. A table's bots run where the scheduler puts them,
  which costs a cross-CPU wake-up (tens of microseconds) per hand-over.
- Memory: the bots stay alive (paused) for the whole table, each in its own
  sandbox: a bwrap, a zygote and the bot per bot seat, beside the runner.

`decision_ms` in the replay holds a person's think time for each move they made
(None for a move the fallback made for them, as for a faulted bot: the first
None of a seat marks where it stopped playing); `decision_cpu_ms` is None for
every move of a person.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.core import find_legal
from workers import info
from workers.contract import Outcome, SeatStatus
from workers.limits import Limits
from workers.match import Seating, _Seat, play
from workers.staging import BotSource, house_file, resolve

HUMAN_MOVE_MS = 300_000  # a person's time for one move (TABLE_MOVE_MS on the ladder)
HUMAN_MATCH_MS = 3_600_000  # a person's time for the whole match (TABLE_MATCH_MS)


@dataclass(frozen=True)
class Move:
    """A person's move: one of the legal actions they were given."""

    action: dict


@dataclass(frozen=True)
class Resign:
    """The person gives up: the fallback plays their seat out."""


@dataclass(frozen=True)
class OutOfTime:
    """No move before the deadline: the fallback plays the seat out."""


HumanAnswer = Move | Resign | OutOfTime
AskHuman = Callable[[int, dict, list[dict], int], HumanAnswer]
OnStep = Callable[[int, int, dict, str], None]


def run_table(
    game: str,
    seats: Sequence[str | BotSource | None],
    seed: int,
    ask_human: AskHuman,
    on_step: OnStep | None = None,
    *,
    labels: Mapping[int, str] | None = None,
    options: dict | None = None,
    limits: Limits | None = None,
    human_move_ms: int = HUMAN_MOVE_MS,
    human_match_ms: int = HUMAN_MATCH_MS,
    unsafe: bool = False,
) -> Outcome:
    """Play one match of `game` in which each `None` seat is a person, the others bots (as
    `run_match` takes them), and return its Outcome exactly as `run_match` makes one.

    A bot seat may also be a bare house name (`greedy`: this game's house bot).
    `ask_human(seat, view, legal, time_left_ms)` answers a person's turn with a Move,
    Resign or OutOfTime; `on_step(step, seat, action, by)` is called after every applied
    action (`by`: "bot", "human" or "fallback"), steps counted from 0. `labels` names
    each person's seat in the replay (default "seat N (human)"). An exception from either
    callable ends the table, every bot killed, and propagates; so does ValueError for a
    move not among `legal`. Otherwise raises as `run_match` does.
    """
    if human_move_ms <= 0 or human_match_ms <= 0:
        raise ValueError("a person's move and match times are positive")
    sources = [_source(game, seat) for seat in seats]
    humans = {i for i, source in enumerate(sources) if source is None}
    names = dict(labels or {})
    if not names.keys() <= humans:
        raise ValueError(f"labels name seats {sorted(names.keys() - humans)}, not people")
    for i in humans:
        names.setdefault(i, f"seat {i} (human)")
    seat_labels = [names[i] if source is None else source.label for i, source in enumerate(sources)]
    seat_infos = [
        info.human_seat(names[i]) if source is None else source.seat_info()
        for i, source in enumerate(sources)
    ]
    clock = _HumanClock(ask_human, human_move_ms, human_match_ms)
    seating = Seating(sources, seat_labels, seat_infos, clock.turn, on_step, claim_cpu=False)
    return play(game, seating, seed, options, limits or Limits(), unsafe)


def _source(game: str, seat: str | BotSource | None) -> BotSource | None:
    """A seat's bot as `run_match` resolves it, and a bare house name (`greedy`, as the
    site names house bots) as that game's house bot (`manila/greedy`)."""
    if seat is None or isinstance(seat, BotSource):
        return seat
    if "/" not in seat and not Path(seat).exists() and house_file(game, seat) is not None:
        return resolve(f"{game}/{seat}")
    return resolve(seat)


class _HumanClock:
    """Asks a person for a move and holds them to their clock (kept in their seat's
    `used_ms`); faults the seat on resigning or running out of time."""

    def __init__(self, ask: AskHuman, move_ms: int, match_ms: int) -> None:
        self.ask = ask
        self.move_ms = move_ms
        self.match_ms = match_ms

    def turn(
        self, i: int, seat: _Seat, view: dict, legal: list[dict]
    ) -> tuple[dict | None, float | None]:
        """(the legal action the person chose, their think time in ms), or (None, None)
        once the seat is out of the game (the fallback plays it)."""
        allowed = min(float(self.move_ms), self.match_ms - seat.used_ms)
        if allowed < 1:  # under a millisecond left: nothing a person can do with it
            return self._out(seat, "out of time")
        began = time.monotonic()
        answer = self.ask(i, view, legal, int(allowed))
        took = (time.monotonic() - began) * 1000
        seat.used_ms += took
        if isinstance(answer, Resign):
            return self._out(seat, "resigned")
        if isinstance(answer, OutOfTime) or took > allowed:
            return self._out(seat, "out of time")
        if not isinstance(answer, Move):
            raise TypeError(f"ask_human answers Move, Resign or OutOfTime, not {answer!r}")
        index = find_legal(legal, answer.action)
        if index is None:
            raise ValueError(f"seat {i}: {answer.action!r} is not one of the legal actions")
        return legal[index], took

    @staticmethod
    def _out(seat: _Seat, reason: str) -> tuple[None, None]:
        seat.status, seat.error = SeatStatus.TIMEOUT, reason
        return None, None
