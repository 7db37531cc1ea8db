"""Round robin for tables of 2 to 5: a balanced schedule of entrants 0 .. n-1.

Each entrant plays the same number k of tables ("rounds" of the tournament).
That needs t | n·k; the default k is the fewest tables after which every pair
can have met, ceil((n-1)/(t-1)), raised to the next multiple of
t / gcd(n, t) when t does not divide n·k.

Rounds hold floor(n/t) tables; when t does not divide n, the n mod t entrants
with the most tables still to play... do play, and the others sit the round
out (no points: everyone still ends with exactly k tables). The last round
may be short. Sitting out is spread evenly: at any time two entrants' tables
played differ by at most one.

Balance reached (tested for every n in 3..40 and t in 2..5 with n ≥ t, at the
default length, see tests/unit/ladder/tournaments/test_roundrobin.py):
- matches: every entrant plays exactly k tables;
- seats: every entrant sits in every seat floor(k/t) or ceil(k/t) times
  (always possible; see `seating.balance_seats`);
- pairs: every pair meets floor(λ) or ceil(λ) times, λ = k(t-1)/(n-1), so
  max − min pair meetings ≤ 1, except where noted in `KNOWN_SPREAD_TWO`.
Tables are grouped by a seeded local search that minimises the sum of squared
pair meetings (with the classic circle method for t = 2, which is exact).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from ladder.tournaments.seating import Seats, balance_seats

SEARCH_BUDGET = 20_000  # tabu moves at most; a few hundred suffice for most sizes


def default_length(n: int, size: int) -> int:
    """Tables per entrant by default: every pair can meet, and everyone plays equally often."""
    _check(n, size)
    fewest = math.ceil((n - 1) / (size - 1))
    step = size // math.gcd(n, size)
    return math.ceil(fewest / step) * step


def check_length(n: int, size: int, k: int) -> None:
    """ValueError unless every one of n entrants can play exactly k tables of `size`."""
    _check(n, size)
    if k < 1 or (n * k) % size:
        step = size // math.gcd(n, size)
        raise ValueError(
            f"a round robin of {n} entrants at tables of {size} needs a number of rounds"
            f" (tables per entrant) that is a positive multiple of {step}, not {k}"
        )


def round_count(n: int, size: int, k: int) -> int:
    """How many rounds k tables per entrant take (at most floor(n/size) tables a round)."""
    return math.ceil(n * k // size / (n // size))


def schedule(n: int, size: int, k: int, rng: random.Random) -> list[list[Seats]]:
    """Rounds of seated tables of entrants 0..n-1, each entrant at exactly k tables."""
    check_length(n, size, k)
    if size == 2 and k % (n - 1) == 0:
        rounds = _circle(n, k // (n - 1))
    else:
        rounds = _improve(_greedy(n, size, k, rng), n, size, k, rng, SEARCH_BUDGET)
    flat = [table for tables in rounds for table in tables]
    seated = iter(balance_seats(flat, n))
    return [[next(seated) for _ in tables] for tables in rounds]


def _check(n: int, size: int) -> None:
    if not 2 <= size <= 5:
        raise ValueError(f"tables seat 2 to 5 players, not {size}")
    if n < size:
        raise ValueError(f"{n} entrants cannot fill a table of {size}")


def _circle(n: int, cycles: int) -> list[list[Seats]]:
    """Two-player round robin by the circle method: every pair exactly once a cycle.

    With odd n a phantom entrant makes it even; its opponent sits the round out.
    """
    m = n + n % 2
    rounds = []
    for _ in range(cycles):
        for r in range(m - 1):
            ring = [m - 1] + [(r + i) % (m - 1) for i in range(m - 1)]
            tables = []
            for i in range(m // 2):
                a, b = ring[i], ring[m - 1 - i]
                if a < n and b < n:
                    tables.append((a, b))
            rounds.append(tables)
    return rounds


def _greedy(n: int, size: int, k: int, rng: random.Random) -> list[list[list[int]]]:
    """A first schedule: who plays each round, then tables of least-met entrants."""
    left = [k] * n
    met = [[0] * n for _ in range(n)]
    rounds = []
    tables_left = n * k // size
    per_round = n // size
    while tables_left:
        count = min(per_round, tables_left)
        tables_left -= count
        order = list(range(n))
        rng.shuffle(order)
        order.sort(key=lambda e: -left[e])
        playing = order[: count * size]
        for e in playing:
            left[e] -= 1
        rng.shuffle(playing)
        tables: list[list[int]] = []
        pool = list(playing)
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


def _improve(
    rounds: list[list[list[int]]], n: int, size: int, k: int, rng: random.Random, budget: int
) -> list[list[Seats]]:
    """Tabu search on the tables of each round until every pair meets floor(λ) or ceil(λ)
    times (or the budget of moves is spent; the best schedule seen is kept).

    A move swaps two entrants between tables of one round (who plays which round
    never changes). Each step picks a pair outside [floor λ, ceil λ] and makes the
    best move that brings it back (fewest violations, then fewest Σ meetings²); an
    entrant moved in a round may not move there again for a few steps.
    """
    lam = k * (size - 1) / (n - 1)
    lo, hi = math.floor(lam), math.ceil(lam)
    met = pair_meetings((t for tables in rounds for t in tables), n)
    where = [dict() for _ in rounds]  # where[r][e]: index of e's table in round r
    for r, tables in enumerate(rounds):
        for i, table in enumerate(tables):
            for e in table:
                where[r][e] = i

    def excess(m: int) -> int:
        return (m - hi) ** 2 if m > hi else (lo - m) ** 2 if m < lo else 0

    violated = {(a, b) for a in range(n) for b in range(a + 1, n) if excess(met[a][b])}
    cost = sum(excess(met[a][b]) for a, b in violated)
    best_cost, best = cost, [[list(t) for t in tables] for tables in rounds]
    tabu: dict[tuple[int, int], int] = {}
    for step in range(budget):
        if not violated:
            break
        a, b = rng.choice(sorted(violated))
        moves = _moves(rounds, where, a, b, met[a][b] > hi)
        scored = []
        for r, x, y in moves:
            gain, spread = _delta(rounds[r], where[r], x, y, met, excess)
            if cost + gain < best_cost or (tabu.get((r, x), -1) < step and tabu.get((r, y), -1) < step):
                scored.append((gain, spread, rng.random(), r, x, y))
        if not scored:
            continue
        gain, _, _, r, x, y = min(scored)
        _swap(rounds[r], where[r], x, y, met, violated, excess)
        cost += gain
        tabu[(r, x)] = tabu[(r, y)] = step + rng.randint(3, 10)
        if cost < best_cost:
            best_cost, best = cost, [[list(t) for t in tables] for tables in rounds]
    return [[tuple(t) for t in tables] for tables in best]


def _moves(rounds, where, a: int, b: int, too_often: bool) -> list[tuple[int, int, int]]:
    """Swaps (round, x, y) that part a and b (met too often) or bring them together."""
    moves = []
    for r, tables in enumerate(rounds):
        ta, tb = where[r].get(a), where[r].get(b)
        if ta is None or tb is None:
            continue
        if too_often and ta == tb:
            for mover in (a, b):
                for i, table in enumerate(tables):
                    if i != ta:
                        moves.extend((r, mover, y) for y in table)
        elif not too_often and ta != tb:
            moves.extend((r, a, y) for y in tables[tb] if y != b)
            moves.extend((r, b, y) for y in tables[ta] if y != a)
    return moves


def _delta(tables, where, x: int, y: int, met, excess) -> tuple[int, int]:
    """Change in (violations, Σ meetings²) if x and y swap tables."""
    first, second = tables[where[x]], tables[where[y]]
    gain = spread = 0
    for others, leaving, coming in ((first, x, y), (second, y, x)):
        for o in others:
            if o == leaving:
                continue
            m_out, m_in = met[leaving][o], met[coming][o]
            gain += excess(m_out - 1) - excess(m_out) + excess(m_in + 1) - excess(m_in)
            spread += m_in - m_out + 1
    return gain, spread


def _swap(tables, where, x: int, y: int, met, violated: set, excess) -> None:
    """Swap x and y between their tables, keeping meetings and violated pairs up to date."""
    i, j = where[x], where[y]
    first, second = tables[i], tables[j]
    for others, leaving, coming in ((first, x, y), (second, y, x)):
        for o in others:
            if o != leaving:
                for e, step in ((leaving, -1), (coming, 1)):
                    _meet(met, e, o, step)
                    pair = (min(e, o), max(e, o))
                    if excess(met[e][o]):
                        violated.add(pair)
                    else:
                        violated.discard(pair)
    first[first.index(x)] = y
    second[second.index(y)] = x
    where[x], where[y] = j, i


def _meet(met: list[list[int]], a: int, b: int, step: int) -> None:
    met[a][b] += step
    met[b][a] += step


def pair_meetings(tables, n: int) -> list[list[int]]:
    """met[a][b]: how many tables a and b shared."""
    met = [[0] * n for _ in range(n)]
    for table in tables:
        for i, a in enumerate(table):
            for b in table[i + 1 :]:
                _meet(met, a, b, 1)
    return met


def balance_figures(rounds: Sequence[Sequence[Seats]], n: int, size: int) -> dict:
    """The balance a schedule reached: tables per entrant, seat and pair spreads."""
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
