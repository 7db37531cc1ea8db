"""Elimination for tables of 2 to 5: the top k of each table advance until one final table.

Entrants are indices 0 .. n-1, in seeding order where it matters (best first).

The plan (how many tables of which size, and how many byes, in each round) is
fixed at the start from n, the table size t, k and the game's player range,
as the best of all plans by, in order:
1. fewest tables not of size t (some counts cannot end in a playable final
   otherwise: with t = 3 and k = 1 every table removes two entrants, so from
   an even count a final of three needs one table of four somewhere);
2. fewest rounds;
3. fewest byes after the first round (a bracket's byes belong in round one);
4. a final as close to t as possible;
5. fewest byes.
Off-size tables are t − 1 or t + 1 within the game's range and advance
min(k, size − 1). The final seats between the game's minimum and t (t + 1
only if nothing else works).

Byes go to the best seeds. The others are dealt to the tables in serpentine
order of seed (1 2 3 3 2 1 1 2 3 ...), so every table is as strong as the
next and the strongest entrants meet as late as the bracket allows. Advancers
keep their seeds, and the tables are dealt the same way in every round.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_OFF_SIZE = 3  # off-size tables a round may have: enough to fix any remainder mod t - k


@dataclass(frozen=True)
class Stage:
    """One round of the plan: its table sizes (tables of the chosen size first) and its byes."""

    sizes: tuple[int, ...]
    byes: int = 0


def default_advance(size: int) -> int:
    """Half the table, rounded down, at least one."""
    return max(1, size // 2)


def advancing(size: int, advance: int) -> int:
    """How many advance from a table of `size` (never the whole table)."""
    return max(1, min(advance, size - 1))


def plan(n: int, size: int, advance: int, low: int, high: int) -> list[Stage]:
    """The rounds from n entrants to the final; the last stage is the final table.

    `low`..`high` is the game's player range. ValueError if no plan exists.
    """
    if not low <= size <= high:
        raise ValueError(f"tables of {size} are outside the game's {low}..{high} players")
    if not 1 <= advance < size:
        raise ValueError(f"the top k of a table of {size} advance: 1 ≤ k < {size}, not {advance}")
    if n < low:
        raise ValueError(f"{n} entrants cannot fill a table (the game needs {low})")
    sizes = [s for s in (size - 1, size + 1) if low <= s <= high and s >= 2]
    memo: dict[int, tuple | None] = {}

    def best(m: int, first: bool) -> tuple | None:
        """(cost, stages) of the best plan from m entrants, or None."""
        if not first and m in memo:
            return memo[m]
        options = []
        if low <= m <= size or (m == size + 1 and m <= high):
            options.append(((int(m != size), 1, 0, max(0, size - m), 0), [Stage((m,))]))
        if m > size:
            for off in _off_size_counts(sizes, m):
                off_seated = sum(s * c for s, c in off)
                for count in range(0, (m - off_seated) // size + 1):
                    tables = count + sum(c for _, c in off)
                    if tables == 0:
                        continue
                    byes = m - off_seated - count * size
                    after = byes + count * advancing(size, advance)
                    after += sum(c * advancing(s, advance) for s, c in off)
                    if after >= m:
                        continue
                    rest = best(after, False)
                    if rest is None:
                        continue
                    (off_n, rounds, late, short, all_byes), stages = rest
                    cost = (
                        off_n + sum(c for _, c in off),
                        rounds + 1,
                        late + (0 if first else byes),
                        short,
                        all_byes + byes,
                    )
                    table_sizes = (size,) * count + tuple(s for s, c in off for _ in range(c))
                    options.append((cost, [Stage(table_sizes, byes), *stages]))
        found = min(options, key=lambda option: option[0]) if options else None
        if not first:
            memo[m] = found
        return found

    found = best(n, True)
    if found is None:
        raise ValueError(
            f"no elimination of {n} entrants at tables of {size} (top {advance} advance)"
            f" ends in a final of {low} to {size} players"
        )
    return found[1]


def _off_size_counts(sizes: Sequence[int], m: int) -> list[tuple[tuple[int, int], ...]]:
    """Every choice of how many off-size tables of each size (at most MAX_OFF_SIZE in all)."""
    choices: list[tuple[tuple[int, int], ...]] = [()]
    for s in sizes:
        choices = [
            (*chosen, (s, c))
            for chosen in choices
            for c in range(MAX_OFF_SIZE + 1 - sum(c for _, c in chosen))
            if sum(x * y for x, y in chosen) + s * c <= m
        ]
    return choices


def deal(seeded: Sequence[int], stage: Stage) -> tuple[list[list[int]], list[int]]:
    """Tables (members best seed first) and byes of a round, from its entrants by seed."""
    byes = list(seeded[: stage.byes])
    tables: list[list[int]] = [[] for _ in stage.sizes]
    order = _serpentine(len(stage.sizes))
    step = 0
    for entrant in seeded[stage.byes :]:
        while True:
            table = order[step % len(order)]
            step += 1
            if len(tables[table]) < stage.sizes[table]:
                tables[table].append(entrant)
                break
    return tables, byes


def _serpentine(count: int) -> list[int]:
    """0 1 .. c-1 c-1 .. 1 0: one sweep there and back."""
    return list(range(count)) + list(reversed(range(count)))
