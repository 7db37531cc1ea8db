"""Swiss for tables of 2 to 5: each round, tables of entrants of similar standing.

Entrants are indices 0 .. n-1; the caller gives the standing order (best first,
ties already broken), each entrant's points, how often each pair has shared a
table, and how many byes each entrant has had.

A round:
1. Byes: when t does not divide n, n mod t entrants sit out and score the bye's
   points. They are the lowest-standing entrants among those with the fewest
   byes so far, so nobody has a second bye before everyone has had one.
2. Tables: filled from the top of the standings, each with the next entrants
   who add the fewest repeat meetings; then entrants are swapped between
   tables while that lowers, in this order, the repeat meetings at the
   tables (Σ over pairs of earlier meetings²), the spread of points at a
   table (Σ over pairs of the points difference²) and the spread of standing
   places; then a branch-and-bound search over every split into tables looks
   for a better one: to the end in fields of up to ten (tested: no round has
   more rematches than it must), within `SEARCH_NODES` tables in larger ones,
   where rematches are rarer and swaps alone mostly avoid them (three rounds
   of 30 at threes or 40 at fours or fives repeat no tablemate). Repeats come
   first: a rematch is avoided whenever it can be, at the cost of a table a
   little wider in points.
3. Seats are then chosen per table so each entrant takes the seat it has had
   least (`seating.seat_table`).

The first round has no standings: rated entrants are seeded by ladder skill
(μ − 3σ) and split into t tiers, table j taking the j-th entrant of every
tier (the multiplayer form of the Swiss "top half meets bottom half"), so
the strong start apart and climb towards each other; unrated entrants follow
the rated ones in an order drawn from the seed, so a field without ratings
is drawn at random.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations

SEARCH_NODES = 5_000  # tables tried by the exact search before it settles for the best found


def default_rounds(n: int, size: int) -> int:
    """ceil(log_t n) + 2: enough for a clear leader to emerge and be tested twice."""
    return max(1, math.ceil(math.log(n) / math.log(size) - 1e-9)) + 2


def first_round(order: Sequence[int], size: int, tiered: bool) -> tuple[list[list[int]], list[int]]:
    """Round 1 from a seeding order (best first): tiers when `tiered`, else slices.

    The last n mod t of the order sit out.
    """
    n = len(order)
    playing, byes = list(order[: n - n % size]), list(order[n - n % size :])
    count = len(playing) // size
    if tiered:
        tables = [[playing[tier * count + j] for tier in range(size)] for j in range(count)]
    else:
        tables = [playing[j * size : (j + 1) * size] for j in range(count)]
    return tables, byes


def pair_round(
    standing: Sequence[int],
    points: Sequence[Fraction],
    met: Sequence[Sequence[int]],
    byes_had: Sequence[int],
    size: int,
) -> tuple[list[list[int]], list[int]]:
    """Tables (members in standing order) and byes of the next round."""
    n = len(standing)
    place = {e: i for i, e in enumerate(standing)}
    by_need = sorted(standing, key=lambda e: (byes_had[e], -place[e]))
    byes = sorted(by_need[: n % size], key=place.__getitem__)
    playing = [e for e in standing if e not in set(byes)]
    value = [float(p) for p in points]

    def cost(table: Sequence[int]) -> tuple[float, float, float]:
        repeats = spread = places = 0.0
        for a, b in combinations(table, 2):
            repeats += met[a][b] ** 2
            spread += (value[a] - value[b]) ** 2
            places += (place[a] - place[b]) ** 2
        return (repeats, spread, places)

    tables: list[list[int]] = []
    pool = list(playing)
    while pool:
        table = [pool.pop(0)]
        while len(table) < size:
            best = min(pool, key=lambda e: (sum(met[e][x] ** 2 for x in table), place[e]))
            pool.remove(best)
            table.append(best)
        tables.append(table)
    _swap_until_stable(tables, cost)
    tables = _best_split(playing, size, cost, tables)
    return [sorted(table, key=place.__getitem__) for table in tables], byes


def _swap_until_stable(tables: list[list[int]], cost) -> None:
    """Swap entrants between two tables while that lowers the summed cost (lexicographic)."""
    costs = [cost(table) for table in tables]
    improved = True
    while improved:
        improved = False
        for i in range(len(tables)):
            for j in range(i + 1, len(tables)):
                for x in range(len(tables[i])):
                    for y in range(len(tables[j])):
                        first, second = list(tables[i]), list(tables[j])
                        first[x], second[y] = second[y], first[x]
                        new_first, new_second = cost(first), cost(second)
                        before = _add(costs[i], costs[j])
                        if _add(new_first, new_second) < before:
                            tables[i], tables[j] = first, second
                            costs[i], costs[j] = new_first, new_second
                            improved = True


def _best_split(players: list[int], size: int, cost, found: list[list[int]]) -> list[list[int]]:
    """The best split of `players` into tables, by branch and bound from `found`.

    Tables are built in standing order (the best unplaced entrant and the
    companions that complete it), and a branch is cut once its cost reaches
    the best known. After `SEARCH_NODES` tables tried it keeps the best so far
    (a round must stay cheap: the service rebuilds every round from the results).
    """
    best = [list(table) for table in found]
    best_cost = _total(cost, best)
    nodes = 0

    def search(left: list[int], chosen: list[list[int]], so_far: tuple) -> None:
        nonlocal best, best_cost, nodes
        if not left:
            if so_far < best_cost:
                best, best_cost = [list(t) for t in chosen], so_far
            return
        head, rest = left[0], left[1:]
        for others in combinations(rest, size - 1):
            nodes += 1
            if nodes > SEARCH_NODES:
                return
            table = [head, *others]
            total = _add(so_far, cost(table))
            if total >= best_cost:
                continue
            chosen.append(table)
            search([e for e in rest if e not in others], chosen, total)
            chosen.pop()

    search(list(players), [], (0.0, 0.0, 0.0))
    return best


def _total(cost, tables: list[list[int]]) -> tuple:
    total = (0.0, 0.0, 0.0)
    for table in tables:
        total = _add(total, cost(table))
    return total


def _add(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def seeding_order(skills: Sequence[float | None], rng: random.Random) -> list[int]:
    """Rated entrants by skill (best first, ties by position), then the unrated shuffled."""
    rated = sorted(
        (i for i, s in enumerate(skills) if s is not None), key=lambda i: -(skills[i] or 0.0)
    )
    unrated = [i for i, s in enumerate(skills) if s is None]
    rng.shuffle(unrated)
    return rated + unrated
