"""The collusion check's query: owner groups by registration address, the matches it
uses and leaves out, the pairs it forms and flags; the registration address stored."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from ladder import create_app
from ladder.models import User
from ladder.queries import collusion
from ladder.services import accounts
from tests.unit.ladder import collusion_ladder
from tests.unit.ladder.conftest import csrf_token


def test_the_planted_pair_is_flagged_with_its_matches_and_honest_pairs_are_not(session, config):
    ladder = collusion_ladder.build(session, config)
    report = collusion.examine(session, config, "toyrace")
    # 12 planted + 12 alone with the three; unranked, unrated and other games left out.
    assert report.matches == 24
    assert len(report.pairs) == 10 and report.untested == 0
    (flag,) = report.flagged
    assert (flag.kind, flag.helper, flag.beneficiary) == ("owners", "alice", "bob")
    assert flag.evidence.z == pytest.approx(36 / (12 * 10 / 3) ** 0.5)  # D = 3, Var D = 10/3
    assert [s.match_id for s in flag.shared] == ladder["planted"]
    assert {(s.first.label, s.first.rank, s.second.rank) for s in flag.shared} == {
        ("alice/b v1", 4, 1)
    }
    assert report.pairs[0] is flag
    assert all(p.evidence.z == pytest.approx(0.0) for p in report.pairs[1:])
    # With a stricter α than its corrected p-value, nothing is flagged.
    strict = collusion.examine(session, config, "toyrace", alpha=flag.evidence.adjusted / 2)
    assert strict.flagged == []


def test_pairs_need_enough_shared_matches_and_the_house_makes_none(session, config):
    ladder = collusion_ladder.build(session, config)
    report = collusion.examine(session, config, "toyrace", min_matches=13)
    # alice and bob share 12: untested, and not counted by Holm.
    assert sorted(p.evidence.matches for p in report.pairs) == [14] * 6 + [16] * 3
    assert report.untested == 1 and report.flagged == []
    assert ("alice", "bob") not in {(p.first, p.second) for p in report.pairs}
    # The house account's bots are opponents, never half of a pair.
    v = ladder["versions"]
    house = accounts.register(session, config["HOUSE_USER"], "correct horse")
    house_bot = collusion_ladder.make_active_bot(session, config, house).id
    for _ in range(12):
        collusion_ladder.played(session, [(house_bot, 1), (v["carol"], 2)])
    names = {p.first for p in collusion.examine(session, config, "toyrace").pairs}
    names |= {p.second for p in collusion.examine(session, config, "toyrace").pairs}
    assert config["HOUSE_USER"] not in names and "carol" in names


def test_accounts_from_one_address_within_a_day_are_one_owner(session, config):
    ladder = collusion_ladder.build(session, config)
    group = collusion_ladder.add_address_group(session, config, ladder["versions"])
    users = group["users"]
    groups = collusion.owner_groups(session)
    frank, grace, henry = (users[n].id for n in ("frank", "grace", "henry"))
    assert groups[frank] == groups[grace] == (frank, grace)
    assert groups[henry] == (henry,)  # same address, two days later
    alice = session.scalar(select(User.id).where(User.username == "alice"))
    assert groups[alice] == (alice,)
    report = collusion.examine(session, config, "toyrace")
    kinds = {(p.kind, p.first, p.second): p for p in report.pairs}
    own = kinds[("one address", "frank", "grace")]
    assert own.evidence.matches == 10 and own.helper == "frank" and own.evidence.z > 2
    # The group meets carol and dave as one owner, named by both accounts; the ten
    # matches where both its accounts sit with carol are not the group's.
    group_pairs = [p for p in report.pairs if "frank + grace" in (p.first, p.second)]
    assert sorted(p.evidence.matches for p in group_pairs) == [10, 10]
    assert {p.kind for p in group_pairs} == {"owners"}


def test_chained_registrations_join_one_group_and_unknown_addresses_none(session):
    made = [
        collusion_ladder.registered(session, "ann", "192.0.2.1", hours_ago=60),
        collusion_ladder.registered(session, "ben", "192.0.2.1", hours_ago=40),
        collusion_ladder.registered(session, "cat", "192.0.2.1", hours_ago=20),
        collusion_ladder.registered(session, "dan", None, hours_ago=20),
        collusion_ladder.registered(session, "eve", None, hours_ago=20),
    ]
    groups = collusion.owner_groups(session)
    ann, ben, cat, dan, eve = (u.id for u in made)
    assert groups[ann] == groups[cat] == (ann, ben, cat)  # 40 h apart, chained by ben
    assert groups[dan] == (dan,) and groups[eve] == (eve,)


def test_registration_keeps_the_client_address_behind_the_proxy(config):
    app = create_app({**config, "PROXY_HOPS": 1, "REGISTRATIONS_PER_HOUR": 5})
    client = app.test_client()
    for name, forwarded in (("alice", "203.0.113.5"), ("bob", "203.0.113.6")):
        form = {
            "username": name,
            "password": "correct horse",
            "confirm": "correct horse",
            "csrf_token": csrf_token(client, "/register"),
        }
        response = client.post(
            "/register",
            data=form,
            headers={"X-Forwarded-For": forwarded},
            environ_base={"REMOTE_ADDR": "127.0.0.1"},
        )
        assert response.status_code == 302
        client.post("/logout", data={"csrf_token": csrf_token(client, "/bots/mine")})
    with app.app_context():
        from ladder.extensions import db

        stored = dict(db.session.execute(select(User.username, User.registered_from)).all())
    assert stored == {"alice": "203.0.113.5", "bob": "203.0.113.6"}


def test_registration_without_a_proxy_keeps_the_peer_address(session, config):
    user = accounts.register_from(session, config, "alice", "correct horse", "192.0.2.44")
    assert session.get(User, user.id).registered_from == "192.0.2.44"
    assert accounts.register(session, "bob", "correct horse").registered_from is None
