"""The collusion check for staff: pairs of owners whose results together beat their ratings.

Gathers a game's finished rated matches, with each seat's rating before the
match, and hands every pair of owners seated together to
`ranking.collusion` (the statistic and its correction are documented there).

Owners. Accounts registered from one address within 24 hours of each other
(chained: a second account within a day of the first, a third within a day of
the second) are one *owner group*: one person with several accounts is one
owner here. So pairs are of two kinds:
- `owners`: two owner groups, in the matches where each has exactly one seat
  (a match where a group has two seats is left out of that pair's sum: its
  two accounts are examined as a pair of their own);
- `one address`: two accounts of one owner group, examined as a pair too.
Two seats of one account, and the house account's bots (ours, trusted), make
no pair; they still count as opponents in every prediction. A rated match is
used when it finished, moved ratings (no `unrated_reason`) and every seat has
its rating before it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import combinations, pairwise

from sqlalchemy import select
from sqlalchemy.orm import Session

from ladder.models import Bot, BotVersion, Match, MatchSeat, MatchState, User, version_label
from ladder.ranking import collusion
from ladder.settings import Settings

SAME_ADDRESS_WINDOW = timedelta(hours=24)
OWNERS = "owners"
ONE_ADDRESS = "one address"


@dataclass(frozen=True)
class SeatRow:
    """One seat of a gathered match."""

    seat: int
    owner_id: int
    label: str  # owner/name vN
    rank: int
    mu: float
    sigma: float


@dataclass(frozen=True)
class SharedMatch:
    """One match behind a pair's figure, as the page lists it."""

    match_id: int
    finished_at: datetime | None
    players: int
    first: SeatRow
    second: SeatRow
    surprise: float  # places the first finished further behind the second than predicted


@dataclass
class PairReport:
    """One pair examined: who, which kind, the statistic and the matches behind it."""

    kind: str
    first: str  # owner group labels (or usernames, for a pair of one address)
    second: str
    evidence: collusion.Evidence
    shared: list[SharedMatch] = field(default_factory=list)

    @property
    def helper(self) -> str:
        return self.first if self.evidence.z >= 0 else self.second

    @property
    def beneficiary(self) -> str:
        return self.second if self.evidence.z >= 0 else self.first


@dataclass
class Report:
    """What the check found for one game."""

    game: str
    alpha: float
    min_matches: int
    matches: int  # rated matches gathered
    pairs: list[PairReport]  # tested pairs, most surprising first
    untested: int  # pairs seen together fewer than min_matches times

    @property
    def flagged(self) -> list[PairReport]:
        return [p for p in self.pairs if p.evidence.flagged]


def owner_groups(session: Session) -> dict[int, tuple[int, ...]]:
    """Account id -> the ids of its owner group (accounts registered from one address
    within SAME_ADDRESS_WINDOW of each other, chained), sorted; alone, just itself."""
    rows = session.execute(
        select(User.id, User.registered_from, User.created_at).order_by(
            User.registered_from, User.created_at, User.id
        )
    ).all()
    parent = {row.id: row.id for row in rows}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for before, after in pairwise(rows):
        same = before.registered_from and before.registered_from == after.registered_from
        if same and after.created_at - before.created_at <= SAME_ADDRESS_WINDOW:
            parent[root(after.id)] = root(before.id)
    members: dict[int, list[int]] = defaultdict(list)
    for i in parent:
        members[root(i)].append(i)
    return {i: tuple(sorted(members[root(i)])) for i in parent}


def _matches(session: Session, game: str, since: datetime | None) -> dict[int, dict]:
    """Finished rated matches of `game` that moved ratings: id -> facts and seats."""
    query = (
        select(
            Match.id,
            Match.finished_at,
            Match.players,
            MatchSeat.seat,
            MatchSeat.rank,
            MatchSeat.mu_before,
            MatchSeat.sigma_before,
            Bot.owner_id,
            Bot.name,
            BotVersion.number,
            User.username,
        )
        .join(MatchSeat, MatchSeat.match_id == Match.id)
        .join(BotVersion, MatchSeat.version_id == BotVersion.id)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .join(User, Bot.owner_id == User.id)
        .where(
            Match.game == game,
            Match.state == MatchState.FINISHED,
            Match.ranked.is_(True),
            Match.unrated_reason.is_(None),
        )
        .order_by(Match.id, MatchSeat.seat)
    )
    if since is not None:
        query = query.where(Match.finished_at >= since)
    found: dict[int, dict] = {}
    for row in session.execute(query):
        match = found.setdefault(
            row.id, {"finished_at": row.finished_at, "players": row.players, "seats": []}
        )
        if row.rank is None or row.mu_before is None or row.sigma_before is None:
            match["incomplete"] = True
            continue
        label = version_label(row.name, row.number, row.username)
        match["seats"].append(
            SeatRow(row.seat, row.owner_id, label, row.rank, row.mu_before, row.sigma_before)
        )
    return {
        i: m
        for i, m in found.items()
        if not m.get("incomplete") and len(m["seats"]) == m["players"] >= 2
    }


def examine(
    session: Session,
    settings: Settings,
    game: str,
    alpha: float = collusion.ALPHA,
    since: datetime | None = None,
    min_matches: int = collusion.MIN_MATCHES,
) -> Report:
    """Every pair of owners seated together in `game`'s rated matches (since `since`),
    tested and corrected for their number; `Report.flagged` are the pairs to look at."""
    groups = owner_groups(session)
    names = dict(session.execute(select(User.id, User.username)).all())
    house = settings.house_user
    gathered = _matches(session, game, since)
    pairs: dict[tuple, PairReport] = {}
    for match_id, match in gathered.items():
        seats: list[SeatRow] = match["seats"]
        model = None
        for x, y in combinations(range(len(seats)), 2):
            key = _pair_key(seats, x, y, groups, names, house)
            if key is None:
                continue
            a, b = (x, y) if _side(seats[x], key, groups) == 0 else (y, x)
            if model is None:
                model = collusion.TableModel([s.mu for s in seats], [s.sigma for s in seats])
            term = collusion.term(match_id, model, [s.rank for s in seats], a, b)
            report = pairs.get(key)
            if report is None:
                report = pairs[key] = PairReport(
                    key[0], _label(key[1], names), _label(key[2], names),
                    collusion.Evidence(key[1], key[2]),
                )  # fmt: skip
            report.evidence.terms.append(term)
            shared = SharedMatch(
                match_id, match["finished_at"], match["players"], seats[a], seats[b],
                term.surprise,
            )  # fmt: skip
            report.shared.append(shared)
    collusion.judge([p.evidence for p in pairs.values()], alpha, min_matches)
    tested = sorted(
        (p for p in pairs.values() if p.evidence.tested),
        key=lambda p: (p.evidence.p, -p.evidence.matches, p.first, p.second),
    )
    return Report(game, alpha, min_matches, len(gathered), tested, len(pairs) - len(tested))


def _pair_key(
    seats: list[SeatRow], x: int, y: int, groups: dict, names: dict, house: str
) -> tuple | None:
    """(kind, first, second) for two seats of a match, or None if they make no pair."""
    one, two = seats[x].owner_id, seats[y].owner_id
    if one == two or house in (names.get(one), names.get(two)):
        return None
    g1, g2 = groups.get(one, (one,)), groups.get(two, (two,))
    if g1 == g2:
        return (ONE_ADDRESS, (min(one, two),), (max(one, two),))
    # A group with two seats here: which of its seats is "the" one is not clear.
    for group in (g1, g2):
        if sum(groups.get(s.owner_id, (s.owner_id,)) == group for s in seats) > 1:
            return None
    return (OWNERS, *sorted((g1, g2)))


def _side(seat: SeatRow, key: tuple, groups: dict) -> int:
    """0 if `seat` is on the first side of pair `key`, else 1."""
    if key[0] == ONE_ADDRESS:
        return 0 if (seat.owner_id,) == key[1] else 1
    return 0 if groups.get(seat.owner_id, (seat.owner_id,)) == key[1] else 1


def _label(members: tuple[int, ...], names: dict) -> str:
    return " + ".join(sorted(names.get(i, f"#{i}") for i in members))


def as_json(report: Report) -> dict:
    """The report as plain JSON-able data (the CLI's --json)."""
    return {
        "game": report.game,
        "alpha": report.alpha,
        "min_matches": report.min_matches,
        "matches": report.matches,
        "untested": report.untested,
        "pairs": [
            {
                "kind": p.kind,
                "first": p.first,
                "second": p.second,
                "helper": p.helper,
                "beneficiary": p.beneficiary,
                "matches": p.evidence.matches,
                "z": round(p.evidence.z, 3),
                "p": p.evidence.p,
                "adjusted_p": p.evidence.adjusted,
                "flagged": p.evidence.flagged,
                "shared": [
                    {
                        "match": s.match_id,
                        "first": s.first.label,
                        "first_rank": s.first.rank,
                        "second": s.second.label,
                        "second_rank": s.second.rank,
                        "players": s.players,
                        "surprise": round(s.surprise, 3),
                    }
                    for s in p.shared
                ],
            }
            for p in report.pairs
        ],
    }
