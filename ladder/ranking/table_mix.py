"""The table mix each bot is steered toward: which table sizes and seats it plays. Pure.

Two bots are rated on the same work only if they played the same kind of tables: a
bot that plays mostly 3-player Manila and one that plays mostly 5-player are not.
So matchmaking (`ladder.ranking.matchmaking`) aims every bot at its game's target mix:

- table sizes: `TARGET_SIZES` below, a weight per player count. Today every count the
  rules allow, in proportion to its seats (Manila 3 : 4 : 5): the mix a bot gets on
  average when the ladder plays every table size equally often. An equal share of
  each size per bot would need more small tables than large ones, and a small table
  tells the ratings less;
- seats: at each table size, every seat equally (seat 0 moves first in every game).

A bot's mix is `Played`: its rated matches counted by (players, seat), which the
service keeps per version (`SeatRecord`) and the scheduler tops up with the tables
it has in flight. Matchmaking (`make_table`) draws the bots as it would without the
mix (the seed and the largest table's others, from the seed's μ window) and uses the
mix three ways: at each size the neediest of those bots sit (`size_deficit`), the size
they lack most is played, and the seats are dealt so each bot sits where it has sat
least at that size (`deal_seats`).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence

# One place for the target: a weight per table size, per game (shares are the weights
# over their sum). Every game's sizes are exactly its rules' player range (a unit test
# holds the engine to it); bots/README.md tells bot authors.
TARGET_SIZES: dict[str, dict[int, float]] = {
    "caravelas": {2: 2.0, 3: 3.0, 4: 4.0},
    "manila": {3: 3.0, 4: 4.0, 5: 5.0},
    "meuterer": {3: 3.0, 4: 4.0},
}

# A bot's rated matches by (players, seat); seats count from 0.
Played = Mapping[tuple[int, int], int]


def target_sizes(game: str, min_players: int, max_players: int) -> dict[int, float]:
    """The share of its matches a bot of `game` should play at each table size: the
    game's row of TARGET_SIZES, or `even_tables` for a game it lacks."""
    weights = TARGET_SIZES.get(game)
    if weights is None:
        return even_tables(min_players, max_players)
    if not set(weights) <= set(range(min_players, max_players + 1)):
        raise ValueError(
            f"{game}'s target mix has sizes {sorted(weights)}, outside its"
            f" {min_players}-{max_players} players"
        )
    return normalise(weights)


def even_tables(min_players: int, max_players: int) -> dict[int, float]:
    """Every table size from `min_players` to `max_players`, in proportion to its seats:
    the mix a bot gets on average when the ladder plays every size equally often."""
    return normalise({size: float(size) for size in range(min_players, max_players + 1)})


def normalise(weights: Mapping[int, float]) -> dict[int, float]:
    """Weights per table size as shares that add up to 1; bad weights are refused."""
    if not weights or any(
        isinstance(s, bool) or not isinstance(s, int) or s < 2 or not w >= 0
        for s, w in weights.items()
    ):
        raise ValueError(f"a target mix gives table sizes of 2 or more weights ≥ 0, not {weights}")
    total = sum(weights.values())
    if not total > 0:
        raise ValueError(f"a target mix needs a positive weight somewhere, not {weights}")
    return {size: w / total for size, w in sorted(weights.items())}


def games_at(played: Played, players: int) -> int:
    """How many of its matches the bot played at tables of `players`."""
    return sum(n for (size, _), n in played.items() if size == players)


def size_deficit(played: Played, target: Mapping[int, float], players: int) -> float:
    """How far the bot's share of tables of `players` would be below target after one more
    match elsewhere: positive when it needs that size. A share, not a count, so a bot is
    not seated first for having played more; a new bot lacks every size by its target
    share, the largest most, so a new ladder starts at big tables (they tell the
    ratings most)."""
    total = sum(played.values())
    return target.get(players, 0.0) - games_at(played, players) / (total + 1)


def deal_seats(bots: Sequence[int], played: Mapping[int, Played], rng: random.Random) -> list[int]:
    """`bots` in seat order: the order in which they have sat, together, least often at
    this table size (the sum of each one's count at its seat), a tie drawn at random.

    Every order is tried: tables have at most 5 seats (120 orders, well under a
    millisecond). A bot new to this size has sat nowhere, so it is seated at random.
    """
    size = len(bots)
    counts = [[played.get(v, {}).get((size, seat), 0) for seat in range(size)] for v in bots]
    best: tuple[int, float] | None = None
    order: tuple[int, ...] = tuple(range(size))
    for perm in itertools.permutations(range(size)):  # perm[seat] = index into bots
        key = (sum(counts[i][seat] for seat, i in enumerate(perm)), rng.random())
        if best is None or key < best:
            best, order = key, perm
    return [bots[i] for i in order]


def mix_of(played: Played) -> tuple[dict[int, float], dict[tuple[int, int], float]]:
    """A bot's shares: of its matches at each size, and of its matches at each size in
    each seat (empty while it has none)."""
    total = sum(played.values())
    sizes = sorted({size for size, _ in played})
    by_size = {s: games_at(played, s) / total for s in sizes} if total else {}
    by_seat = {
        (size, seat): n / games_at(played, size)
        for (size, seat), n in sorted(played.items())
        if games_at(played, size)
    }
    return by_size, by_seat
