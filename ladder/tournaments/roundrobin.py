"""Round robin for tables of 2 to 5: a balanced schedule of entrants 0 .. n-1.

Every entrant plays the same number k of tables (the tournament's "rounds";
with duplicate sets each table is t matches). That needs t | n·k. Rounds
hold floor(n/t) tables; when t does not divide n, the entrants with the most
tables still to play sit down and the rest sit the round out (no points:
everyone still ends with exactly k tables, and at any time two entrants'
tables played differ by at most one). The last round may be short.

The schedule is a function of (n, t, k) alone; the tournament's seed decides
which entrant takes which place in it.

Balance (tested for every n in 3..40 and t in 2..5 with n ≥ t, at the default
length; tests/unit/ladder/tournaments/test_roundrobin.py):
- tables: every entrant plays exactly k;
- seats: every entrant sits in every seat floor(k/t) or ceil(k/t) times,
  always (an equitable colouring always exists; `seating.balance_seats`);
- pairs: with λ = k(t−1)/(n−1) the mean meetings of a pair, every pair meets
  floor(λ) or ceil(λ) times (max − min ≤ 1, and every pair meets at least
  once) for 102 of the 149 (n, t): every t = 2 (exactly once), t = 3 but
  n = 6, 7 and 39, t = 4 but n = 7..13, 21, 31, 37, 39 and 40, and t = 5
  only for n ≤ 7 and n = 25. The other 47 are in `UNBALANCED` with their
  figures: max − min is 2, or 3 for n = 9 and 13 at fours and 17 of the 32
  fields at fives; all but six of them leave some pair unmet. Small fields
  have rounds of one to three tables, and there no balanced schedule of that
  length may exist (with n = 2t each round splits the field in halves: eight
  entrants in halves of four for three rounds always leave a pair that meets
  every time or never, since eight ±1 vectors of length three are equal or
  include two opposite ones); at tables of five our search also falls short
  on larger fields.

How: for t = 2 the circle method (exact: every pair once a cycle). Otherwise
a first schedule from a greedy draw, then simulated annealing over swaps of
two entrants between tables of a round, and over exchanges of who sits out
(x plays round r and sits out r', y the other way round, allowed only where
it keeps tables played within one at any time), minimising
Σ over pairs of 8·(meetings outside [floor λ, ceil λ])² + meetings².

The default length is the fewest tables after which every pair can have met,
k0 = ceil((n−1)/(t−1)), raised to a multiple of t / gcd(n, t) so that t | n·k;
for the fields in `LONGER` that length leaves some pairs unmet (an exact
design is needed and rarely exists: n = 15, t = 3 at k0 = 7 is Kirkman's
schoolgirl problem), and the default adds that many steps, the fewest that
reach a balanced schedule. Other lengths are scheduled as well as the search
finds in its budget.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence

from ladder.tournaments.seating import Seats, balance_seats

SCHEDULE_SEED = 20240601  # the search's own seed: schedules depend on (n, t, k) alone
SEARCH_MOVES = 100_000  # at most; 400 per entrant and table for small fields
HOT, COLD = 2.0, 0.1  # annealing temperatures, in units of the cost above
OUTSIDE_WEIGHT = 8

# fmt: off
# (n, t): steps of t / gcd(n, t) tables per entrant the default adds to k0: the fewest with
# which the search reached a balanced schedule, trying up to three steps and half k0 again
# (tests/unit/ladder/tournaments/test_roundrobin.py checks every default schedule).
LONGER: dict[tuple[int, int], int] = {
    (12, 3): 1, (13, 3): 1, (18, 3): 1, (19, 3): 1, (21, 3): 2, (23, 3): 1, (24, 3): 2,
    (25, 3): 1, (27, 3): 2, (28, 3): 1, (29, 3): 1, (30, 3): 1, (31, 3): 1, (33, 3): 3,
    (34, 3): 1, (35, 3): 1, (36, 3): 3, (37, 3): 1, (38, 3): 1, (40, 3): 1, (18, 4): 1,
    (20, 4): 1, (22, 4): 1, (23, 4): 1, (24, 4): 3, (25, 4): 1, (26, 4): 1, (28, 4): 3,
    (30, 4): 2, (32, 4): 2, (33, 4): 1, (34, 4): 2, (35, 4): 1, (36, 4): 3, (38, 4): 2,
}

# (n, t): (fewest, most) meetings of a pair at the default length where no balanced schedule
# was found within that reach.
UNBALANCED: dict[tuple[int, int], tuple[int, int]] = {
    (6, 3): (0, 2), (7, 3): (0, 2), (39, 3): (0, 2), (7, 4): (1, 3), (8, 4): (0, 2),
    (9, 4): (0, 3), (10, 4): (0, 2), (11, 4): (0, 2), (12, 4): (0, 2), (13, 4): (0, 3),
    (21, 4): (0, 2), (31, 4): (0, 2), (37, 4): (0, 2), (39, 4): (0, 2), (40, 4): (0, 2),
    (8, 5): (2, 4), (9, 5): (2, 4), (10, 5): (0, 3), (11, 5): (1, 4), (12, 5): (0, 2),
    (13, 5): (0, 3), (14, 5): (0, 3), (15, 5): (0, 3), (16, 5): (0, 3), (17, 5): (0, 3),
    (18, 5): (0, 2), (19, 5): (0, 3), (20, 5): (0, 3), (21, 5): (0, 3), (22, 5): (1, 3),
    (23, 5): (1, 3), (24, 5): (0, 3), (26, 5): (0, 3), (27, 5): (0, 3), (28, 5): (0, 3),
    (29, 5): (0, 3), (30, 5): (0, 2), (31, 5): (0, 2), (32, 5): (0, 2), (33, 5): (0, 3),
    (34, 5): (0, 2), (35, 5): (0, 2), (36, 5): (0, 2), (37, 5): (0, 3), (38, 5): (0, 2),
    (39, 5): (0, 2), (40, 5): (0, 2),
}
# fmt: on


def fewest(n: int, size: int) -> int:
    """k0: the fewest tables per entrant after which every pair can have met, valid."""
    _check(n, size)
    step = size // math.gcd(n, size)
    return math.ceil(math.ceil((n - 1) / (size - 1)) / step) * step


def default_length(n: int, size: int) -> int:
    """Tables per entrant by default: k0, or longer where k0 cannot be balanced."""
    return fewest(n, size) + LONGER.get((n, size), 0) * (size // math.gcd(n, size))


def check_length(n: int, size: int, k: int) -> None:
    """ValueError unless every one of n entrants can play exactly k tables of `size`."""
    _check(n, size)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1 or (n * k) % size:
        step = size // math.gcd(n, size)
        raise ValueError(
            f"a round robin of {n} entrants at tables of {size} needs a number of rounds"
            f" (tables per entrant) that is a positive multiple of {step}, not {k}"
        )


def schedule(n: int, size: int, k: int) -> tuple[tuple[Seats, ...], ...]:
    """Rounds of seated tables of entrants 0..n-1, each entrant at exactly k tables."""
    check_length(n, size, k)
    return _schedule(n, size, k)


@functools.lru_cache(maxsize=32)  # a pure function's memo: the search takes up to a second
def _schedule(n: int, size: int, k: int) -> tuple[tuple[Seats, ...], ...]:
    if size == 2 and k % (n - 1) == 0:
        rounds = _circle(n, k // (n - 1))
    else:
        rng = random.Random(SCHEDULE_SEED)
        moves = min(SEARCH_MOVES, 400 * n * k)
        rounds = _Annealer(_greedy(n, size, k, rng), n, size, k, rng).run(moves)
    flat = [table for tables in rounds for table in tables]
    seated = iter(balance_seats(flat, n))
    return tuple(tuple(next(seated) for _ in tables) for tables in rounds)


def _check(n: int, size: int) -> None:
    if not 2 <= size <= 5:
        raise ValueError(f"tables seat 2 to 5 players, not {size}")
    if n < size:
        raise ValueError(f"{n} entrants cannot fill a table of {size}")


def _circle(n: int, cycles: int) -> list[list[Seats]]:
    """Two-player round robin by the circle method: every pair exactly once a cycle.

    With odd n a phantom entrant makes the count even; its opponent sits out.
    """
    m = n + n % 2
    rounds: list[list[Seats]] = []
    for _ in range(cycles):
        for r in range(m - 1):
            ring = [m - 1] + [(r + i) % (m - 1) for i in range(m - 1)]
            pairs = ((ring[i], ring[m - 1 - i]) for i in range(m // 2))
            rounds.append([(a, b) for a, b in pairs if a < n and b < n])
    return rounds


def _greedy(n: int, size: int, k: int, rng: random.Random) -> list[list[list[int]]]:
    """A first schedule: who plays each round (most tables left first), then tables
    filled with the entrants who have met the table least."""
    left = [k] * n
    met = [[0] * n for _ in range(n)]
    rounds = []
    tables_left = n * k // size
    while tables_left:
        count = min(n // size, tables_left)
        tables_left -= count
        order = list(range(n))
        rng.shuffle(order)
        order.sort(key=lambda e: -left[e])
        pool = order[: count * size]
        for e in pool:
            left[e] -= 1
        tables: list[list[int]] = []
        while pool:
            table = [pool.pop(0)]
            while len(table) < size:
                best = min(pool, key=lambda e: sum(met[e][x] for x in table))
                pool.remove(best)
                table.append(best)
            for i, a in enumerate(table):
                for b in table[i + 1 :]:
                    met[a][b] += 1
                    met[b][a] += 1
            tables.append(table)
        rounds.append(tables)
    return rounds


class _Annealer:
    """Simulated annealing on a schedule's tables; see the module docstring."""

    def __init__(self, rounds, n: int, size: int, k: int, rng: random.Random) -> None:
        lam = k * (size - 1) / (n - 1)
        self.lo, self.hi = math.floor(lam), math.ceil(lam)
        top = k + 2
        outside = [max(0, m - self.hi, self.lo - m) for m in range(top + 1)]
        cost = [OUTSIDE_WEIGHT * outside[m] ** 2 + m * m for m in range(top + 1)]
        bad = [int(o > 0) for o in outside]
        # Cost and violation changes when a pair at m meetings gains or loses one.
        self.up = [cost[m + 1] - cost[m] for m in range(top)]
        self.down = [0] + [cost[m - 1] - cost[m] for m in range(1, top)]
        self.bad_up = [bad[m + 1] - bad[m] for m in range(top)]
        self.bad_down = [0] + [bad[m - 1] - bad[m] for m in range(1, top)]
        self.rounds, self.n, self.size, self.rng = rounds, n, size, rng
        self.met = pair_meetings((table for tables in rounds for table in tables), n)
        self.violations = sum(bad[self.met[a][b]] for a in range(n) for b in range(a + 1, n))
        self.where = [{e: t for t in tables for e in t} for tables in rounds]
        self.out = [sorted(set(range(n)) - set(where)) for where in self.where]
        # played[r][e]: tables e has played in rounds 0..r, kept even (see `_exchange`).
        self.played, running = [], [0] * n
        for where in self.where:
            running = [count + (e in where) for e, count in enumerate(running)]
            self.played.append(running)

    def run(self, moves: int) -> list[list[Seats]]:
        """Anneal for at most `moves` moves (stopping once balanced); the best schedule seen."""
        rng = self.rng
        several = [r for r, tables in enumerate(self.rounds) if len(tables) > 1]
        byes = any(self.out)
        best, best_violations = self._copy(), self.violations
        for step in range(moves):
            if not self.violations:
                return self._copy()
            temperature = HOT * (COLD / HOT) ** (step / moves)
            if byes and (not several or rng.random() < 0.3):
                self._exchange(temperature)
            else:
                r = several[rng.randrange(len(several))]
                tables = self.rounds[r]
                i = rng.randrange(len(tables))
                j = rng.randrange(len(tables) - 1)
                j += j >= i
                a = tables[i][rng.randrange(self.size)]
                b = tables[j][rng.randrange(self.size)]
                self._swap(r, a, b, temperature)
            if self.violations < best_violations:
                best, best_violations = self._copy(), self.violations
        # The end of the walk is cold and settled; keep it unless it lost ground.
        return self._copy() if self.violations <= best_violations else best

    def _copy(self) -> list[list[Seats]]:
        return [[tuple(table) for table in tables] for tables in self.rounds]

    def _accept(self, delta: int, temperature: float) -> bool:
        return delta <= 0 or self.rng.random() < math.exp(-delta / temperature)

    def _shift(self, e: int, others: Sequence[int], step: int) -> int:
        """e joins (+1) or leaves (−1) a table of `others`: the change in cost."""
        row, met = self.met[e], self.met
        costs, bads = (self.up, self.bad_up) if step > 0 else (self.down, self.bad_down)
        delta = violations = 0
        for o in others:
            m = row[o]
            delta += costs[m]
            violations += bads[m]
            row[o] = met[o][e] = m + step
        self.violations += violations
        return delta

    def _swap(self, r: int, a: int, b: int, temperature: float) -> None:
        """Swap a and b (at different tables of round r), or leave them."""
        where = self.where[r]
        first, second = where[a], where[b]
        rest_first = [o for o in first if o != a]
        rest_second = [o for o in second if o != b]
        moves = ((a, rest_first, -1), (b, rest_first, 1), (b, rest_second, -1), (a, rest_second, 1))
        delta = sum(self._shift(e, others, step) for e, others, step in moves)
        if self._accept(delta, temperature):
            first[first.index(a)], second[second.index(b)] = b, a
            where[a], where[b] = second, first
        else:
            for e, others, step in reversed(moves):
                self._shift(e, others, -step)

    def _exchange(self, temperature: float) -> None:
        """x plays r and sits out s, y the other way round: let them trade both rounds."""
        rng, count = self.rng, len(self.rounds)
        r, s = rng.randrange(count), rng.randrange(count)
        out_r, out_s = self.out[r], self.out[s]
        if r == s or not out_r or not out_s:
            return
        x, y = out_s[rng.randrange(len(out_s))], out_r[rng.randrange(len(out_r))]
        if x not in self.where[r] or y not in self.where[s]:
            return
        # Between the two rounds x is one table less ahead and y one more: allowed only
        # where x was ahead of y, so tables played still differ by at most one at any time.
        ahead, behind, first, last = (x, y, r, s) if r < s else (y, x, s, r)
        played = self.played
        if any(played[p][ahead] != played[p][behind] + 1 for p in range(first, last)):
            return
        table_r, table_s = self.where[r][x], self.where[s][y]
        rest_r = [o for o in table_r if o != x]
        rest_s = [o for o in table_s if o != y]
        moves = ((x, rest_r, -1), (y, rest_r, 1), (y, rest_s, -1), (x, rest_s, 1))
        delta = sum(self._shift(e, others, step) for e, others, step in moves)
        if self._accept(delta, temperature):
            table_r[table_r.index(x)], table_s[table_s.index(y)] = y, x
            del self.where[r][x], self.where[s][y]
            self.where[r][y], self.where[s][x] = table_r, table_s
            out_r[out_r.index(y)], out_s[out_s.index(x)] = x, y
            for p in range(first, last):
                played[p][ahead] -= 1
                played[p][behind] += 1
        else:
            for e, others, step in reversed(moves):
                self._shift(e, others, -step)


def pair_meetings(tables, n: int) -> list[list[int]]:
    """met[a][b]: how many tables a and b shared."""
    met = [[0] * n for _ in range(n)]
    for table in tables:
        for i, a in enumerate(table):
            for b in table[i + 1 :]:
                met[a][b] += 1
                met[b][a] += 1
    return met


def balance_figures(rounds: Sequence[Sequence[Seats]], n: int, size: int) -> dict:
    """The balance a schedule reached: tables per entrant, seat spread, pair meetings."""
    flat = [table for tables in rounds for table in tables]
    played = [0] * n
    seats = [[0] * size for _ in range(n)]
    for table in flat:
        for seat, e in enumerate(table):
            played[e] += 1
            seats[e][seat] += 1
    met = pair_meetings(flat, n)
    pairs = [met[a][b] for a in range(n) for b in range(a + 1, n)]
    return {
        "tables": (min(played), max(played)),
        "seat_spread": max(max(row) - min(row) for row in seats),
        "pairs": (min(pairs), max(pairs)),
    }
