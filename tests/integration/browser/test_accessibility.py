"""Every public page passes axe-core's WCAG 2.1 A and AA rules with no critical or
serious violation, and loads with no console error and no failed request; at 390 px
again for what a phone's width changes (boxes that scroll sideways, the replay viewer).

The pages are enumerated from the app's url_map: each GET endpoint is either visited
(PAGES, built from data the session site has) or left out with a reason (EXCLUDED), so a
new page fails here until it is placed. axe-core comes from the npm registry (`make axe`,
pinned like uPlot) and is never served by the site: Playwright adds it to each page as
an init script, which the site's Content-Security-Policy does not govern, so the policy
stays in force for the site's own scripts and its violations show as console errors.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from ladder.broker import announce
from ladder.extensions import app_settings
from ladder.models import Bot, User
from ladder.services import accounts, bots, tables, tournaments
from tests.integration.browser.conftest import DESKTOP, PHONE, games, needs_browser
from tests.integration.live import GOOD_BOT, active_version

pytestmark = needs_browser

AXE_JS = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
FAILING = {"critical", "serious"}
# What a phone's width changes: wide tables become boxes that scroll sideways. Each page
# is checked for it again at 390 px.
PHONE_RULES = ["scrollable-region-focusable"]
MISSING = "/no-such-page"  # the 404 page, expected to answer 404 and nothing else

# GET endpoints that are not checked, and why.
EXCLUDED = {
    "static": "files (CSS, scripts, images), loaded by the pages that are checked",
    "pages.favicon": "redirects to the SVG icon in /static",
    "pages.upload": "redirects to the upload form, which needs a login",
    "pages.download": "a file download (the kit's wheel or sdist)",
    "boards.leaderboard_pick": "redirects to the first game's leaderboard (checked)",
    "boards.starter": "a Python file, not a page",
    "matches.replay": "a gzipped replay file",
    "replays.match_frames": "JSON the viewer loads (seen as a request of the match page)",
    "replays.match_summary": "JSON the viewer loads (seen as a request of the match page)",
    "tables.table_log": "JSON the table page loads",
    "accounts.account": "needs a login",
    "accounts.tokens": "needs a login",
    "bots.mine": "needs a login",
    "bots.upload": "needs a login",
    "bots.retire": "needs a login (the bot's owner)",
    "bots.download": "needs a login (the bot's owner); a file download",
    "tables.play": "needs a login",
    "tables.join": "needs a login and an invitation",
    "tournaments.create": "needs a staff login",
}
# Whole blueprints left out.
EXCLUDED_AREAS = {
    "api": "JSON for programs; a browser asking /api/v1/ is sent to the API reference (checked)",
    "staff": "needs a staff login",
}


@dataclass
class Fixtures:
    """Ids of what the pages with an id in their address show."""

    matches: dict[str, int]
    bot: int
    candidate: int
    tournament: int
    table: int


# Each visited endpoint and the addresses that show it.
PAGES = {
    "boards.index": lambda f: ["/"],
    "boards.game_list": lambda f: ["/games"],
    "boards.game": lambda f: [f"/games/{game}" for game in games()],
    "boards.leaderboard": lambda f: [f"/leaderboard/{game}" for game in games()],
    "tables.people": lambda f: [f"/leaderboard/{games()[0]}/people"],
    "bots.bot": lambda f: [f"/bots/{f.bot}"],
    "bots.version_test": lambda f: [f"/versions/{f.candidate}/test"],
    "matches.match_list": lambda f: ["/matches"],
    "matches.match": lambda f: [f"/matches/{f.matches[game]}" for game in games()],
    "replays.open_page": lambda f: ["/replays/open"],
    "tournaments.tournament_list": lambda f: ["/tournaments"],
    "tournaments.tournament": lambda f: [f"/tournaments/{f.tournament}"],
    "tables.table_list": lambda f: ["/tables"],
    "tables.table": lambda f: [f"/tables/{f.table}"],
    "pages.bot_guide": lambda f: ["/docs/bots"],
    "pages.api_reference": lambda f: ["/docs/api"],
    "accounts.login": lambda f: ["/login"],
    "accounts.register": lambda f: ["/register"],
}
# What a page draws after it loads, to wait for before axe looks at it.
DRAWN = {"/matches/": "#board svg[data-step]", "/tables/": "#board svg"}


def get_endpoints(app) -> set[str]:
    """The app's endpoints a browser can GET."""
    return {rule.endpoint for rule in app.url_map.iter_rules() if "GET" in rule.methods}


@pytest.fixture(scope="module")
def shown(site):
    """A finished match of each game, a house bot, a candidate's waiting test, an open
    tournament and a table waiting for a second person: nothing more for the workers."""
    live = site.live
    matches = {game: site.finished_match(game) for game in games()}
    game = games()[0]
    active_version(live, "a11y", "lookout", GOOD_BOT, game=game)
    with live.app.app_context():
        from ladder.extensions import db

        settings = app_settings(live.app)
        owner = db.session.scalar(select(User).where(User.username == "a11y"))
        with announce.quiet(db.session):  # its test waits: no match is played for it
            candidate = bots.upload_version(
                db.session, settings, owner, game, "lookout", "bot.py", GOOD_BOT, candidate=True
            )
        staff = accounts.register(db.session, "a11ystaff", "correct horse")
        staff.is_staff = True
        db.session.commit()
        cup = tournaments.create_tournament(
            db.session, staff, "Lantern cup", game, "round-robin", table_size=3, seed=5
        )
        tournaments.open_tournament(db.session, staff, cup.id)
        table = tables.create_table(db.session, settings, owner, game, 2, seat=0, opponents=[None])
        db.session.commit()
        house = db.session.scalar(select(Bot.id).where(Bot.game == game).order_by(Bot.id))
        return Fixtures(matches, house, candidate.id, cup.id, table.table.id)


class Watch:
    """Console errors, script errors and failed requests of one tab, page by page."""

    def __init__(self, tab) -> None:
        self.seen: list[str] = []
        self.expected_status: tuple[str, int] | None = None
        tab.on("pageerror", lambda exc: self.seen.append(f"script error: {exc}"))
        tab.on("console", self._console)
        tab.on("requestfailed", self._failed)
        tab.on("response", self._response)

    def _expected(self, url: str, status: int | None = None) -> bool:
        if self.expected_status is None:
            return False
        path, code = self.expected_status
        return url.endswith(path) and status in (None, code)

    def _console(self, msg) -> None:
        if msg.type != "error":
            return
        # The browser reports the 404 page's own answer as a resource that failed to load.
        if "Failed to load resource" in msg.text and self._expected(msg.location.get("url", "")):
            return
        self.seen.append(f"console: {msg.text} ({msg.location.get('url')})")

    def _failed(self, request) -> None:
        # Leaving a page cancels what it still had under way (a live table's poll).
        if request.failure != "net::ERR_ABORTED":
            self.seen.append(f"failed: {request.url} ({request.failure})")

    def _response(self, response) -> None:
        if response.status >= 400 and not self._expected(response.url, response.status):
            self.seen.append(f"{response.status}: {response.url}")

    def take(self) -> list[str]:
        seen, self.seen = self.seen, []
        return seen


def serious_violations(tab, rules: list[str] | None = None) -> list[str]:
    """axe's critical and serious WCAG 2.1 A/AA violations on the page (of only `rules`
    when given), one line each; after two frames, so a resize has been laid out."""
    only = {"type": "rule", "values": rules} if rules else {"type": "tag", "values": TAGS}
    found = tab.evaluate(
        """async only => {
            for (let i = 0; i < 2; i++) await new Promise(requestAnimationFrame);
            const result = await axe.run(document, {runOnly: only, resultTypes: ["violations"]});
            return result.violations.map(v => ({id: v.id, impact: v.impact,
                targets: v.nodes.map(n => n.target.join(" "))}));
        }""",
        only,
    )
    return [
        f"{v['id']} ({v['impact']}): {', '.join(v['targets'][:6])}"
        for v in found
        if v["impact"] in FAILING
    ]


def check(tab, watch: Watch, path: str, phone_rules, status: int = 200) -> list[str]:
    """What is wrong with one page, at 1280 px then at 390 px (`phone_rules` only, None
    for all): failed loads, console errors, axe violations."""
    watch.expected_status = (path, status) if status != 200 else None
    answer = tab.goto(path)
    assert answer is not None and answer.status == status, (
        f"{path} answered {answer and answer.status}"
    )
    for prefix, drawn in DRAWN.items():
        if path.startswith(prefix):
            expect(tab.locator(drawn)).to_be_attached()
    problems = [f"{path}: {line}" for line in serious_violations(tab)]
    tab.set_viewport_size(PHONE)
    try:
        problems += [f"{path} at 390 px: {line}" for line in serious_violations(tab, phone_rules)]
    finally:
        tab.set_viewport_size(DESKTOP)
    return [f"{path}: {line}" for line in watch.take()] + problems


@pytest.mark.skipif(not AXE_JS.exists(), reason="axe-core missing: `make axe` fetches it from npm")
def test_every_public_page_passes_axe(browser, site, shown):
    endpoints = get_endpoints(site.live.app)
    placed = set(PAGES) | set(EXCLUDED)
    unplaced = {e for e in endpoints - placed if e.split(".")[0] not in EXCLUDED_AREAS}
    assert not unplaced, f"pages neither checked nor excluded here: {sorted(unplaced)}"
    assert placed <= endpoints, f"no longer pages: {sorted(placed - endpoints)}"

    started = time.monotonic()
    paths = [path for make in PAGES.values() for path in make(shown)]
    viewer = f"/matches/{shown.matches['caravelas']}"  # the viewer with the most controls
    context = browser.new_context(base_url=site.url, viewport=DESKTOP)
    context.set_default_timeout(15_000)
    context.add_init_script(path=AXE_JS)
    problems: list[str] = []
    try:
        tab = context.new_page()
        watch = Watch(tab)
        for path in paths:
            # The replay viewer is laid out anew for a phone: every rule again at 390 px.
            problems += check(tab, watch, path, None if path == viewer else PHONE_RULES)
        problems += check(tab, watch, MISSING, PHONE_RULES, status=404)
    finally:
        context.close()
    took = time.monotonic() - started
    print(f"accessibility: {len(paths) + 1} pages at 1280 and 390 px in {took:.1f} s")
    assert not problems, "accessibility problems:\n" + "\n".join(problems)
