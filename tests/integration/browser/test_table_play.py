"""People play in the browser, by clicking, against house bots, with a real table worker
(`ladder worker --tables`): a whole Meuterer game on a desktop page (the play form, the
live table, its result and replay link, a spectator's tab watching meanwhile), one
Manila voyage on a phone-sized page, and a few moves on the Caravelas map. Moves are
made on the board where the board offers them (a card, then an island; a boat, a
space; a destination) and from the list of moves otherwise.

With SCREENSHOTS=1, screenshots of each stage at 1280 and 390 px go to TABLE_SHOTS
(default var/screenshots).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from ladder import create_app
from ladder.cli.processes import worker_command
from ladder.extensions import app_settings
from ladder.services.house import seed_house_bots
from tests.integration.browser.conftest import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    TAKE_SCREENSHOTS,
    needs_browser,
)
from tests.integration.browser.helpers import register, serve
from tests.integration.live import LiveLadder

pytestmark = needs_browser
GAME_WAIT_S = 240  # one Meuterer game: the person's clicks and the house bots' answers
SHOTS = Path(os.environ.get("TABLE_SHOTS") or SCREENSHOTS)


@pytest.fixture(scope="module")
def table_site(tmp_path_factory):
    """Redis, the house bots and only a table worker: no ladder matches compete for the CPU."""
    live = LiveLadder(tmp_path_factory.mktemp("table-ladder"))
    server = None
    try:
        with live.app.app_context():
            from ladder.extensions import db

            seed_house_bots(db.session, app_settings(live.app))
        live.start("tables", worker_command(1, tables=True))
        live.wait_for_log("tables", " ready.")
        app = create_app({**live.app.config, "WTF_CSRF_ENABLED": True})
        server, url = serve(app)
        yield url
    finally:
        if server is not None:
            server.shutdown()
        live.close()


def _shots(tab, name: str) -> None:
    """The page at desktop and phone width, then back to the tab's own size (SCREENSHOTS=1)."""
    if not TAKE_SCREENSHOTS:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    size = tab.viewport_size
    for width, viewport in (("1280", DESKTOP), ("390", PHONE)):
        tab.set_viewport_size(viewport)
        tab.wait_for_timeout(300)  # the board is redrawn for a phone's width
        tab.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    tab.set_viewport_size(size)


def _move(tab, board_first: bool) -> str | None:
    """Make one move: "board" when it was made by clicks on the board, "list" when by a
    button of the list (focused and played with Enter), None when it is not our turn."""
    button = tab.locator("#action-list button.action:not([disabled])").first
    try:
        button.wait_for(state="visible", timeout=3_000)
    except PlaywrightTimeout:  # a bot is thinking, or the game just ended (the page reloads)
        return None
    targets = tab.locator("#board [data-target]")
    how = "list"
    if board_first and targets.count():
        how = "board"
        targets.first.click()
        for _ in range(3):  # several moves share the target: narrow on, then the list
            if not tab.locator("#action-list .narrowed").is_visible():
                break
            others = tab.locator("#board [data-target]:not(.picked)")
            if others.count():
                others.first.click()
            else:
                tab.locator("#action-list button.action").first.click()
    else:
        button.focus()
        tab.keyboard.press("Enter")  # the keyboard works as a click does
    if tab.locator("#confirm").is_visible():
        tab.locator("#confirm-yes").click()
    return how


def _sit_down(browser, url: str, game: str, players: int, viewport, errors: list[str]):
    person = browser.new_context(base_url=url, viewport=viewport)
    person.set_default_timeout(15_000)
    tab = person.new_page()
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    register(tab, f"skipper-{game}")
    tab.goto(f"/play/{game}")
    tab.get_by_label("Players at the table").select_option(str(players))
    tab.get_by_label("Your seat").select_option("0")
    return person, tab


def test_a_person_plays_meuterer_to_the_end(table_site, browser):
    # The session's browser (conftest): a second Playwright in one session cannot start.
    errors: list[str] = []
    person, tab = _sit_down(browser, table_site, "meuterer", 3, DESKTOP, errors)
    _shots(tab, "play-form")
    tab.get_by_role("button", name="Sit down at the table").click()
    expect(tab.locator("#table-status")).to_contain_text("You play seat 0")
    table_url = tab.url

    watching = browser.new_context(base_url=table_site, viewport=DESKTOP)
    spectator = watching.new_page()
    spectator.on("pageerror", lambda exc: errors.append(str(exc)))
    spectator.goto(table_url)
    expect(spectator.locator("#table-status")).to_contain_text("spectator")

    made: list[str] = []
    deadline = time.monotonic() + GAME_WAIT_S
    while time.monotonic() < deadline and not tab.locator("#table-result").count():
        if len(made) == 6 and tab.locator("#board [data-target]").count():
            expect(spectator.locator("#board svg")).to_be_visible()
            _shots(tab, "table-seat")
            _shots(spectator, "table-spectator")
            assert not spectator.locator("#board [data-target]").count()  # nothing to click
        # Every other move from the board, the rest from the list with the keyboard.
        how = _move(tab, board_first=len(made) % 2 == 0)
        if how:
            made.append(how)
    expect(tab.locator("#table-result")).to_be_visible(timeout=30_000)
    assert len(made) > 5, f"only {len(made)} moves were made"
    assert "board" in made and "list" in made, made
    expect(tab.locator("#table-result")).to_contain_text("Watch the replay")
    expect(tab.get_by_role("link", name="Play again")).to_be_visible()
    _shots(tab, "table-over")
    spectator.reload()
    expect(spectator.locator("#table-result")).to_be_visible()
    assert '"hand":' not in spectator.content()
    tab.get_by_role("link", name="Watch the replay").click()
    expect(tab.locator("#replay-viewer")).to_be_visible()
    # The match page names the person's seat and the live table it was played at.
    expect(tab.locator("td.person")).to_contain_text("skipper-meuterer")
    expect(tab.locator("#live-table")).to_have_attribute("href", table_url.split(table_site)[-1])
    _shots(tab, "table-match")
    person.close()
    watching.close()
    assert not errors, errors


def test_a_person_plays_a_manila_voyage_on_a_phone(table_site, browser):
    errors: list[str] = []
    person, tab = _sit_down(browser, table_site, "manila", 3, PHONE, errors)
    tab.get_by_role("button", name="Sit down at the table").click()
    expect(tab.locator("#table-status")).to_contain_text("You play seat 0")
    tab.wait_for_function("() => window.Tradewinds.table !== undefined")  # table.js is running
    voyage = "window.Tradewinds.table.table.view.voyage"
    made: list[str] = []
    shot = False
    deadline = time.monotonic() + GAME_WAIT_S
    while time.monotonic() < deadline and tab.evaluate(voyage) == 1:
        if not shot and tab.locator("#board [data-target]").count():
            _shots(tab, "table-manila")
            shot = True
        how = _move(tab, board_first=True)
        if how:
            made.append(how)
    assert tab.evaluate(voyage) == 2, "the first voyage did not end"
    assert "board" in made, made  # an accomplice placed on a boat or a space by a tap
    # Readable on the phone: nothing wider than the screen.
    assert tab.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    tab.get_by_role("button", name="Resign…").click()
    tab.get_by_role("button", name="Yes, resign").click()
    expect(tab.locator("#table-result")).to_be_visible(timeout=30_000)
    person.close()
    assert not errors, errors


def test_a_person_sails_on_the_caravelas_map(table_site, browser):
    errors: list[str] = []
    person, tab = _sit_down(browser, table_site, "caravelas", 3, DESKTOP, errors)
    tab.get_by_role("button", name="Sit down at the table").click()
    expect(tab.locator("#board g[id^='circle-']").first).to_be_attached()  # the map is drawn
    made: list[str] = []
    deadline = time.monotonic() + GAME_WAIT_S
    while time.monotonic() < deadline and made.count("board") < 3:
        if not made and tab.locator("#board [data-target]").count():
            _shots(tab, "table-caravelas")
        how = _move(tab, board_first=True)
        if how:
            made.append(how)
    assert made.count("board") == 3, made  # destinations clicked on the map
    person.close()
    assert not errors, errors
