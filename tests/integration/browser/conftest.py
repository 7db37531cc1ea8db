"""A live ladder served over HTTP and Debian's Chromium driven by Playwright.

One ladder for this package's tests (Redis, a Celery worker and beat, house
bots playing rated matches) keeps the browser tests to a few minutes; each test
gets a fresh browser context, so no test sees another's cookies. The ladder and
the browser end with the package: kept for the whole session, the house bots
went on playing through every later test, some one core's worth of CPU taken
from them all.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

import engine
from ladder import create_app
from ladder.extensions import app_settings
from ladder.models import Match
from ladder.services.house import seed_house_bots
from tests.integration.browser.helpers import serve
from tests.integration.conftest import needs_bwrap
from tests.integration.live import LiveLadder, wait_until

CHROMIUM = Path("/usr/bin/chromium")
# The flags this machine needs: no sandbox as root, no GPU, and nothing that calls home.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[3] / "var" / "screenshots"
# Screenshots are for a person to look at, so they are taken only when asked for
# (`SCREENSHOTS=1 make integration`): a full-page one of a long page costs seconds on a
# busy machine and checks nothing.
TAKE_SCREENSHOTS = os.environ.get("SCREENSHOTS", "") not in ("", "0")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
# Matches of three games on one worker: generous for a busy 2-core CI machine.
MATCH_WAIT_S = 240

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sync_playwright = None

needs_browser = [
    pytest.mark.integration,
    needs_bwrap,
    pytest.mark.skipif(sync_playwright is None, reason="playwright is not installed ([dev])"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="chromium missing (`make test` installs it)"),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]


class Site:
    """The live ladder plus the address of its web server."""

    def __init__(self, live: LiveLadder, url: str) -> None:
        self.live = live
        self.url = url

    def finished_match(self, game: str, timeout_s: float = MATCH_WAIT_S) -> int:
        """The id of a finished match of `game` with a replay, waiting for one if need be."""

        def find():
            with self.live.session() as s:
                return s.scalar(
                    select(Match.id)
                    .where(
                        Match.game == game,
                        Match.state == "finished",
                        Match.replay_key.is_not(None),
                    )
                    .order_by(Match.id)
                    .limit(1)
                )

        return wait_until(find, timeout_s, f"a finished {game} match")


@pytest.fixture(scope="package")
def site(tmp_path_factory):
    """A running ladder: house bots of every game play rated matches while the tests browse."""
    var = tmp_path_factory.mktemp("browser-ladder")
    live = LiveLadder(var)
    server = None
    try:
        with live.app.app_context():
            from ladder.extensions import db

            seed_house_bots(db.session, app_settings(live.app))  # announces nothing
        live.start_worker(concurrency=2)
        live.start_beat()
        # The browser gets the app as production runs it: CSRF on, same database and queue.
        app = create_app({**live.app.config, "WTF_CSRF_ENABLED": True})
        server, url = serve(app)
        yield Site(live, url)
    finally:
        if server is not None:
            server.shutdown()
        live.close()


@pytest.fixture(scope="package")
def browser():
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield chromium
        chromium.close()


def _watch(tab) -> list[str]:
    """Script errors and Content-Security-Policy violations of a page, as they happen."""
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on(
        "console",
        lambda msg: (
            errors.append(msg.text)
            if msg.type == "error" and "Content Security Policy" in msg.text
            else None
        ),
    )
    return errors


def _context(browser, site, viewport):
    context = browser.new_context(base_url=site.url, viewport=viewport, accept_downloads=True)
    context.set_default_timeout(15_000)
    return context


@pytest.fixture
def page(browser, site):
    """A desktop-sized page with its own cookies; console errors fail the test."""
    context = _context(browser, site, DESKTOP)
    tab = context.new_page()
    errors = _watch(tab)
    yield tab
    context.close()
    assert not errors, f"script errors or policy violations on the page: {errors}"


@pytest.fixture
def phone(browser, site):
    """A phone-sized page (390 × 844, touch) with its own cookies."""
    context = browser.new_context(
        base_url=site.url,
        viewport=PHONE,
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        accept_downloads=True,
    )
    context.set_default_timeout(15_000)
    tab = context.new_page()
    errors = _watch(tab)
    yield tab
    context.close()
    assert not errors, f"script errors or policy violations on the page: {errors}"


def shot(page, name: str) -> Path | None:
    """With SCREENSHOTS=1, save a full-page screenshot under var/screenshots/ for a
    developer to look at (its path; None when screenshots were not asked for)."""
    if not TAKE_SCREENSHOTS:
        return None
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def games() -> list[str]:
    return engine.game_names()
