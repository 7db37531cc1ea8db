"""Who sits in which seat: balanced seat positions and the rotations of a table's set.

Entrants here are indices 0 .. n-1; a table is a tuple of them in seat order.

`balance_seats` seats a whole schedule (round robin) so that every entrant sits
in every seat position equally often, or as near as the numbers allow: with k
tables and t seats, each position floor(k/t) or ceil(k/t) times. This always
exists (de Werra's equitable edge colouring of the bipartite entrant–table
graph, seats as colours); we reach it the way the proof does, by re-balancing
two seats at a time along Euler circuits until no entrant has one seat twice
more often than another.

`seat_table` seats one table given the seats its entrants have had so far
(Swiss and elimination, where the next tables are not known in advance).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

Seats = tuple[int, ...]


def rotations(base: Sequence, count: int) -> list[tuple]:
    """The seat orders of a table's set: `base` rotated by 0, 1, ..., count-1."""
    n = len(base)
    return [tuple(base[(seat + r) % n] for seat in range(n)) for r in range(count)]


def seat_counts(tables: Sequence[Seats], n: int, size: int) -> list[list[int]]:
    """counts[e][s]: how often entrant e sat in seat s."""
    counts = [[0] * size for _ in range(n)]
    for table in tables:
        for seat, entrant in enumerate(table):
            counts[entrant][seat] += 1
    return counts


def balance_seats(tables: Sequence[Seats], n: int) -> list[Seats]:
    """The same tables (same members, same order of tables) re-seated so that each
    entrant's count in any seat is within one of its count in any other seat."""
    if not tables:
        return []
    size = len(tables[0])
    seated = [list(table) for table in tables]
    counts = seat_counts(tables, n, size)
    while True:
        pair = _unbalanced_pair(counts)
        if pair is None:
            return [tuple(table) for table in seated]
        a, b = pair
        edges = [(table[a], table[b]) for table in seated]
        for table, forward in zip(seated, _balanced_orientation(n, edges), strict=True):
            if not forward:
                table[a], table[b] = table[b], table[a]
        for entrant in range(n):
            counts[entrant][a] = counts[entrant][b] = 0
        for table in seated:
            counts[table[a]][a] += 1
            counts[table[b]][b] += 1


def _unbalanced_pair(counts: list[list[int]]) -> tuple[int, int] | None:
    """Seats (a, b) that some entrant has sat in at least twice more often, a the busier."""
    for row in counts:
        high = max(range(len(row)), key=row.__getitem__)
        low = min(range(len(row)), key=row.__getitem__)
        if row[high] - row[low] >= 2:
            return high, low
    return None


def _balanced_orientation(n: int, edges: Sequence[tuple[int, int]]) -> list[bool]:
    """Orient each edge (u, v) so every vertex has out- and in-degree within one.

    Odd vertices are joined to a virtual vertex so every degree is even; walking
    Euler circuits and orienting each edge the way it is walked gives every
    vertex as many edges in as out, and dropping the virtual edges costs at most
    one. True means u → v (u keeps the first seat of the pair).
    """
    virtual = n
    every = list(edges)
    degree = [0] * (n + 1)
    for u, v in edges:
        degree[u] += 1
        degree[v] += 1
    every += [(v, virtual) for v in range(n) if degree[v] % 2]
    incident: list[list[int]] = [[] for _ in range(n + 1)]
    for i, (u, v) in enumerate(every):
        incident[u].append(i)
        incident[v].append(i)
    used = [False] * len(every)
    forward = [True] * len(every)
    cursor = [0] * (n + 1)
    for start in range(n + 1):
        stack = [start]
        while stack:
            u = stack[-1]
            edges_u = incident[u]
            while cursor[u] < len(edges_u) and used[edges_u[cursor[u]]]:
                cursor[u] += 1
            if cursor[u] == len(edges_u):
                stack.pop()
                continue
            i = edges_u[cursor[u]]
            used[i] = True
            a, b = every[i]
            forward[i] = a == u
            stack.append(b if a == u else a)
    return forward[: len(edges)]


def seat_table(members: Sequence[int], counts: list[list[int]]) -> Seats:
    """Seat one table so its entrants take the seats they have had least (fewest repeats
    summed over the table; the first such order in the members' order on a tie), and
    count the seats taken."""
    size = len(members)
    best: Seats | None = None
    best_cost = None
    for order in permutations(members):
        cost = sum(counts[entrant][seat] ** 2 for seat, entrant in enumerate(order))
        if best_cost is None or cost < best_cost:
            best, best_cost = order, cost
    assert best is not None
    for seat in range(size):
        counts[best[seat]][seat] += 1
    return best
