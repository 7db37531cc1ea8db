"""The front page: each block shows its real rows (matches finished and being played,
live tables, tournaments, each game's top bots, the newest bots, what skill means), a
fresh site's empty states, and the page kept for anonymous visitors like the others."""

from __future__ import annotations

import re
from datetime import datetime

import pytest

from ladder.models import LiveTableState, Match
from ladder.queries import home
from ladder.queries import tournaments as tournament_queries
from ladder.services import bots, matches, tables, tournaments
from ladder.web import cache, how_long_ago
from tests.unit.ladder.conftest import BOT_SOURCE, make_active_bot, override_settings
from tests.unit.ladder.helpers import outcome_for


def words(html: str) -> str:
    """The page's text: tags dropped, white space squashed (none before punctuation)."""
    said = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    return re.sub(r" ([,.;])", r"\1", said)


def block(page: str, title_id: str) -> str:
    """The front page's section whose heading has id `title_id`."""
    found = re.search(rf'<section aria-labelledby="{title_id}".*?</section>', page, re.S)
    assert found, f"no section {title_id}"
    return found.group(0)


def finish(session, config, versions, ranks, **kwargs) -> Match:
    match = matches.create_match(session, config, "toyrace", [v.id for v in versions], **kwargs)
    session.commit()
    matches.record_match(session, config, match.id, outcome_for(match, ranks))
    session.commit()
    return match


@pytest.fixture
def ladder(session, config, alice, bob):
    """Two owners' bots, matches finished, one being played, one queued."""
    a = make_active_bot(session, config, alice, name="anchor")
    b = make_active_bot(session, config, bob, name="barnacle")
    won = finish(session, config, [a, b], [2, 1], ranked=True, seed=1)
    tied = finish(session, config, [a, b], [1, 1], ranked=True, seed=2)
    running = matches.create_match(session, config, "toyrace", [a.id, b.id], ranked=True, seed=3)
    queued = matches.create_match(session, config, "toyrace", [b.id, a.id], ranked=True, seed=4)
    session.commit()
    matches.start_match(session, running.id)
    session.commit()
    return {"a": a, "b": b, "won": won, "tied": tied, "running": running, "queued": queued}


def test_a_fresh_site_reads_well(client):
    page = client.get("/").get_data(as_text=True)
    said = words(page)
    assert "Nothing is being played this moment" in said
    assert "No match has finished yet" in said
    assert "No tournament is running or planned right now" in said
    assert "No bots yet" in said and "write the first one" in said
    assert "No rated bots yet" in said
    assert "0 matches being played" not in said  # no line of zeros over the empty state


def test_recent_matches_link_each_match_and_name_who_won(client, ladder):
    page = block(client.get("/").get_data(as_text=True), "recent-title")
    won, tied = ladder["won"], ladder["tied"]
    assert f'href="/matches/{won.id}"' in page and f'href="/matches/{tied.id}"' in page
    said = words(page)
    assert f"Toyrace #{won.id} · barnacle won against anchor" in said
    assert f"Toyrace #{tied.id} · anchor and barnacle shared first" in said
    assert said.index(f"#{tied.id}") < said.index(f"#{won.id}")  # the newest first
    assert f'href="/bots/{ladder["b"].bot_id}"' in page  # the winner leads to its bot
    # Only finished matches: not the one being played, nor the queued one.
    assert f"#{ladder['running'].id}" not in said and f"#{ladder['queued'].id}" not in said


def test_matches_being_played_are_counted_and_listed(client, ladder):
    page = block(client.get("/").get_data(as_text=True), "now-title")
    said = words(page)
    assert "1 match being played, 1 waiting for a worker" in said
    running = ladder["running"].id
    assert f'href="/matches/{running}"' in page
    assert f"Toyrace #{running} · anchor, barnacle · started just now" in said


def test_live_tables_waiting_and_playing(client, session, config, alice, bob):
    mine = make_active_bot(session, config, bob, name="dinghy")
    waiting = tables.create_table(session, config, alice, "toyrace", 2, 0, [None]).table
    playing = tables.create_table(session, config, bob, "toyrace", 2, 0, [mine.id]).table
    session.commit()
    assert (waiting.state, playing.state) == (LiveTableState.WAITING, LiveTableState.PLAYING)
    page = block(client.get("/").get_data(as_text=True), "now-title")
    said = words(page)
    assert "1 live table with people playing, 1 waiting for a player" in said
    assert f'href="/tables/{waiting.id}"' in page and f'href="/tables/{playing.id}"' in page
    assert f"Toyrace table #{waiting.id} · waiting for a player alice (person), open seat" in said
    assert (
        f"Toyrace table #{playing.id} · people playing, move 0 bob (person), bob/dinghy v1" in said
    )
    tables.end_table(session, waiting.id, "ended for the test")
    session.commit()
    assert f"table #{waiting.id}" not in words(client.get("/").get_data(as_text=True))


def test_running_and_upcoming_tournaments(client, session, config, ladder, alice, bob):
    alice.is_staff = True
    cup = tournaments.create_tournament(session, alice, "Spring cup", "toyrace", seed=2)
    tournaments.open_tournament(session, alice, cup.id)
    tournaments.enter(session, alice, cup.id, ladder["a"].bot_id)
    tournaments.enter(session, bob, cup.id, ladder["b"].bot_id)
    tournaments.start(session, config, alice, cup.id)
    soon = tournaments.create_tournament(session, alice, "Summer open", "toyrace", "swiss")
    tournaments.open_tournament(session, alice, soon.id)
    later = tournaments.create_tournament(session, alice, "Autumn draft", "toyrace")
    done = tournaments.create_tournament(session, alice, "Old cup", "toyrace")
    tournaments.cancel(session, alice, done.id)
    session.commit()
    first = next(iter(tournament_queries.slots(session, cup.id).values()))
    matches.record_match(session, config, first.id, outcome_for(first, [1, 2]))
    session.commit()
    last = tournaments.create_tournament(session, alice, "Last cup", "toyrace", seed=4)
    tournaments.open_tournament(session, alice, last.id)
    tournaments.enter(session, alice, last.id, ladder["a"].bot_id)
    tournaments.enter(session, bob, last.id, ladder["b"].bot_id)
    tournaments.start(session, config, alice, last.id)
    session.commit()
    only = next(iter(tournament_queries.slots(session, last.id).values()))
    matches.record_match(session, config, only.id, outcome_for(only, [2, 1]))
    session.commit()
    tournaments.advance(session, config, last.id)  # its one match played: finished
    page = block(client.get("/").get_data(as_text=True), "tournaments-title")
    said = words(page)
    assert "Spring cup · running · Toyrace round-robin, 2 bots, 1 match played" in said
    assert "Summer open · open for entries · Toyrace swiss, 0 bots entered" in said
    assert "Autumn draft · planned" in said
    assert "Last cup · finished just now · Toyrace round-robin, 2 bots: see the standings" in said
    assert "Old cup" not in said  # cancelled
    for t in (cup, soon, later, last):
        assert f'href="/tournaments/{t.id}"' in page
    assert said.index("Summer open") < said.index("Autumn draft")  # open ones first


def test_newest_bots_with_their_skill_or_not_yet(client, session, config, ladder, bob):
    pending = bots.upload_version(session, config, bob, "toyrace", "fresh", "bot.py", BOT_SOURCE)
    failed = bots.upload_version(session, config, bob, "toyrace", "sunk", "bot.py", BOT_SOURCE)
    bots.finish_validation(session, failed.id, False, "failed")
    session.commit()
    page = block(client.get("/").get_data(as_text=True), "bots-title")
    said = words(page)
    assert "fresh by bob · Toyrace · uploaded just now · not on the ladder yet" in said
    rated = home.newest_bots(session)
    assert [b["bot"] for b in rated] == ["fresh", "barnacle", "anchor"]
    anchor = rated[2]
    assert f"anchor by alice · Toyrace · uploaded just now · skill {anchor['skill']:.2f}" in said
    assert "after 2 games" in said
    assert "sunk" not in said  # its only version failed: it cannot play
    assert f'href="/bots/{pending.bot_id}"' in page


def test_each_game_s_top_bots(client, ladder):
    page = block(client.get("/").get_data(as_text=True), "boards-title")
    page = page.split('href="/games/toyrace"')[1]  # the toy game's board (real games come first)
    said = words(page)
    assert 'href="/leaderboard/toyrace"' in page
    rows = re.findall(
        r'<td class="n">(\d+)</td><td><a href="/bots/(\d+)" title="([^"]+)">([^<]+)</a>', page
    )
    # barnacle won one match and tied the other: it leads.
    assert [name for _rank, _bot, _title, name in rows] == ["barnacle", "anchor"]
    assert [rank for rank, _bot, _title, _name in rows] == ["1", "2"]
    # Its owner is in the link's title (the full board has an owner column).
    assert all(title.startswith(f"{name} by ") for _rank, _bot, title, name in rows)
    assert "No rated bots yet" not in said


def test_what_skill_means(client):
    page = block(client.get("/").get_data(as_text=True), "skill-title")
    said = words(page)
    assert "Skill is μ − 3σ" in said
    assert "A new bot starts at μ = 25, σ = 8.33, so at skill 0" in said
    assert 'href="/docs/bots#skill-on-the-ladder"' in page
    guide = client.get("/docs/bots").get_data(as_text=True)
    assert 'id="skill-on-the-ladder"' in guide  # the link lands on what it promises


def test_the_page_is_kept_for_anonymous_visitors(app, session, config, ladder):
    app.extensions[cache.EXTENSION] = cache.TtlCache()
    override_settings(app, PAGE_CACHE_S=60)
    visitor = app.test_client()
    first = visitor.get("/").get_data(as_text=True)
    later = finish(session, config, [ladder["a"], ladder["b"]], [1, 2], ranked=True, seed=9)
    assert visitor.get("/").get_data(as_text=True) == first  # kept: the new match not yet
    assert f"#{later.id}" not in first
    cache.page_cache(app).clear()
    assert f"#{later.id}" in visitor.get("/").get_data(as_text=True)


@pytest.mark.parametrize(
    ("moment", "said"),
    [
        ("2026-03-01T11:59:30Z", "just now"),
        ("2026-03-01T11:55:00Z", "5 min ago"),
        ("2026-03-01T09:00:00Z", "3 h ago"),
        ("2026-02-28T11:00:00Z", "1 day ago"),
        ("2026-02-25T12:00:00Z", "4 days ago"),
        ("2026-02-01T12:00:00Z", "2026-02-01"),
    ],
)
def test_times_read_as_how_long_ago(moment, said):
    assert how_long_ago(moment, datetime(2026, 3, 1, 12, 0, 0)) == said


def test_recent_matches_are_the_newest_few_by_finishing_time(session, config, alice, bob):
    a = make_active_bot(session, config, alice, name="anchor")
    b = make_active_bot(session, config, bob, name="barnacle")
    made = [finish(session, config, [a, b], [1, 2], ranked=True, seed=i) for i in range(4)]
    # The first match made finishes last: it leads, whatever its id.
    session.get(Match, made[0].id).finished_at = datetime(2100, 1, 1)
    session.commit()
    shown = [m["id"] for m in home.recent_matches(session, ["toyrace"], count=3)]
    assert shown == [made[0].id, made[3].id, made[2].id]
    assert len(home.newest_bots(session, count=1)) == 1
