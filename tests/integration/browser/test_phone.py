"""Every page fits a phone's width: the page never scrolls sideways, the replay
board scales down to the screen and stays readable, the navigation is one line
with a menu, wide tables scroll inside their own box and show that they do."""

from __future__ import annotations

import base64
import re

import pytest
from playwright.sync_api import expect

from engine.caravelas import data
from tests.integration.browser.conftest import PHONE, games, needs_browser, shot
from tests.integration.browser.helpers import assert_no_sideways_scroll, register

pytestmark = needs_browser

CONTROLS = ("#to-start", "#step-back", "#play-pause", "#step-forward", "#to-end")
CONTROLS += ("#speed", "#seat-view", "#step-slider", "#step-label", "#step-time", "#move-list")
# The smallest text the drawn panels (status line, seats, prices) may show, in CSS px.
# The Caravelas map's place names are left out: they are the one detail a phone zooms to.
MIN_TEXT_PX = 8
# The screen matrix holds the board's scaling and any transform of the mark.
SMALLEST_TEXT = """svg => Math.min(...Array.from(svg.querySelectorAll("text"))
  .filter(t => !t.closest(".map") && t.textContent.trim())
  .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))"""


def open_viewer(page, site, game: str):
    """Open a finished match of `game` at step 0; returns the board's <svg> locator."""
    page.goto(f"/matches/{site.finished_match(game)}")
    board = page.locator("#board svg")
    expect(board).to_have_attribute("data-game", game)
    expect(board).to_have_attribute("data-step", "0")
    return board


@pytest.mark.parametrize("game", games())
def test_replay_viewer_fits_a_phone(phone, site, game):
    board = open_viewer(phone, site, game)
    phone.locator("#step-forward").tap()
    expect(board).to_have_attribute("data-step", "1")
    screen = phone.evaluate("window.innerWidth")
    assert_no_sideways_scroll(phone, f"the {game} viewer")

    # The whole board is on screen: scaled to the width, not scrolled inside its frame.
    box = board.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= screen, f"board {box} on {screen}px"
    inner, shown = phone.locator("#board").evaluate("b => [b.scrollWidth, b.clientWidth]")
    assert inner <= shown, f"the {game} board hides {inner - shown}px to the side"
    ratio = board.evaluate("s => s.viewBox.baseVal.height / s.viewBox.baseVal.width")
    assert box["height"] == pytest.approx(box["width"] * ratio, abs=2), "board aspect changed"
    smallest = board.evaluate(SMALLEST_TEXT)
    assert smallest >= MIN_TEXT_PX, f"{game} board text shrinks to {smallest:.1f}px"

    # Every control wraps onto the screen.
    for control in CONTROLS:
        edge = phone.locator(control).evaluate("el => el.getBoundingClientRect().right")
        assert edge <= screen, f"{control} ends at {edge}px"
    shot(phone, f"50-phone-{game}-viewer")

    # Stepping on still redraws the board, within the screen.
    phone.locator("#step-forward").tap()
    expect(board).to_have_attribute("data-step", "2")
    assert_no_sideways_scroll(phone, f"the {game} viewer at step 2")


def test_pages_fit_a_phone(phone, site):
    match_id = site.finished_match("manila")
    phone.goto("/leaderboard/manila")
    bot_page = phone.locator("table a[href^='/bots/']").first.get_attribute("href")
    pages = ["/", "/leaderboard/manila", bot_page, f"/matches/{match_id}", "/matches"]
    pages += [f"/leaderboard/{game}" for game in games()] + [f"/games/{g}" for g in games()]
    pages += ["/replays/open", "/login", "/register", "/docs/bots"]
    for path in pages:
        phone.goto(path)
        assert_no_sideways_scroll(phone, path)
    shot(phone, "51-phone-register")

    # Tables wider than the phone scroll inside their box rather than moving the page.
    phone.goto(f"/matches/{match_id}")
    boxes = phone.locator("main table").evaluate_all(
        "tables => tables.map(t => { const box = t.closest('.table-scroll') || t;"
        " return [box.scrollWidth > box.clientWidth, getComputedStyle(box).overflowX]; })"
    )
    assert any(wide for wide, _ in boxes), "no table on the match page is wider than a phone"
    assert all(overflow in ("auto", "scroll") for wide, overflow in boxes if wide)

    register(phone, "pocketwatch")
    for path in ("/bots/mine", "/bots/upload"):
        phone.goto(path)
        assert_no_sideways_scroll(phone, path)
    shot(phone, "52-phone-upload")


@pytest.mark.parametrize("game", games())
def test_desktop_board_keeps_its_wide_layout(page, site, game):
    board = open_viewer(page, site, game)
    assert_no_sideways_scroll(page, f"the {game} viewer on a desktop")
    # The board fills its column beside the move list, as wide as the board frame.
    board_box = board.bounding_box()
    frame_width = page.locator("#board").evaluate("b => b.clientWidth")
    side = page.locator(".viewer-side").bounding_box()
    assert board_box["width"] == pytest.approx(frame_width, abs=1)
    assert side["x"] > board_box["x"] + board_box["width"], "move list no longer beside the board"


# -- the leaderboard and a bot's page on a phone ------------------------------
# Each table's headers as shown: [[text of each visible header], ...], and how far
# each table's box scrolls sideways (0: it fits).
TABLES = """() => Array.from(document.querySelectorAll('main table')).map(t => {
  const box = t.closest('.table-scroll') || t;
  const cells = Array.from(t.rows[0].cells).filter(c => c.getClientRects().length);
  return {shown: cells.map(c => c.textContent), scrolls: box.scrollWidth - box.clientWidth};
})"""
# How many folded lines (.fold) show on the page.
FOLDS_SHOWN = """() => Array.from(document.querySelectorAll('main .fold'))
  .filter(f => f.getClientRects().length).length"""


def tables_shown(page, what: str) -> list[list[str]]:
    """The visible headers of every table of the page, after checking that none of them
    and not the page scrolls sideways."""
    assert_no_sideways_scroll(page, what)
    tables = page.evaluate(TABLES)
    for table in tables:
        assert table["scrolls"] <= 1, f"{what}: {table['shown']} scrolls {table['scrolls']}px"
    return [table["shown"] for table in tables]


def test_leaderboard_and_bot_page_show_what_matters_on_a_phone(phone, page, site):
    site.finished_match("manila")
    phone.goto("/leaderboard/manila")
    board = tables_shown(phone, "the leaderboard")[0]
    assert board == ["Rank", "Bot", "Skill", "Games"], board
    # The owner and when it last played fold under the bot's name (the first bot's row:
    # a "provisional" section's heading row may come first), the μ ± 2σ bar under skill.
    first = phone.locator("main table tr:has(td)").first
    expect(first.locator("td").nth(1).locator(".fold")).to_contain_text(
        re.compile(r"by \w+ · \d{4}-")
    )
    expect(first.locator("td").nth(3).locator(".fold .spread")).to_be_visible()  # under skill
    shot(phone, "54-phone-leaderboard")
    bot_page = phone.locator("main table a[href^='/bots/']").first.get_attribute("href")

    phone.goto(bot_page)
    expect(phone.locator("#rating-chart")).to_have_attribute("data-drawn", "true")
    phone.get_by_text("Rating history as a table").tap()
    shown = tables_shown(phone, "the bot page")
    assert shown[0] == ["Rating of v1", "Skill", "μ ± 2σ"], shown
    # The record by table size and by seat (wins and faults fold under games on a phone).
    assert shown[1] == ["Players", "Games", "Mean rank", "Share", "Target"], shown
    assert shown[2][0] == "Seat" and shown[2][1:3] == ["Games", "Mean rank"], shown
    assert ["Version", "Skill", "Rated", "Seat results"] in shown, shown
    assert ["#", "Match", "Version", "Skill"] in shown, shown
    assert ["Opponent", "Matches", "Ahead", "Behind"] in shown, shown
    assert shown[-1] == ["Match", "Seats (rank)"], shown
    # The header and the chart with its legend fit the screen too.
    for part in ("main h1", "#rating-chart canvas", "#rating-chart .chart-legend"):
        right = phone.locator(part).evaluate("el => el.getBoundingClientRect().right")
        assert right <= PHONE["width"], f"{part} ends at {right}px"
    expect(phone.locator("main table").last.locator("tr").nth(1).locator(".fold")).to_be_visible()
    shot(phone, "55-phone-bot-page")

    # A desktop keeps every column; the folded lines, which would repeat them, are hidden.
    page.goto("/leaderboard/manila")
    shown = page.evaluate(TABLES)[0]["shown"]
    assert shown == [
        *("Rank", "Bot", "Owner", "Skill", "μ ± 2σ", "μ", "σ", "Re-solved skill", "Games"),
        "Last played",
    ], shown
    assert page.evaluate(FOLDS_SHOWN) == 0
    page.goto(bot_page)
    page.get_by_text("Rating history as a table").click()
    shown = [table["shown"] for table in page.evaluate(TABLES)]
    assert shown[0] == ["Rating of v1", "Skill", "μ ± 2σ", "Evidence"], shown
    assert shown[1][:3] == ["Players", "Games", "Wins"], shown  # the record by table size
    versions = next(t for t in shown if t[:3] == ["Version", "State", "Skill"])
    assert "Last fault" in versions, shown
    assert ["Opponent", "Owner", "Matches", "Ahead", "Behind", "Tied"] in shown, shown
    assert shown[-1] == ["Match", "Game", "State", "Seats (rank)", "Finished"], shown
    assert page.evaluate(FOLDS_SHOWN) == 0


# -- the Caravelas map's labels ------------------------------------------------
# What a person reads on the map, as boxes on the screen: fleets, cube counts, names.
MAP_MARKS = """() => Array.from(document.querySelectorAll(
    '#board svg .fleet, #board svg .cube-count, #board svg .place-label')).map(m => {
  const r = m.getBoundingClientRect();
  return {kind: m.getAttribute('class').split(' ')[0], place: m.dataset.place || null,
          what: m.textContent, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom};
})"""
# The circles of the main ports (Lisboa, Calecute, the Cape), by place id.
MAIN_PORTS = """() => Array.from(document.querySelectorAll(
    '#board svg g.lisboa, #board svg g.calecute, #board svg g.cape')).map(g => g.id.slice(7))"""


def caravelas_steps(page, site) -> list[int]:
    """Open a finished Caravelas match; the steps to look at, from the start to the end."""
    open_viewer(page, site, "caravelas")
    total = int(page.locator("#step-slider").get_attribute("max"))
    return sorted({0, total // 4, total // 2, 3 * total // 4, total})


def map_marks_at(page, step: int) -> list[dict]:
    page.locator("#step-slider").fill(str(step))
    board = page.locator("#board svg")
    expect(board).to_have_attribute("data-step", str(step))
    expect(board).to_have_attribute("data-stage", "final")
    return page.evaluate(MAP_MARKS)


def overlapping(marks: list[dict]) -> list[tuple[str, str]]:
    """Pairs of marks whose boxes share more than half a pixel each way."""
    return [
        (a["what"], b["what"])
        for i, a in enumerate(marks)
        for b in marks[i + 1 :]
        if min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > 0.5
        and min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > 0.5
    ]


def test_caravelas_map_on_a_phone_leaves_out_labels_rather_than_overlap(phone, site):
    players = served_summary(phone, site)["players"]
    for step in caravelas_steps(phone, site):
        marks = map_marks_at(phone, step)
        assert not overlapping(marks), f"step {step}: {overlapping(marks)}"
        # Fleets come first and are never left out.
        assert sum(m["kind"] == "fleet" for m in marks) == players, f"step {step}"
        if step == 0:  # every fleet at Lisboa, and still every main port keeps its name
            named = {m["place"] for m in marks if m["kind"] == "place-label"}
            assert set(phone.evaluate(MAIN_PORTS)) <= named, sorted(named)
    shot(phone, "53-phone-caravelas-map")

    # What the whole map had no room for comes back as the map is zoomed in.
    whole = {(m["kind"], m["place"]) for m in marks if m["kind"] != "fleet"}
    width = phone.locator("#board svg").evaluate("s => s.viewBox.baseVal.width")
    phone.locator("#zoom-in").tap()
    phone.locator("#zoom-in").tap()
    phone.wait_for_function(
        f"() => document.querySelector('#board svg').viewBox.baseVal.width < {width / 2}"
    )
    frame = phone.locator("#board").bounding_box()
    closer = [
        m
        for m in phone.evaluate(MAP_MARKS)
        if m["x0"] >= frame["x"]
        and m["x1"] <= frame["x"] + frame["width"]
        and m["y0"] >= frame["y"]
        and m["y1"] <= frame["y"] + frame["height"]
    ]
    assert not overlapping(closer), f"zoomed in: {overlapping(closer)}"
    back = {(m["kind"], m["place"]) for m in closer if m["kind"] != "fleet"} - whole
    assert back, "zooming in showed nothing the whole map left out"
    shot(phone, "53-phone-caravelas-map-zoomed")


def test_caravelas_map_on_a_desktop_shows_every_important_label(page, site):
    players = served_summary(page, site)["players"]
    for step in caravelas_steps(page, site):
        marks = map_marks_at(page, step)
        assert not overlapping(marks), f"step {step}: {overlapping(marks)}"
        kinds = [m["kind"] for m in marks]
        assert kinds.count("fleet") == players and kinds.count("cube-count") == len(
            data.CUBE_PLACES
        )
        named = {m["place"] for m in marks if m["kind"] == "place-label"}
        assert set(page.evaluate(MAIN_PORTS)) <= named, f"step {step}: {sorted(named)}"


def served_summary(page, site) -> dict:
    """The viewer's summary of the finished Caravelas match the tests open."""
    match_id = site.finished_match("caravelas")
    response = page.request.get(f"/matches/{match_id}/replay/summary.json")
    assert response.ok, response.text()
    return response.json()


# -- the navigation and wide tables -------------------------------------------
def nav_boxes(page) -> dict:
    """The nav's box and those of the name and the menu button, in CSS px."""
    return page.evaluate(
        """() => Object.fromEntries(["nav.site-nav", ".site-nav .brand", ".menu-toggle"]
            .map(s => [s, document.querySelector(s).getBoundingClientRect().toJSON()]))"""
    )


def assert_nav_on_one_line(page, what: str) -> None:
    boxes = nav_boxes(page)
    nav, brand, button = boxes["nav.site-nav"], boxes[".site-nav .brand"], boxes[".menu-toggle"]
    # One line: the name and the button side by side, and nothing else below them.
    assert abs((brand["top"] + brand["bottom"]) / 2 - (button["top"] + button["bottom"]) / 2) < 4
    assert button["left"] > brand["right"] and button["right"] <= page.viewport_size["width"]
    assert nav["height"] <= button["height"] + 24, f"{what}: the nav is {nav['height']}px tall"
    expect(page.locator(".site-nav .menu")).to_be_hidden()


def test_phone_navigation_is_one_line_and_a_menu(phone, site):
    phone.goto("/")
    assert_nav_on_one_line(phone, "logged out")
    shot(phone, "site-phone-nav-390")
    menu_button = phone.get_by_role("button", name="Menu")
    expect(menu_button).to_have_attribute("aria-expanded", "false")

    menu_button.tap()
    expect(menu_button).to_have_attribute("aria-expanded", "true")
    links = phone.locator(".site-nav .menu a")
    expect(links.first).to_be_visible()
    boxes = links.evaluate_all("links => links.map(a => a.getBoundingClientRect().toJSON())")
    assert min(b["height"] for b in boxes) >= 40, "menu links are small tap targets"
    assert max(b["right"] for b in boxes) <= phone.viewport_size["width"]
    assert_no_sideways_scroll(phone, "the open menu")
    shot(phone, "site-phone-menu-open-390")
    # Escape folds it again; a link in it goes where it says.
    phone.keyboard.press("Escape")
    expect(phone.locator(".site-nav .menu")).to_be_hidden()
    expect(menu_button).to_be_focused()
    menu_button.tap()
    phone.locator(".site-nav .menu").get_by_role("link", name="Writing a bot").tap()
    expect(phone.get_by_role("heading", level=1)).to_have_text("Writing a Tradewinds bot")
    assert_nav_on_one_line(phone, "the bot guide")

    register(phone, "flask")  # logged in the menu holds more links, still folded to one line
    assert_nav_on_one_line(phone, "logged in")
    phone.get_by_role("button", name="Menu").tap()
    expect(phone.get_by_role("button", name="Log out flask")).to_be_visible()
    shot(phone, "site-phone-menu-logged-in-390")


# Draws an element's screenshot on a canvas and returns, for a pixel column just
# inside each side, the brightest pixel (0-255): the page's white shows there unless
# a shadow lies along the whole edge. The outermost pixels are skipped: a box with a
# fractional width or top is captured with a rim of the page around it.
EDGE_LIGHT = """async (png) => {
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = img.width; canvas.height = img.height;
  const g = canvas.getContext("2d");
  g.drawImage(img, 0, 0);
  const rim = 4;
  const brightest = (x) => {
    const d = g.getImageData(x, rim, 1, img.height - 2 * rim).data;
    let best = 0;
    for (let i = 0; i < d.length; i += 4) best = Math.max(best, (d[i] + d[i + 1] + d[i + 2]) / 3);
    return best;
  };
  return [brightest(rim), brightest(img.width - 1 - rim)];
}"""


def edge_light(box, decoder) -> tuple[float, float]:
    """How light the left and right edges of `box` look on screen (255: untouched white)."""
    png = base64.b64encode(box.screenshot(animations="disabled")).decode()
    return tuple(decoder.evaluate(EDGE_LIGHT, png))


@pytest.mark.parametrize(
    ("path", "name"),
    [("/matches/{match}", "match"), ("/games/caravelas", "caravelas-rules")],
)
def test_tables_that_scroll_sideways_show_it(phone, site, path, name):
    phone.goto(path.format(match=site.finished_match("manila")))
    scrolls = phone.locator(".table-scroll").evaluate_all(
        "boxes => boxes.map(b => b.scrollWidth > b.clientWidth + 1)"
    )
    wide = [i for i, yes in enumerate(scrolls) if yes]
    assert wide, f"no table on {path} is wider than a phone"
    box = phone.locator(".table-scroll").nth(wide[0])
    box.scroll_into_view_if_needed()
    decoder = phone.context.new_page()  # a blank page: no site policy refuses the data: image
    try:
        left, right = edge_light(box, decoder)
        assert right < 235 <= 250 <= left, f"at the start: left {left}, right {right}"
        shot(phone, f"site-phone-{name}-table-390")
        box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
        left, right = edge_light(box, decoder)
        assert left < 235 <= 250 <= right, f"at the end: left {left}, right {right}"
        box.evaluate("b => { b.scrollLeft = (b.scrollWidth - b.clientWidth) / 2; }")
        left, right = edge_light(box, decoder)
        assert left < 235 and right < 235, f"in the middle: left {left}, right {right}"
    finally:
        decoder.close()
