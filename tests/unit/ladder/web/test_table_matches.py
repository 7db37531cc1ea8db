"""A live table's match wherever matches are listed: a person's seat is named (the match
page, the match JSON and its lists, the bot page, the replay viewer's summary), and the
match says it was played at a live table. The table itself is test_table_pages.py."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import delete

from ladder.models import User
from ladder.queries import boards
from ladder.queries import tables as table_queries
from tests.unit.ladder.conftest import login, make_active_bot
from tests.unit.ladder.helpers import finished_table


@pytest.fixture
def played(session, config, alice):
    """Alice (seat 0) against her own bot `mine` (seat 1), finished."""
    mine = make_active_bot(session, config, alice, name="mine")
    table, match = finished_table(session, config, alice, [mine.id])
    return {"table": table, "match": match, "mine": mine}


def test_the_api_lists_the_persons_seat(client, played):
    match, mine = played["match"], played["mine"]
    person, bot = client.get(f"/api/v1/matches/{match.id}").get_json()["seats"]
    assert person["seat"] == 0 and person["person"] == "alice"
    assert [person[k] for k in ("bot_id", "bot", "owner", "version_id", "version")] == [None] * 5
    assert person["status"] == "ok" and person["rank"] in (1, 2)
    assert (bot["person"], bot["bot"], bot["owner"], bot["version_id"]) == (
        None,
        "mine",
        "alice",
        mine.id,
    )
    for url in ("/api/v1/matches?game=toyrace", f"/api/v1/matches?bot={mine.bot_id}"):
        (listed,) = client.get(url).get_json()["matches"]
        assert listed["id"] == match.id
        assert [s["person"] for s in listed["seats"]] == ["alice", None]


def test_the_match_page_names_the_person_and_links_the_table(client, played):
    match, table = played["match"], played["table"]
    page = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert f'<a id="live-table" href="/tables/{table.id}">live table #{table.id}</a>' in page
    assert "<th>Player</th>" in page
    assert re.search(r'<td class="person">alice <span class="muted">\(person\)</span></td>', page)
    assert 'href="/bots/' in page and ">mine</a>" in page
    assert "Stderr of your bot" not in page  # an anonymous reader sees no one's stderr


def test_the_person_sees_themselves_and_their_bots_stderr(client, played):
    match = played["match"]
    login(client)
    page = client.get(f"/matches/{match.id}").get_data(as_text=True)
    assert '<a href="/account#live-tables">alice</a> <span class="muted">(you)</span>' in page
    # The person's seat holds no version: the owner's stderr is the bot's, seat 1.
    assert 'id="stderr-seat-1">Stderr of your bot mine v1 (seat 1, ok)' in page
    assert "thinking about the race" in page and 'id="stderr-seat-0"' not in page


def test_lists_and_the_bot_page_show_the_person(client, played):
    match, mine = played["match"], played["mine"]
    seat = re.compile(r"alice <span class=\"muted\">\(person\)</span>( \(\d\))?, <a href=\"/bots/")
    for url in ("/matches", "/matches?game=toyrace", f"/matches?bot={mine.bot_id}"):
        page = client.get(url).get_data(as_text=True)
        assert f'href="/matches/{match.id}"' in page and seat.search(page), url
    page = client.get(f"/bots/{mine.bot_id}").get_data(as_text=True)
    assert seat.search(page)
    assert "At 1 finished live table, against 1 people's seat:" in page


def test_the_replay_summary_names_the_person(client, played):
    """The viewer names seats by the replay's labels: the table runner's, a person's
    username (`table_play.play_table`), as the stand-in runner `played_out` writes them."""
    match, mine = played["match"], played["mine"]
    summary = client.get(f"/matches/{match.id}/replay/summary.json").get_json()
    assert summary["seats"] == ["alice", mine.seat_label]
    assert summary["statuses"] == ["ok", "ok"] and len(summary["ranks"]) == 2


def test_a_person_whose_account_is_gone_is_a_former_player(session, config, alice, bob, house):
    table, match = finished_table(
        session, config, alice, [None, "greedy"], players=3, joiners=[bob]
    )
    session.execute(delete(User).where(User.id == bob.id))  # match_seats.user_id: SET NULL
    session.commit()
    session.expire_all()
    seats = boards.match_detail(session, match)["seats"]
    assert [s["person"] for s in seats] == ["alice", boards.FORMER_PLAYER, None]
    assert seats[2]["bot"] == "greedy"
    made = boards.match_table(session, match, seats, config["HOUSE_USER"])
    assert (made["kind"], made["table_id"], made["shared_owners"]) == ("table", table.id, [])
    record = table_queries.record_against_people(session, house["greedy"].bot_id)
    assert (record["tables"], record["met"]) == (1, 2)  # the former player's seat counts
