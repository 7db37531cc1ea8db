"""A person plays a whole Meuterer game in the browser, by clicking, against house bots,
with a real table worker (`ladder worker --tables`): the play form, the live table,
its result and replay link. A spectator's tab watches the same table meanwhile.

Screenshots of each stage at 1280 and 390 px go to TABLE_SHOTS (default var/screenshots).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ladder import create_app
from ladder.cli.processes import worker_command
from ladder.extensions import app_settings
from ladder.services.house import seed_house_bots
from tests.integration.browser.conftest import (
    DESKTOP,
    PHONE,
    SCREENSHOTS,
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
    """The page at desktop and phone width, then back to the tab's own size."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    size = tab.viewport_size
    for width, viewport in (("1280", DESKTOP), ("390", PHONE)):
        tab.set_viewport_size(viewport)
        tab.wait_for_timeout(300)  # the board is redrawn for a phone's width
        tab.screenshot(path=str(SHOTS / f"{name}-{width}.png"), full_page=True)
    tab.set_viewport_size(size)


def test_a_person_plays_meuterer_to_the_end(table_site, browser):
    # The session's browser (conftest): a second Playwright in one session cannot start.
    errors: list[str] = []
    person = browser.new_context(base_url=table_site, viewport=DESKTOP)
    person.set_default_timeout(15_000)
    tab = person.new_page()
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    register(tab, "skipper")
    tab.goto("/games/meuterer")
    expect(tab.locator("#play")).to_contain_text("Play Meuterer yourself")
    tab.goto("/play/meuterer")
    tab.get_by_label("Players at the table").select_option("3")
    tab.get_by_label("Your seat").select_option("0")
    _shots(tab, "play-form")
    tab.get_by_role("button", name="Sit down at the table").click()
    expect(tab.locator("#table-status")).to_contain_text("You play seat 0")
    table_url = tab.url

    watching = browser.new_context(base_url=table_site, viewport=DESKTOP)
    spectator = watching.new_page()
    spectator.on("pageerror", lambda exc: errors.append(str(exc)))
    spectator.goto(table_url)
    expect(spectator.locator("#table-status")).to_contain_text("spectator")

    moves, shot_mid = 0, False
    deadline = time.monotonic() + GAME_WAIT_S
    while time.monotonic() < deadline:
        if tab.locator("#table-result").count():
            break
        button = tab.locator("#action-list button:not([disabled])").first
        try:
            button.wait_for(state="visible", timeout=3_000)
        except Exception:  # a bot is thinking, or the game just ended (the page reloads)
            continue
        if moves == 6 and not shot_mid:
            expect(spectator.locator("#board svg")).to_be_visible()
            _shots(tab, "table-seat")
            _shots(spectator, "table-spectator")
            shot_mid = True
        button.focus()
        tab.keyboard.press("Enter")  # the keyboard works as a click does
        if tab.locator("#confirm").is_visible():
            tab.locator("#confirm-yes").click()
        moves += 1
    expect(tab.locator("#table-result")).to_be_visible(timeout=30_000)
    assert moves > 5, f"only {moves} moves were clicked"
    expect(tab.locator("#table-result")).to_contain_text("Watch the replay")
    expect(tab.get_by_role("link", name="Play again")).to_be_visible()
    _shots(tab, "table-over")
    spectator.reload()
    expect(spectator.locator("#table-result")).to_be_visible()
    assert '"hand":' not in spectator.content()
    tab.get_by_role("link", name="Watch the replay").click()
    expect(tab.locator("#replay-viewer")).to_be_visible()
    person.close()
    watching.close()
    assert not errors, errors
