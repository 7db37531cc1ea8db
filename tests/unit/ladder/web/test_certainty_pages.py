"""How sure each rating is, on the pages and in the API (ladder/RATINGS.md): the board's
settled and provisional sections with μ ± 2σ bars, the online/re-solved toggle and its
default, a bot page's standing and comparison (a hand-computed chance), the compare
call, the staff list of disagreements, and the cache made afresh by a re-solve."""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import delete, update

from ladder.models import Rating, ResolvedRating, ResolveRun, utcnow
from ladder.ranking import certainty
from ladder.services import bot_changes, matches, resolve
from ladder.services.accounts import set_staff
from tests.unit.ladder.conftest import (
    hand_clocked_cache,
    login,
    make_active_bot,
    make_user,
    override_settings,
)
from tests.unit.ladder.helpers import outcome_for

# name: online (μ, σ), re-solved (μ, σ) or None. Matches seat a, b, c, d eight times at
# four (24 opponents met each), then e three times with a, b, c (e: 3 games, 9 met).
ONLINE = {"a": (30, 2), "b": (28, 1.5), "c": (40, 4), "d": (26, 2), "e": (35, 2)}
RESOLVED = {"a": (26, 1), "b": (29, 1), "c": (33, 2), "d": None, "e": (31, 1)}


@pytest.fixture
def board(session, config):
    """Five bots of five owners with the ratings ONLINE (their matches really played,
    so the opponents met are read from seats); returns bot and version ids by name."""
    versions = {
        c: make_active_bot(session, config, make_user(session, f"owner-{c}"), name=c)
        for c in "abcde"
    }
    tables = [("abcd", [1, 2, 3, 4])] * 8 + [("abce", [1, 2, 3, 4])] * 3
    for seats, ranks in tables:
        match = matches.create_match(
            session, config, "toyrace", [versions[c].id for c in seats], ranked=True
        )
        matches.record_match(session, config, match.id, outcome_for(match, ranks))
    session.commit()
    for c, (mu, sigma) in ONLINE.items():
        session.execute(
            update(Rating)
            .where(Rating.version_id == versions[c].id)
            .values(mu=mu, sigma=sigma, skill=mu - 3 * sigma)
        )
    session.commit()
    return {
        "bots": {c: v.bot_id for c, v in versions.items()},
        "versions": {c: v.id for c, v in versions.items()},
    }


def resolve_by_hand(session, board) -> None:
    """Re-solved rows as RESOLVED says, and a run (figures chosen by hand, not solved:
    the pages' arithmetic is what is tested here)."""
    session.execute(delete(ResolvedRating))
    today = utcnow().date().isoformat()
    for c, figures in RESOLVED.items():
        if figures:
            mu, sigma = figures
            session.add(
                ResolvedRating(
                    version_id=board["versions"][c],
                    game="toyrace",
                    mu=mu,
                    sigma=sigma,
                    skill=mu - 3 * sigma,
                    matches=9,
                    curve=[["2026-01-01", mu + 1, sigma], [today, mu, sigma]],
                )
            )
    session.add(
        ResolveRun(
            game="toyrace",
            solved_at=utcnow(),
            matches=11,
            rated_matches=11,
            first_match_id=1,
            iterations=3,
            step=0.001,
            seconds=0.2,
        )
    )
    session.commit()


@pytest.fixture
def resolved_board(session, board):
    resolve_by_hand(session, board)
    return board


def section(text: str, start: str, end: str) -> str:
    """`text` from `start` to the first `end` after it."""
    at = text.index(start)
    return text[at : text.index(end, at)]


def board_names(text: str) -> list[str]:
    """The bots of a board's rows in order, "|" where the provisional section starts."""
    found = re.findall(r'scope="colgroup"|<a href="/bots/\d+"[^>]*>(\w)</a>', text)
    return [name or "|" for name in found]


# -- the leaderboard -----------------------------------------------------------------
def test_the_board_ranks_settled_bots_first_then_the_provisional_ones(client, board):
    page = client.get("/leaderboard/toyrace").get_data(as_text=True)
    rows = section(page, '<table class="fold-table board">', "</table>")
    # e (skill 29) and c (28) are above every settled bot by skill, but provisional.
    assert board_names(rows) == ["a", "b", "d", "|", "e", "c"]
    assert "after the 3 settled bots" in rows
    assert "met 9 of 24 opponents" in rows  # e: three tables of four
    assert "σ 4.00 is above 2.5" in rows  # c
    # a, b and c played 11 games, fewer than 24, but met 33 opponents: counted, settled.
    assert "met 33" not in rows and rows.count('class="provisional-mark"') == 2
    # The bar of a: μ 30 ± 4 on the board's scale 22 (d: 26 − 4) to 48 (c: 40 + 8).
    assert "μ 30.00 ± 2σ: 26.00 to 34.00" in rows
    assert 'x="15.38" y="2" width="30.77"' in rows
    assert "Ordered by the <strong>online rating</strong> (the default)" in page
    assert "No re-solve has run for Toyrace yet" in page


def test_the_board_api_gives_both_ratings_and_the_sections(client, board, resolved_board):
    body = client.get("/api/v1/games/toyrace/leaderboard").get_json()
    assert [e["bot"] for e in body["entries"]] == ["a", "b", "d", "e", "c"]
    assert (body["rating"], body["settled"], body["total"]) == ("online", 3, 5)
    assert body["scale"] == {"low": 22.0, "high": 48.0}
    assert body["resolve"]["matches"] == 11
    first = body["entries"][0]
    assert (first["mu"], first["sigma"], first["skill"]) == (30.0, 2.0, 24.0)
    assert (first["provisional"], first["provisional_reason"]) == (False, None)
    assert first["resolved"] == {"mu": 26.0, "sigma": 1.0, "skill": 23.0, "matches": 9}
    e = body["entries"][3]
    assert (e["rank"], e["provisional"], e["provisional_reason"]) == (
        4,
        True,
        "met 9 of 24 opponents",
    )
    # Pages cut across the sections as the order runs.
    two = client.get("/api/v1/games/toyrace/leaderboard?per_page=2&page=2").get_json()
    assert [(e["rank"], e["bot"]) for e in two["entries"]] == [(3, "d"), (4, "e")]


def test_the_board_orders_by_the_re_solved_rating_when_asked_or_by_default(
    app, client, resolved_board
):
    asked = client.get("/leaderboard/toyrace?rating=resolved").get_data(as_text=True)
    rows = section(asked, '<table class="fold-table board">', "</table>")
    # c settles on its re-solved σ (2.0); d has no re-solved rating: provisional, last.
    assert board_names(rows) == ["c", "b", "a", "|", "e", "d"]
    assert "not in the last re-solve" in rows and "Last re-solve:" in asked
    assert 'href="/leaderboard/toyrace?rating=online"' in asked
    api = client.get("/api/v1/games/toyrace/leaderboard?rating=resolved").get_json()
    assert [e["bot"] for e in api["entries"]] == ["c", "b", "a", "e", "d"]
    assert api["scale"] == {"low": 24.0, "high": 37.0}  # b 29 − 2 ... c 33 + 4
    override_settings(app, RATING_SHOWN="resolved")
    default = client.get("/leaderboard/toyrace").get_data(as_text=True)
    assert board_names(section(default, '<table class="fold-table board">', "</table>")) == [
        *"cba",
        "|",
        *"ed",
    ]
    assert "<strong>re-solved rating</strong> (the default)" in default
    online = client.get("/leaderboard/toyrace?rating=online").get_data(as_text=True)
    assert board_names(section(online, '<table class="fold-table board">', "</table>"))[0] == "a"


def test_asking_for_the_re_solved_order_before_any_re_solve_says_so(client, board):
    page = client.get("/leaderboard/toyrace?rating=resolved").get_data(as_text=True)
    assert "No re-solve has run for Toyrace yet" in page
    assert "every bot is listed as provisional" in page
    assert page.count("not in the last re-solve") == 5


@pytest.mark.parametrize("path", ["/leaderboard/toyrace", "/api/v1/games/toyrace/leaderboard"])
def test_an_unknown_rating_is_refused_by_name(client, board, path):
    answer = client.get(f"{path}?rating=best")
    assert answer.status_code == 400
    assert (
        "rating is one of online, resolved, not &#39;best&#39;" in answer.get_data(as_text=True)
        or answer.get_json()["error"] == "rating is one of online, resolved, not 'best'"
    )


def test_the_front_page_boards_show_the_bars_and_the_provisional_section(client, board):
    page = client.get("/").get_data(as_text=True)
    boards = section(page, 'id="boards-title"', 'id="skill-title"')
    assert board_names(boards) == ["a", "b", "d", "|", "e", "c"]
    assert "μ 28.00 ± 2σ: 25.00 to 31.00" in boards  # b
    assert boards.count('class="provisional-mark"') == 2


# -- the bot page and the comparison -------------------------------------------------
def test_a_bot_page_shows_its_rating_with_its_spread_and_why_it_is_provisional(
    client, resolved_board
):
    settled = client.get(f"/bots/{resolved_board['bots']['a']}").get_data(as_text=True)
    rating = section(settled, 'id="rating"', "<h2>Versions</h2>")
    assert "<strong>24.00</strong>" in rating and "30.00 ± 4.00" in rating  # online
    assert "<strong>23.00</strong>" in rating and "26.00 ± 2.00" in rating  # re-solved
    assert "Settled:" in rating and "provisional-mark" not in rating
    young = client.get(f"/bots/{resolved_board['bots']['e']}").get_data(as_text=True)
    rating = section(young, 'id="rating"', "<h2>Versions</h2>")
    assert "met 9 of 24 opponents" in rating and "listed after the settled bots" in rating
    unseen = client.get(f"/bots/{resolved_board['bots']['d']}").get_data(as_text=True)
    assert "not in the last re-solve" in section(unseen, 'id="rating"', "<h2>Versions</h2>")
    # The other bots of the board to compare with, nearest by skill first.
    assert re.findall(r'<option value="\d+">(\w) \(by', settled) == ["e", "c", "b", "d"]


def test_a_bot_page_compares_it_with_another_bot(client, resolved_board):
    bots = resolved_board["bots"]
    page = client.get(f"/bots/{bots['a']}?compare={bots['b']}").get_data(as_text=True)
    found = section(page, 'id="comparison"', 'id="approximation"')
    # Φ((30 − 28) / √(2² + 1.5²)) = Φ(0.8) = 0.7881; re-solved Φ((26 − 29) / √2) = 0.0169.
    assert "<strong>78.8 %</strong> on the online ratings, 1.7 % on the re-solved ones" in found
    assert re.search(r"About <strong>\d+</strong> more matches of a", found)
    assert f'<option value="{bots["b"]}" selected>' in page
    sure = client.get(f"/bots/{bots['c']}?compare={bots['d']}").get_data(as_text=True)
    assert "already 95 % or more: c is the stronger" in sure  # Φ(14 / √20) = 0.9991


def test_the_compare_call_gives_the_chance_and_the_matches_to_95(client, resolved_board):
    bots = resolved_board["bots"]
    body = client.get(f"/api/v1/bots/{bots['a']}/compare/{bots['b']}").get_json()
    assert body["prob_stronger"] == 0.7881
    assert body["prob_stronger_resolved"] == 0.0169
    a, b = body["bot"], body["other"]
    assert (a["id"], b["id"], a["provisional"]) == (bots["a"], bots["b"], False)
    # a's own history: σ from 8.333 (a first version) to 2 over 11 matches, all today.
    assert a["information_per_match"] == pytest.approx((1 / 4 - 1 / (25 / 3) ** 2) / 11, abs=1e-5)
    assert (a["matches_per_day"], b["matches_per_day"]) == (11.0, 11.0)
    expected = certainty.matches_to_confidence(
        (30, 2), (28, 1.5), a["information_per_match"], b["information_per_match"], 11.0, 11.0
    )
    assert body["matches_to_95"] == expected and expected > 0
    sure = client.get(f"/api/v1/bots/{bots['c']}/compare/{bots['d']}").get_json()
    assert (sure["prob_stronger"], sure["matches_to_95"]) == (0.9991, 0)


def test_a_bad_comparison_is_refused_with_its_reason(session, config, client, board):
    bots = board["bots"]
    a = bots["a"]
    unrated = make_active_bot(
        session, config, make_user(session, "owner-m"), name="m", game="manila"
    )
    session.execute(delete(Rating).where(Rating.version_id == unrated.id))
    session.commit()
    cases = [
        (f"/bots/{a}?compare=x", 400, "compare takes a bot&#39;s id, not &#39;x&#39;"),
        (f"/bots/{a}?compare={a}", 400, "not with itself"),
        (f"/bots/{a}?compare=999", 404, "no bot 999"),
        (f"/api/v1/bots/{a}/compare/{a}", 400, "not with itself"),
        (f"/api/v1/bots/{a}/compare/999", 404, "no bot 999"),
        (f"/api/v1/bots/999/compare/{a}", 404, ""),
        (f"/api/v1/bots/{a}/compare/{unrated.bot_id}", 400, "plays manila, not toyrace"),
    ]
    for url, status, words in cases:
        answer = client.get(url)
        assert answer.status_code == status, url
        assert words in answer.get_data(as_text=True), url
    hers = make_active_bot(session, config, make_user(session, "owner-n"), name="n")
    session.execute(delete(Rating).where(Rating.version_id == hers.id))
    session.commit()
    answer = client.get(f"/api/v1/bots/{a}/compare/{hers.bot_id}")
    assert answer.status_code == 400
    assert answer.get_json()["error"] == f"bot {hers.bot_id} (n) has no rated active version"


def test_the_rating_chart_carries_the_re_solved_curve(client, resolved_board):
    page = client.get(f"/bots/{resolved_board['bots']['a']}").get_data(as_text=True)
    data = re.search(r'id="rating-data">(.*?)</script>', page).group(1)
    series = json.loads(data)
    # Every match was today: the curve's first day (2026-01-01) has no match shown, and
    # today's point (skill 23) sits at the last match.
    assert series["resolved"] == [None] * 10 + [23.0]
    assert series["resolved_day"][-1] == utcnow().date().isoformat()
    assert "Re-solved rating by day as a table" in page


# -- staff ---------------------------------------------------------------------------
def test_the_staff_page_lists_the_ratings_that_disagree(session, client, board):
    make_user(session, "chief")
    set_staff(session, "chief", True)
    session.commit()
    login(client, "chief")
    before = client.get("/staff").get_data(as_text=True)
    assert "No re-solve has run for toyrace yet" in before
    resolve_by_hand(session, board)
    page = client.get("/staff").get_data(as_text=True)
    found = section(page, 'id="disagreements"', "</table>")
    # |re-solved μ − online μ| > 2: c −7, a −4, e −4 (a first: the older version); b
    # (+1) agrees, d has no re-solved rating.
    assert board_names(found) == ["c", "a", "e"]
    # c's places by skill alone (queries.resolved): second online (e 29, c 28) and
    # second re-solved (e 28, c 27).
    assert re.search(r'>-7\.00</td>\s*<td class="n">2</td><td class="n">2</td>', found)
    assert "Last re-solve:" in found and "over 11 of 11 rated matches" in found
    assert "more than 2.0 from their online μ" in found


# -- the page cache ------------------------------------------------------------------
def test_a_re_solve_remakes_the_kept_pages_that_show_its_figures(
    app, client, session, config, board
):
    hand = hand_clocked_cache(app, PAGE_CACHE_S=5, PAGE_CACHE_DONE_S=300)
    bots = board["bots"]
    urls = [
        f"/bots/{bots['a']}",
        f"/bots/{bots['b']}?compare={bots['a']}",
        f"/api/v1/bots/{bots['b']}/compare/{bots['a']}",
        "/leaderboard/toyrace?rating=resolved",
        "/api/v1/games/toyrace/leaderboard",
    ]
    first = {url: client.get(url).data for url in urls}
    hand.now += 60  # past PAGE_CACHE_S: nothing changed, the kept bot pages still serve
    assert all(client.get(url).data == first[url] for url in urls[:3])
    resolve.resolve_game(session, config, "toyrace")  # bumps the bots' revisions
    session.commit()
    hand.now += 5
    for url in urls:
        assert client.get(url).data != first[url], url
    assert b"no re-solve has run" not in client.get(urls[0]).data
    assert client.get(urls[-1]).get_json()["resolve"]["matches"] == 11


def test_a_compared_page_is_made_again_when_the_other_bot_changes(
    app, client, session, config, board
):
    hand = hand_clocked_cache(app, PAGE_CACHE_S=5, PAGE_CACHE_DONE_S=300)
    bots, versions = board["bots"], board["versions"]
    url = f"/bots/{bots['a']}?compare={bots['d']}"
    first = client.get(url).data
    session.execute(update(Rating).where(Rating.version_id == versions["d"]).values(mu=31))
    bot_changes.bots_changed(session, [bots["d"]])  # as a result recorded for d says
    session.commit()
    hand.now += 5
    again = client.get(url).data
    assert again != first and b"d: skill 25.00" in again
