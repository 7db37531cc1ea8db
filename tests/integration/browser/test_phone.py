"""Every page fits a phone's width: the page never scrolls sideways, the replay
board scales down to the screen and stays readable, wide tables scroll inside
their own box."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.integration.browser.conftest import games, needs_browser, shot
from tests.integration.browser.test_site import register

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


def assert_no_sideways_scroll(page, what: str) -> None:
    wide, screen = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert wide <= screen, f"{what} is {wide}px wide on a {screen}px screen"


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
    pages += ["/replays/open", "/login", "/register"]
    for path in pages:
        phone.goto(path)
        assert_no_sideways_scroll(phone, path)
    shot(phone, "51-phone-register")

    # Tables wider than the phone scroll inside their box rather than moving the page.
    phone.goto(bot_page)
    boxes = phone.locator("main table").evaluate_all(
        "tables => tables.map(t => { const box = t.closest('.table-scroll') || t;"
        " return [box.scrollWidth > box.clientWidth, getComputedStyle(box).overflowX]; })"
    )
    assert any(wide for wide, _ in boxes), "no table on the bot page is wider than a phone"
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
