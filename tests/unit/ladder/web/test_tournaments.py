"""Tournament pages with the Flask test client: list, page, staff and owner forms."""

from __future__ import annotations

import re

from ladder.models import TournamentState
from ladder.queries import tournaments as tournament_queries
from ladder.services import matches, tournaments
from tests.unit.ladder.conftest import csrf_token, login, make_active_bot, make_user
from tests.unit.ladder.helpers import outcome_for


def make_staff(session, name="sam"):
    user = make_user(session, name)
    user.is_staff = True
    session.commit()
    return user


def test_staff_create_open_house_start_and_owner_enter(client, session, config, alice):
    make_staff(session)
    demo = make_user(session, "demo")
    house = [make_active_bot(session, config, demo, name=f"house{i}") for i in range(2)]
    mine = make_active_bot(session, config, alice, name="mine")
    login(client, "sam")
    token = csrf_token(client, "/tournaments/new")
    page = client.post(
        "/tournaments/new",
        data={"name": "Winter cup", "game": "toyrace", "format": "round-robin",
              "table_size": "3", "csrf_token": token},
        follow_redirects=True,
    )  # fmt: skip
    assert "Winter cup" in page.get_data(as_text=True)
    t = session.scalars(tournaments.select(tournaments.Tournament)).one()
    url = f"/tournaments/{t.id}"
    client.post(f"{url}/open", data={"csrf_token": csrf_token(client, url)})
    session.refresh(t)
    assert t.state == TournamentState.OPEN
    for v in house:
        client.post(
            f"{url}/house", data={"version_id": v.id, "csrf_token": csrf_token(client, url)}
        )
    client.post("/logout", data={"csrf_token": csrf_token(client, url)})
    login(client, "alice")
    page = client.get(url).get_data(as_text=True)
    assert "Enter</button>" in page and "Start</button>" not in page
    client.post(f"{url}/enter", data={"bot_id": mine.bot_id, "csrf_token": csrf_token(client, url)})
    assert (
        client.post(f"{url}/start", data={"csrf_token": csrf_token(client, url)}).status_code == 403
    )
    client.post("/logout", data={"csrf_token": csrf_token(client, url)})
    login(client, "sam")
    client.post(f"{url}/start", data={"csrf_token": csrf_token(client, url)})
    session.refresh(t)
    assert t.state == TournamentState.RUNNING
    for match in tournament_queries.slots(session, t.id).values():
        matches.record_match(session, config, match.id, outcome_for(match, [1, 2, 3]))
    tournaments.advance(session, config, t.id)
    session.commit()
    page = client.get(url).get_data(as_text=True)
    assert "Standings" in page and "mine" in page and "house1" in page
    assert (
        f'href="/matches/{next(iter(tournament_queries.slots(session, t.id).values())).id}"' in page
    )
    listing = client.get("/tournaments").get_data(as_text=True)
    assert "Winter cup" in listing
    bot_page = client.get(f"/bots/{mine.bot_id}").get_data(as_text=True)
    assert "Winter cup" in bot_page


def test_forms_need_staff_and_csrf(client, session, config, alice):
    staff = make_staff(session)
    t = tournaments.create_tournament(session, staff, "Cup", "toyrace")
    session.commit()
    login(client, "alice")
    assert client.get("/tournaments/new").status_code == 403
    assert client.post(f"/tournaments/{t.id}/open").status_code in (400, 403)
    client.post("/logout", data={"csrf_token": csrf_token(client, "/tournaments")})
    login(client, "sam")
    client.post(f"/tournaments/{t.id}/open", data={})  # no CSRF token: nothing happens
    session.refresh(t)
    assert t.state == TournamentState.DRAFT


def test_elimination_page_draws_a_bracket(client, session, config):
    staff = make_staff(session)
    demo = make_user(session, "demo")
    t = tournaments.create_tournament(session, staff, "KO", "toyrace", "elimination", table_size=2)
    tournaments.open_tournament(session, staff, t.id)
    session.commit()
    for i in range(4):
        v = make_active_bot(session, config, demo, name=f"h{i}")
        tournaments.add_house_bot(session, config, staff, t.id, v.id)
    tournaments.start(session, config, staff, t.id)
    session.commit()
    page = client.get(f"/tournaments/{t.id}").get_data(as_text=True)
    assert 'class="bracket"' in page and "Final" in page
    assert "style=" not in page and "<script>" not in page
    assert client.get("/tournaments/999").status_code == 404


def _squash(html: str) -> str:
    """The page's words: tags and runs of white space as one space."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _rules_said(page: str) -> None:
    """The page shows the tournament rules: every points row, the bye, the tie-breaks in
    order and the site's rule for a failed match (the numbers: test_rules.py)."""
    said = _squash(page)
    assert "How tournaments are scheduled and scored" in said
    for row in ("2 2 0", "3 3 1 0", "4 4 2 1 0", "5 5 3 2 1 0"):
        assert re.search(rf"\b{row}\b", said), row
    assert "(4 + 2 + 1 + 0) / 4 = 1.75 at tables of 4" in said
    steps = [said.index(f"{n} ") for n in ("points;", "mean game score", "head to head among")]
    assert steps == sorted(steps)
    assert "scores 0 in the game" in said


def test_tournament_pages_say_how_tournaments_are_scored(client, session, config):
    staff = make_staff(session)
    demo = make_user(session, "demo")
    t = tournaments.create_tournament(session, staff, "Cup", "toyrace", table_size=3)
    tournaments.open_tournament(session, staff, t.id)
    for i in range(3):
        v = make_active_bot(session, config, demo, name=f"h{i}")
        tournaments.add_house_bot(session, config, staff, t.id, v.id)
    session.commit()
    _rules_said(client.get("/tournaments").get_data(as_text=True))
    page = client.get(f"/tournaments/{t.id}").get_data(as_text=True)
    _rules_said(page)
    # The tournament's own points row, in its settings and marked in the table.
    assert "Points per place</dt><dd>3 · 1 · 0" in page
    assert '<tr class="current"><td class="n">3</td>' in page
    login(client, "sam")
    form = client.get("/tournaments/new").get_data(as_text=True)
    _rules_said(form)
    assert "Rounds (optional; round robin: tables each bot plays)" in form
