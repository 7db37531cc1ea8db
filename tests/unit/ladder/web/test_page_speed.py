"""Page speed without wrong pages: the short-lived cache of shared pages (kept, expired,
bounded, never one user's page for another), the replay URLs' ETags and 304s, and the
viewer's kept frames equal to what the engine re-applying the moves makes."""

from __future__ import annotations

import json

import pytest

from ladder import artifacts
from ladder.models import Match, MatchSeat
from ladder.queries import replays
from ladder.services import accounts, matches, viewer
from ladder.web import cache
from tests.unit.ladder.conftest import (
    HandClock,
    hand_clocked_cache,
    login,
    make_active_bot,
    override_settings,
)
from tests.unit.ladder.helpers import play, stored_match


@pytest.fixture
def clock(app):
    """The app's page cache on a hand clock, kept for 5 s."""
    return hand_clocked_cache(app, PAGE_CACHE_S=5)


# -- the cache itself --------------------------------------------------------------
def test_ttl_cache_keeps_a_value_for_its_seconds_and_drops_the_oldest():
    hand = HandClock()
    kept = cache.TtlCache(max_entries=2, clock=hand)
    kept.put("a", 1, 5)
    hand.now += 4.9
    assert kept.get("a") == 1
    hand.now += 0.1
    assert kept.get("a") is cache._MISSING  # exactly 5 s old: made again
    for key in ("x", "y", "z"):
        kept.put(key, key, 5)
    assert kept.get("x") is cache._MISSING  # the bound: the oldest went
    assert (kept.get("y"), kept.get("z")) == ("y", "z")


def test_ttl_cache_keeps_each_value_its_own_seconds_within_a_byte_budget():
    hand = HandClock()
    kept = cache.TtlCache(clock=hand, max_bytes=100)
    kept.put("short", "s", 5, size=40)
    kept.put("long", "l", 300, size=40)
    hand.now += 10
    assert (kept.get("short"), kept.get("long")) == (cache._MISSING, "l")
    kept.put("big", "b", 300, size=70)  # 40 + 70 > 100: the oldest goes
    assert (kept.get("long"), kept.get("big")) == (cache._MISSING, "b")
    kept.put("huge", "h", 300, size=101)  # larger than the budget: never kept
    assert (kept.get("huge"), kept.get("big")) == (cache._MISSING, "b")
    kept.put("long", "l", 300, size=20)
    kept.put("long", "grown", 300, size=101)  # grown past the budget: the old one goes too
    assert (kept.get("long"), kept.get("big")) == (cache._MISSING, "b")
    kept.put("big", "again", 300, size=70)  # put again: counted once
    kept.put("small", "m", 300, size=30)
    assert (kept.get("big"), kept.get("small")) == ("again", "m")


def _match_count(client) -> int:
    return client.get("/api/v1/matches").get_json()["total"]


def test_a_shared_page_is_served_as_kept_until_its_seconds_are_up(
    client, session, config, alice, bob, clock
):
    versions = [make_active_bot(session, config, owner) for owner in (alice, bob)]
    assert _match_count(client) == 0
    page = client.get("/matches")
    play(session, config, versions, ["ok", "ok"])
    assert _match_count(client) == 0  # kept: the change shows within PAGE_CACHE_S
    assert client.get("/matches").data == page.data
    clock.now += 5
    assert _match_count(client) == 1
    assert client.get("/matches").data != page.data


def test_no_cache_when_its_seconds_are_zero(client, session, config, alice, bob):
    versions = [make_active_bot(session, config, owner) for owner in (alice, bob)]
    assert _match_count(client) == 0
    play(session, config, versions, ["ok", "ok"])
    assert _match_count(client) == 1  # the unit tests' default: PAGE_CACHE_S=0


def test_a_logged_in_page_is_never_kept_nor_served_to_anyone_else(app, session, alice, clock):
    anonymous, alices = app.test_client(), app.test_client()
    login(alices)
    hers = alices.get("/leaderboard/toyrace").get_data(as_text=True)
    assert "Log out alice" in hers
    for _ in range(2):
        page = anonymous.get("/leaderboard/toyrace").get_data(as_text=True)
        assert "Log out" not in page and "alice" not in page
    # The anonymous page is kept now; alice still gets her own, with her name and forms.
    assert "Log out alice" in alices.get("/leaderboard/toyrace").get_data(as_text=True)
    assert "Log out alice" in alices.get("/").get_data(as_text=True)
    assert not any("alice" in str(value) for value in _kept_pages(app))


def _kept_pages(app) -> list:
    entries = cache.page_cache(app)._entries
    return [value for key, value in entries.items() if key[0] == "page"]


def test_an_answer_to_a_bearer_token_is_never_kept(client, session, alice, clock):
    _, token = accounts.create_token(session, alice, "reader")
    session.commit()
    authorised = client.get("/api/v1/matches", headers={"Authorization": f"Bearer {token}"})
    assert authorised.status_code == 200 and not _kept_pages(client.application)
    client.get("/api/v1/matches")
    assert _kept_pages(client.application)  # an anonymous one is


def test_a_flashed_message_is_never_kept(app, session, alice, clock):
    visitor = app.test_client()
    with visitor.session_transaction() as stored:
        stored["_flashes"] = [("message", "Welcome back")]
    assert b"Welcome back" in visitor.get("/").data
    assert not _kept_pages(app)
    assert b"Welcome back" not in app.test_client().get("/").data
    assert _kept_pages(app)  # the page without the message is kept


# -- ETag and 304 on the replay URLs -------------------------------------------------
REPLAY_URLS = (
    "/matches/{id}/replay.json.gz",
    "/api/v1/matches/{id}/replay",
    "/matches/{id}/replay/summary.json",
    "/matches/{id}/replay/frames.json?view=1&start=0&count=20",
)


def test_replay_urls_answer_304_to_their_etag_and_refuse_once_the_replay_is_gone(
    client, session, config, alice, bob
):
    match, _ = stored_match(session, config, [alice, bob, alice])
    tags = {}
    for url in (u.format(id=match.id) for u in REPLAY_URLS):
        first = client.get(url)
        assert first.status_code == 200 and first.headers["ETag"], url
        assert "immutable" in first.headers["Cache-Control"]
        again = client.get(url, headers={"If-None-Match": first.headers["ETag"]})
        assert again.status_code == 304 and again.data == b"", url
        assert client.get(url, headers={"If-None-Match": '"other"'}).status_code == 200
        tags[url] = first.headers["ETag"]
    # A tag per representation: the download and the API serve the very same bytes.
    assert len(set(tags.values())) == len(REPLAY_URLS) - 1
    other = client.get(f"/matches/{match.id}/replay/frames.json?view=2&start=0&count=20")
    assert other.headers["ETag"] not in tags.values()
    assert artifacts.store(config, session).delete(match.replay_key)
    session.commit()
    for url, tag in tags.items():
        gone = client.get(url, headers={"If-None-Match": tag})
        assert gone.status_code == 404, url  # never confirmed as still fresh


def test_kept_viewer_bodies_are_gzipped_for_clients_that_take_it(client, session, config, alice):
    match, _ = stored_match(session, config, [alice, alice, alice])
    url = f"/matches/{match.id}/replay/summary.json"
    zipped = client.get(url, headers={"Accept-Encoding": "gzip"})
    plain = client.get(url, headers={"Accept-Encoding": "identity"})
    assert zipped.headers["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain.headers
    assert zipped.headers["ETag"] != plain.headers["ETag"]
    assert "Accept-Encoding" in zipped.headers["Vary"]
    assert plain.get_json()["game"] == "manila"


# -- the viewer's kept frames ----------------------------------------------------------
def _old(value: dict) -> dict:
    """What the old path answered, through JSON as it went out."""
    return json.loads(json.dumps(value))


def test_kept_summary_and_frames_equal_what_the_engine_makes(
    session, config, alice, bob, monkeypatch
):
    monkeypatch.setattr(viewer, "CHUNK", 20)  # chunks this short game's windows span
    match, _ = stored_match(session, config, [alice, bob, alice], seed=5)
    replay = replays.load_stored(viewer.replay_bytes(session, config, match), match.game)
    steps, chunk = replay.steps, viewer.CHUNK
    assert steps > chunk, "the windows below should span chunks"
    kept = json.loads(viewer.summary(session, config, match).plain())
    assert kept == _old(replays.summary(replay))
    windows = [(0, chunk), (5, 3), (chunk - 2, 5), (steps - 1, 50), (steps, 1), (0, 500), (3, 45)]
    for perspective in ("spectator", 0, 2):
        for start, count in windows:
            got = viewer.frames(session, config, match, str(perspective), str(start), str(count))
            assert json.loads(got.plain()) == _old(
                replays.frames(replay, perspective, start, count)
            ), (perspective, start, count)
    session.commit()
    made = replays.frames
    monkeypatch.setattr(replays, "frames", None)  # from now on only what was kept is read
    monkeypatch.setattr(replays, "summary", None)
    again = viewer.frames(session, config, match, "0", "5", "3")
    assert json.loads(again.plain()) == _old(made(replay, 0, 5, 3))
    # The summary and every chunk of the three perspectives asked for (seat 1 never was).
    assert viewer.forget(session, config, match) == 1 + 3 * (steps // chunk + 1)


def test_bad_viewer_arguments_are_refused_as_before(client, session, config, alice):
    match, _ = stored_match(session, config, [alice, alice, alice])
    for query in ("view=7", "start=-1", "count=0", "count=501", "view=x"):
        response = client.get(f"/matches/{match.id}/replay/frames.json?{query}")
        assert response.status_code == 400 and response.get_json()["error"], query


# -- pages that no longer change ------------------------------------------------------
def test_a_finished_match_page_is_kept_the_longer_time_and_a_queued_one_the_short(
    client, session, config, alice, bob, clock
):
    override_settings(client.application, PAGE_CACHE_DONE_S=300)
    match, _ = stored_match(session, config, [alice, bob, alice])
    queued = matches.create_match(
        session, config, "manila", [s.version_id for s in match.seats], ranked=False
    )
    session.commit()
    urls = [f"/matches/{match.id}", f"/api/v1/matches/{match.id}", f"/api/v1/matches/{queued.id}"]
    first = {url: client.get(url).data for url in urls}
    for m in (match, queued):  # what a page would show changed: the reason it was unrated
        session.get(Match, m.id).unrated_reason = "changed by the test"
    session.commit()
    clock.now += 5
    assert client.get(urls[0]).data == first[urls[0]]  # finished: still as kept
    assert client.get(urls[1]).data == first[urls[1]]
    assert b"changed by the test" in client.get(urls[2]).data  # queued: made again
    clock.now += 295
    assert b"changed by the test" in client.get(urls[0]).data
    assert b"changed by the test" in client.get(urls[1]).data


def test_a_seat_owners_match_page_is_never_kept_for_anyone_else(
    app, session, config, alice, bob, clock
):
    match, _ = stored_match(session, config, [alice, bob, bob])
    session.get(MatchSeat, match.seats[0].id).stderr = "alice's own debug line"
    session.commit()
    alices, anonymous = app.test_client(), app.test_client()
    login(alices)
    assert b"alice&#39;s own debug line" in alices.get(f"/matches/{match.id}").data
    assert b"own debug line" not in anonymous.get(f"/matches/{match.id}").data
    assert b"own debug line" not in anonymous.get(f"/matches/{match.id}").data  # kept one
    assert b"alice&#39;s own debug line" in alices.get(f"/matches/{match.id}").data


def test_a_kept_replay_is_checked_again_by_a_client_that_revalidates(
    client, session, config, alice, bob, clock
):
    match, _ = stored_match(session, config, [alice, bob, alice])
    for url in (u.format(id=match.id) for u in REPLAY_URLS):
        first = client.get(url)
        assert first.status_code == 200
        assert client.get(url).data == first.data  # the kept answer, headers and all
        assert client.get(url).headers["ETag"] == first.headers["ETag"]
    assert artifacts.store(config, session).delete(match.replay_key)
    session.commit()
    for url in (u.format(id=match.id) for u in REPLAY_URLS):
        kept = client.get(url)  # still kept in this worker, for a while
        assert kept.status_code == 200, url
        tag = kept.headers["ETag"]
        assert client.get(url, headers={"If-None-Match": tag}).status_code == 404, url


# -- pages kept until what they show changes ---------------------------------------
def _rename_behind_the_services(session, bot_id: int, name: str) -> None:
    """A change no command made: it moves no revision, so only the age limit shows it."""
    from ladder.models import Bot

    session.get(Bot, bot_id).name = name
    session.commit()


@pytest.mark.parametrize("path", ["/bots/{}", "/api/v1/bots/{}"])
def test_a_bot_page_is_kept_while_its_bot_is_unchanged_and_made_again_once_it_changes(
    client, session, config, alice, bob, clock, path
):
    override_settings(client.application, PAGE_CACHE_DONE_S=300)
    versions = [make_active_bot(session, config, owner) for owner in (alice, bob)]
    url = path.format(versions[0].bot_id)
    first = client.get(url).data
    _rename_behind_the_services(session, versions[0].bot_id, "renamed")
    clock.now += 60  # long past PAGE_CACHE_S: the revision is read again, and is the same
    assert client.get(url).data == first
    play(session, config, versions, ["ok", "ok"])  # a result recorded: a new revision
    assert client.get(url).data == first  # within PAGE_CACHE_S: still as kept
    clock.now += 5
    again = client.get(url).data
    assert again != first and b"renamed" in again
    # Kept at most PAGE_CACHE_DONE_S, whatever the revision says.
    _rename_behind_the_services(session, versions[0].bot_id, "renamed-again")
    clock.now += 200
    assert client.get(url).data == again
    clock.now += 100
    assert b"renamed-again" in client.get(url).data


def test_a_kept_bot_page_is_made_afresh_when_its_revision_cannot_be_read(
    client, session, config, alice, clock, monkeypatch
):
    from ladder.queries import boards

    version = make_active_bot(session, config, alice)
    url = f"/bots/{version.bot_id}"
    client.get(url)
    _rename_behind_the_services(session, version.bot_id, "renamed")
    real, calls = boards.bot_revision, []

    def once_unreadable(*args):
        calls.append(args)
        if len(calls) == 1:
            raise RuntimeError("the database went away for a moment")
        return real(*args)

    monkeypatch.setattr(boards, "bot_revision", once_unreadable)
    clock.now += 5
    assert b"renamed" in client.get(url).data  # not the kept page: made again
    assert len(calls) == 2  # the failed check, then the new page's own read


def test_an_owner_never_gets_the_kept_bot_page_nor_reads_a_revision(
    app, session, config, alice, clock, monkeypatch
):
    from ladder.queries import boards

    version = make_active_bot(session, config, alice)
    url = f"/bots/{version.bot_id}"
    anonymous, alices = app.test_client(), app.test_client()
    login(alices)
    assert b"Retire this bot" not in anonymous.get(url).data  # kept now
    reads = []
    real = boards.bot_revision
    monkeypatch.setattr(boards, "bot_revision", lambda *a: reads.append(a) or real(*a))
    page = alices.get(url).get_data(as_text=True)
    assert "Log out alice" in page and "Retire this bot" in page and reads == []
    assert "Log out" not in anonymous.get(url).get_data(as_text=True)
