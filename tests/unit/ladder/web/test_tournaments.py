"""Tournament pages with the Flask test client: list, page, staff and owner forms."""

from __future__ import annotations

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
