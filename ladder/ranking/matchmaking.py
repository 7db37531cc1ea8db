"""Ladder matchmaking: choose the bots for one table. Pure: no database, no global random.

A table starts from a seed bot, drawn with a bias towards bots that have played
the fewest games, so new versions get rated quickly. The other seats go to bots
whose μ lies inside a random window around the seed's: close games tell
TrueSkill the most, and the random width keeps some variety.

The owner rule: no two bots of one owner sit at a rated table, whichever bots
or versions they are, so one person cannot seat two bots that play as a team.
House bots are exempt: they are ordinary ladder members of the house account,
may share a table with each other (only where the window lacks other owners),
and are never busy (they may sit at any number of tables at once). The table
size is drawn within the seats the rule leaves (`open_seats`: one per owner,
one per house bot); a ladder that cannot fill the game's smallest table gets
none (`make_table` returns None) and waits. Challenges and tournaments seat
whom they are given; this module does not choose for them.

Given each bot's table mix so far (`played`: rated matches by table size and seat),
a table also steers every bot toward its game's target mix (`ladder.ranking.table_mix`)
without choosing other bots than the mix-blind draw: the largest table it could have is
drawn as ever, a smaller one seats the bots of it furthest below target at that size,
the size they lack most wins, and the seats are dealt so each bot sits where it has sat
least. Without it, the size is drawn at random and the seats shuffled.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from ladder.ranking import table_mix
from ladder.ranking.ratings import BETA

# The window's half-width is this many "spreads" (see `_spread`), drawn uniformly.
WINDOW_RANGE = (0.5, 2.0)


@dataclass(frozen=True)
class Candidate:
    """One active bot version as matchmaking sees it."""

    version_id: int
    owner_id: int
    mu: float
    sigma: float
    games: int
    house: bool = False

    def __post_init__(self) -> None:
        if not (math.isfinite(self.mu) and math.isfinite(self.sigma)) or self.sigma <= 0:
            raise ValueError(
                f"version {self.version_id}: μ must be finite and σ finite and positive, "
                f"not μ={self.mu!r} σ={self.sigma!r}"
            )
        if isinstance(self.games, bool) or not isinstance(self.games, int) or self.games < 0:
            raise ValueError(
                f"version {self.version_id}: games must be a count, not {self.games!r}"
            )


def make_table(
    candidates: Sequence[Candidate],
    min_players: int,
    max_players: int,
    rng: random.Random,
    busy: Collection[int] = (),
    played: Mapping[int, table_mix.Played] | None = None,
    target: Mapping[int, float] | None = None,
) -> list[int] | None:
    """Version ids for one table in seat order, owners apart; None when too few can play.

    `busy` holds version ids already at a table; they sit this one out unless
    they are house bots. None exactly when `open_seats` is below `min_players`.
    With `played` (by version id; a bot missing has played nothing) the table
    balances the bots' mixes toward `target` (a share per table size; by default
    every size from `min_players` to `max_players` equally).
    """
    _check_players(min_players, max_players)
    if not isinstance(rng, random.Random):
        raise TypeError(f"rng must be a random.Random, not {type(rng).__name__}")
    _check_unique(candidates)
    eligible = [c for c in candidates if c.house or c.version_id not in busy]
    room = _room(eligible)
    if room < min_players:
        return None
    if played is not None:
        return _mixed_table(eligible, min_players, min(max_players, room), rng, played, target)
    size = rng.randint(min_players, min(max_players, room))
    seed = _pick_seed(eligible, rng)
    table = [seed, *_fill(seed, _others(seed, eligible), size - 1, rng)]
    rng.shuffle(table)  # no bot keeps the first seat just for being the seed
    return [c.version_id for c in table]


def _mixed_table(
    eligible: list[Candidate],
    min_players: int,
    max_players: int,
    rng: random.Random,
    played: Mapping[int, table_mix.Played],
    target: Mapping[int, float] | None,
) -> list[int]:
    """`make_table` steering the bots' mixes. `max_players` is what the owners allow.

    The bots are drawn as without the mix: the seed, and the largest table's others from
    its window in random order (`_fill`). At each size the neediest of those sit (the
    bots furthest below target at that size), so the largest table is exactly the one
    the mix-blind matchmaking would seat there and a smaller one a part of it: near μ
    as ever, only not a random part. The size played is the one the table lacks most:
    the seed's deficit plus the mean of those others' (a tie drawn at random). One set
    of bots judges every size: judging each by the bots it seats, a small table's mean
    of fewer bots would vary more, and taking the largest would favour small tables,
    which tell the ratings less. The seed's wish weighs as much as the others': a bot
    with many games is seldom the seed, and a bot that is mostly the seed (a house bot,
    seated beside others only where owners are lacking) would be outvoted by a mean of
    all seats. Last, the seats are dealt where each bot has sat least
    (`table_mix.deal_seats`), which changes nothing the ratings learn.
    """
    goal = target or table_mix.even_tables(min_players, max_players)
    seed = _pick_seed(eligible, rng)
    others = _fill(seed, _others(seed, eligible), max_players - 1, rng)
    best: list[tuple[float, list[Candidate]]] = []
    for size in range(min_players, max_players + 1):

        def need(c: Candidate, size: int = size) -> float:
            return table_mix.size_deficit(played.get(c.version_id, {}), goal, size)

        table = [seed, *_choose(seed, sorted(others, key=need, reverse=True), size - 1)]
        best.append((need(seed) + sum(map(need, others)) / max(1, len(others)), table))
    top = max(score for score, _ in best)
    table = rng.choice([t for score, t in best if score >= top - 1e-9])
    return table_mix.deal_seats([c.version_id for c in table], played, rng)


def _others(seed: Candidate, eligible: list[Candidate]) -> list[Candidate]:
    """The bots that may join the seed: not itself, and (but for house bots) none of
    its owner's. They leave room - 1 seats, whatever the seed: its owner counts once."""
    return [
        c
        for c in eligible
        if c.version_id != seed.version_id
        and (seed.house or c.house or c.owner_id != seed.owner_id)
    ]


def open_seats(candidates: Sequence[Candidate], busy: Collection[int] = ()) -> int:
    """The most seats one table can fill under the owner rule: one per owner with a bot
    not busy, and one per house bot."""
    return _room([c for c in candidates if c.house or c.version_id not in busy])


def _room(bots: Sequence[Candidate]) -> int:
    return sum(c.house for c in bots) + len({c.owner_id for c in bots if not c.house})


def _owner(c: Candidate) -> tuple[bool, int]:
    """Whose bot this is, for preferring owners not yet seated (the house is one owner)."""
    return (c.house, c.owner_id)


def _check_players(min_players: int, max_players: int) -> None:
    for value in (min_players, max_players):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"player counts must be integers, not {value!r}")
    if min_players < 2:
        raise ValueError(f"a rated table needs at least two seats, not {min_players}")
    if max_players < min_players:
        raise ValueError(f"max_players {max_players} is below min_players {min_players}")


def _check_unique(candidates: Sequence[Candidate]) -> None:
    seen: set[int] = set()
    for c in candidates:
        if c.version_id in seen:
            raise ValueError(f"version {c.version_id} is listed twice")
        seen.add(c.version_id)


def _pick_seed(eligible: list[Candidate], rng: random.Random) -> Candidate:
    """A bot drawn with weight 1 / (1 + games beyond the fewest anyone has played)."""
    fewest = min(c.games for c in eligible)
    weights = [1.0 / (1 + c.games - fewest) for c in eligible]
    return rng.choices(eligible, weights=weights)[0]


def _spread(seed: Candidate) -> float:
    """How far apart μ may be and still make a close game: wider while the seed is unsure."""
    return math.hypot(BETA, seed.sigma)


def _fill(
    seed: Candidate, others: list[Candidate], seats: int, rng: random.Random
) -> list[Candidate]:
    """`seats` bots near the seed's μ, one per owner, and house bots beside each other
    only where the window lacks owners.

    `others` hold no bot of a (non-house) seed's owner, and leave room for `seats`.
    """
    return _choose(seed, _window(seed, others, seats, rng), seats)


def _window(
    seed: Candidate, others: list[Candidate], seats: int, rng: random.Random
) -> list[Candidate]:
    """The bots of `others` inside a random window around the seed's μ, widened until
    it holds room for `seats` and as many new owners as there are; in random order."""
    # Distinct owners are still preferred among house bots too (the house counts as one
    # owner here): a ladder of many owners is not filled up with the house's bots.
    owners_elsewhere = {_owner(c) for c in others} - {_owner(seed)}
    wanted_owners = min(seats, len(owners_elsewhere))
    half = rng.uniform(*WINDOW_RANGE) * _spread(seed)
    while True:
        inside = [c for c in others if abs(c.mu - seed.mu) <= half]
        new_owners = {_owner(c) for c in inside} - {_owner(seed)}
        if _room(inside) >= seats and len(new_owners) >= wanted_owners:
            break
        half *= 2  # too few fit: widen; ends once the window holds every bot
    rng.shuffle(inside)
    return inside


def _choose(seed: Candidate, inside: list[Candidate], seats: int) -> list[Candidate]:
    """`seats` of the window's bots, in its order: one per owner not yet at the table,
    then more house bots, the only ones whose owner may repeat."""
    chosen: list[Candidate] = []
    seated_owners = {_owner(seed)}
    for c in inside:
        if len(chosen) == seats:
            return chosen
        if _owner(c) not in seated_owners:
            chosen.append(c)
            seated_owners.add(_owner(c))
    taken = {c.version_id for c in chosen}
    for c in inside:
        if len(chosen) == seats:
            break
        if c.house and c.version_id not in taken:
            chosen.append(c)
    return chosen
