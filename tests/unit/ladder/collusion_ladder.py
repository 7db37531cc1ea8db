"""A small recorded ladder with a planted kingmaker pair, for the collusion check's tests.

Every seat is rated 25 ± 2 before its match, so the ratings predict no gap between any
two seats. alice (the kingmaker) and bob (her sibling) share 12 four-seat matches with
two of carol, dave and erin: bob first, alice last. Alone with the three, alice wins
six and bob loses six, in rotations that make every other pair's gaps sum to exactly
zero. frank and grace registered from one address an hour apart (one owner group),
henry from it two days later (not of it); grace finishes just ahead of frank in their
ten matches together, with carol.
"""

from __future__ import annotations

from datetime import timedelta
from itertools import combinations

from sqlalchemy import update

from ladder.models import Match, MatchSeat, User, utcnow
from ladder.services import accounts
from tests.unit.ladder.conftest import make_active_bot

HONEST = ("carol", "dave", "erin")
SHARED_ADDRESS = "198.51.100.7"


def played(session, ranked_versions, *, ranked=True, unrated_reason=None, game="toyrace"):
    """A finished match: (version id, rank) per seat, every seat rated 25 ± 2 before it."""
    match = Match(
        game=game,
        seed=1,
        players=len(ranked_versions),
        ranked=ranked,
        state="finished",
        finished_at=utcnow(),
        unrated_reason=unrated_reason,
    )
    match.seats = [
        MatchSeat(seat=i, version_id=v, rank=r, status="ok", mu_before=25.0, sigma_before=2.0)
        for i, (v, r) in enumerate(ranked_versions)
    ]
    session.add(match)
    session.commit()
    return match.id


def registered(session, name, address, hours_ago):
    user = accounts.register(session, name, "correct horse", address=address)
    when = utcnow() - timedelta(hours=hours_ago)
    session.execute(update(User).where(User.id == user.id).values(created_at=when))
    session.commit()
    return user


def build(session, config) -> dict:
    """The ladder; returns version ids by owner name and the planted matches' ids."""
    names = ("alice", "bob", *HONEST)
    users = {n: accounts.register(session, n, "correct horse", address=f"10.0.0.{i}")
             for i, n in enumerate(names)}  # fmt: skip
    v = {n: make_active_bot(session, config, u).id for n, u in users.items()}
    planted = []
    for x, y in combinations(HONEST, 2):
        for k in range(4):
            second, third = (x, y) if k % 2 else (y, x)
            seats = [(v["alice"], 4), (v["bob"], 1), (v[second], 2), (v[third], 3)]
            planted.append(played(session, seats))
    rotations = [(2, 3, 4), (3, 4, 2), (4, 2, 3)] * 2
    for ranks in rotations:  # alice alone with the three: she wins
        played(session, [(v["alice"], 1), *zip((v[n] for n in HONEST), ranks, strict=True)])
    for ranks in rotations:  # bob alone with them: he loses
        others = zip((v[n] for n in HONEST), (r - 1 for r in ranks), strict=True)
        played(session, [(v["bob"], 4), *others])
    # Left out: an unranked match, a rated one that moved no rating, another game's.
    played(session, [(v["alice"], 4), (v["bob"], 1)], ranked=False)
    played(session, [(v["alice"], 4), (v["bob"], 1)], unrated_reason="replaced")
    played(session, [(v["alice"], 4), (v["bob"], 1)], game="othergame")
    return {"versions": v, "planted": planted}


def add_address_group(session, config, versions) -> dict:
    """frank and grace (one address, an hour apart) and henry (same address, two days on)."""
    frank = registered(session, "frank", SHARED_ADDRESS, hours_ago=50)
    grace = registered(session, "grace", SHARED_ADDRESS, hours_ago=49)
    henry = registered(session, "henry", SHARED_ADDRESS, hours_ago=1)
    ids = {u.username: make_active_bot(session, config, u).id for u in (frank, grace, henry)}
    carol, dave = versions["carol"], versions["dave"]
    for _ in range(10):  # grace always just ahead of frank: their own pair
        played(session, [(ids["grace"], 1), (ids["frank"], 2), (carol, 3)])
    for _ in range(5):  # frank with carol and dave, as predicted: the group's pairs
        played(session, [(ids["frank"], 1), (carol, 2), (dave, 3)])
        played(session, [(ids["frank"], 3), (carol, 2), (dave, 1)])
    return {"users": {"frank": frank, "grace": grace, "henry": henry}, "versions": ids}
