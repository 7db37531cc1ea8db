"""A bot's record by table size and seat (`queries.table_mix`): the figures from real
rated matches, the bot page's two tables, the API's `table_record`, and the kept page
made again when a rated match changes them."""

from __future__ import annotations

import html
import re

import pytest

from ladder.queries import table_mix
from ladder.services import matches
from tests.unit.ladder.conftest import (
    hand_clocked_cache,
    make_active_bot,
    make_user,
)
from tests.unit.ladder.helpers import outcome_for


def play(session, config, versions, ranks, statuses=None, ranked=True):
    match = matches.create_match(session, config, "toyrace", versions, ranked=ranked)
    matches.record_match(session, config, match.id, outcome_for(match, ranks, statuses))
    session.commit()


@pytest.fixture
def ladder(session, config):
    """Bot a of three owners' bots (toyrace seats 2 to 4, target 2 : 3 : 4): v1 wins at
    seat 0 of three and comes second at seat 2 of three; its v2 crashes at seat 1 of two.
    A challenge (unrated) and b's and c's seats count for nobody but them."""
    a1, b, c = (
        make_active_bot(session, config, make_user(session, f"owner-{n}"), name=n) for n in "abc"
    )
    play(session, config, [a1.id, b.id, c.id], [1, 2, 3])
    play(session, config, [b.id, c.id, a1.id], [1, 3, 2])
    a2 = make_active_bot(session, config, a1.bot.owner, name="a")  # its second version
    assert a2.bot_id == a1.bot_id and a2.number == 2
    play(session, config, [c.id, a2.id], [1, 2], ["ok", "crash"])
    play(session, config, [a2.id, b.id], [1, 2], ranked=False)
    return {"a": a1.bot_id, "b": b.bot_id, "versions": {"a": a2.id, "b": b.id, "c": c.id}}


def line(games, wins, mean_rank, faults, share, target, **where):
    return {
        **where,
        "games": games,
        "wins": wins,
        "mean_rank": mean_rank,
        "faults": faults,
        "share": share,
        "target": target,
    }


EXPECTED = {
    "games": 3,
    "sizes": [
        line(1, 0, 2.0, 1, 0.333, 0.222, players=2),
        line(2, 1, 1.5, 0, 0.667, 0.333, players=3),
        line(0, 0, None, 0, 0.0, 0.444, players=4),
    ],
    "seats": [
        line(0, 0, None, 0, 0.0, 0.5, players=2, seat=0),
        line(1, 0, 2.0, 1, 1.0, 0.5, players=2, seat=1),
        line(1, 1, 1.0, 0, 0.5, 0.333, players=3, seat=0),
        line(0, 0, None, 0, 0.0, 0.333, players=3, seat=1),
        line(1, 0, 2.0, 0, 0.5, 0.333, players=3, seat=2),
        *(line(0, 0, None, 0, None, 0.25, players=4, seat=s) for s in range(4)),
    ],
}


def test_the_record_counts_every_versions_rated_matches_by_size_and_seat(session, ladder):
    assert table_mix.table_record(session, ladder["a"], "toyrace") == EXPECTED


def test_a_bot_without_rated_matches_has_every_size_and_seat_at_nought(session, config):
    fresh = make_active_bot(session, config, make_user(session, "owner-d"), name="d")
    record = table_mix.table_record(session, fresh.bot_id, "toyrace")
    assert record["games"] == 0
    assert [(r["players"], r["games"], r["share"]) for r in record["sizes"]] == [
        (2, 0, None),
        (3, 0, None),
        (4, 0, None),
    ]
    assert len(record["seats"]) == 2 + 3 + 4
    assert all(r["games"] == 0 and r["mean_rank"] is None for r in record["seats"])


def rows(page: str, table_id: str) -> list[list[str]]:
    """The cells of a table of the page, row by row, as text (a cell's folded line left
    out: it repeats what the wide columns show)."""
    found = re.search(rf'<table[^>]*id="{table_id}"[^>]*>(.*?)</table>', page, re.S)
    assert found, f"no table {table_id}"
    body = re.sub(r'<span class="fold">(<span>[^<]*</span>|[^<])*</span>', "", found.group(1))
    return [
        [html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in cells]
        for cells in (
            re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
        )
    ]


def test_the_bot_page_shows_the_record_by_size_and_by_seat(client, ladder):
    page = client.get(f"/bots/{ladder['a']}").get_data(as_text=True)
    assert '<h2 id="tables-played">Tables played</h2>' in page
    assert "<caption>By table size</caption>" in page
    assert "<caption>By seat at each table size</caption>" in page
    header = ["Players", "Games", "Wins", "Mean rank", "Faults", "Share", "Target"]
    assert rows(page, "record-by-size") == [
        header,
        ["2", "1", "0", "2.00", "1", "33 %", "22 %"],
        ["3", "2", "1", "1.50", "0", "67 %", "33 %"],
        ["4", "0", "0", "—", "0", "0 %", "44 %"],
    ]
    by_seat = rows(page, "record-by-seat")
    assert by_seat[0] == ["Seat", *header[1:]]
    assert by_seat[1:7] == [
        ["2 players: 1 game"],
        ["seat 0", "0", "0", "—", "0", "0 %", "50 %"],
        ["seat 1", "1", "0", "2.00", "1", "100 %", "50 %"],
        ["3 players: 2 games"],
        ["seat 0", "1", "1", "1.00", "0", "50 %", "33 %"],
        ["seat 1", "0", "0", "—", "0", "0 %", "33 %"],
    ]
    assert by_seat[-1] == ["seat 3", "0", "0", "—", "0", "—", "25 %"]
    # Real headers for screen readers: column heads, a row's head, a size's group.
    assert page.count('<th scope="col"') == 14
    assert '<th colspan="7" scope="rowgroup">4 players: 0 games</th>' in page
    # On a phone the wins and faults fold under the row's head.
    fold = '<span class="fold"><span>0 wins</span> · <span>1 fault</span></span>'
    assert f'<th scope="row">seat 1{fold}</th>' in page


def test_a_bot_without_rated_matches_shows_the_target_instead(client, session, config):
    fresh = make_active_bot(session, config, make_user(session, "owner-d"), name="d")
    page = client.get(f"/bots/{fresh.bot_id}").get_data(as_text=True)
    assert 'id="record-by-size"' not in page
    assert (
        "No rated ladder match yet. The ladder deals every bot 2-player tables 22 %,"
        " 3-player tables 33 %, 4-player tables 44 % of its matches" in page
    )


def test_the_api_gives_the_record_as_table_record(client, ladder):
    got = client.get(f"/api/v1/bots/{ladder['a']}")
    assert got.status_code == 200
    assert got.get_json()["table_record"] == EXPECTED
    other = client.get(f"/api/v1/bots/{ladder['b']}").get_json()["table_record"]
    assert other["games"] == 2  # the challenge is not rated


def test_a_rated_match_remakes_the_kept_page_and_answer(app, client, session, config, ladder):
    hand = hand_clocked_cache(app, PAGE_CACHE_S=5, PAGE_CACHE_DONE_S=300)
    urls = [f"/bots/{ladder['a']}", f"/api/v1/bots/{ladder['a']}"]
    first = [client.get(url).data for url in urls]
    hand.now += 60  # past PAGE_CACHE_S: nothing changed, both are kept
    assert [client.get(url).data for url in urls] == first
    v = ladder["versions"]
    play(session, config, [v["b"], v["c"], v["a"]], [2, 3, 1])
    hand.now += 5
    page = client.get(urls[0]).get_data(as_text=True)
    assert ["3", "3", "2", "1.33", "0", "75 %", "33 %"] in rows(page, "record-by-size")
    assert client.get(urls[1]).get_json()["table_record"]["games"] == 4
