"""Tournament pages in Chromium at 1280 and 390 px: a finished round robin and a
finished elimination (played by the live worker), the list and the bot page; the
page never scrolls sideways, the bracket scrolls inside its own box; screenshots
under var/screenshots/ for a person to look at."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from ladder.extensions import app_settings
from ladder.models import Bot, BotVersion, User
from ladder.queries import tournaments as tournament_queries
from ladder.services import accounts, tournaments
from tests.integration.browser.conftest import needs_browser, shot
from tests.integration.browser.helpers import assert_no_sideways_scroll
from tests.integration.live import GOOD_BOT, active_version, wait_until

pytestmark = needs_browser

GAME = "meuterer"


@pytest.fixture(scope="module")
def held(site):
    """Two finished tournaments of house bots and two players' bots: round robin, elimination."""
    live = site.live
    mine = [active_version(live, f"tplayer{i}", f"tourist{i}", GOOD_BOT, game=GAME) for i in (1, 2)]
    made = {}
    with live.app.app_context():
        from ladder.extensions import db

        staff = accounts.register(db.session, "tstaff", "correct horse")
        db.session.commit()
        staff.is_staff = True
        db.session.commit()
        house = db.session.scalars(
            select(BotVersion.id)
            .join(Bot, BotVersion.bot_id == Bot.id)
            .join(User, Bot.owner_id == User.id)
            .where(Bot.game == GAME, User.username == "demo", BotVersion.state == "active")
        ).all()
        for fmt, size in (("round-robin", 3), ("elimination", 3)):
            t = tournaments.create_tournament(
                db.session, staff, f"Harbour {fmt} cup", GAME, fmt, table_size=size, seed=11
            )
            tournaments.open_tournament(db.session, staff, t.id)
            db.session.commit()
            for vid in [*house, *mine]:
                version = db.session.get(BotVersion, vid)
                if version.bot.owner.username == "demo":
                    tournaments.add_house_bot(db.session, app_settings(live.app), staff, t.id, vid)
                    db.session.commit()
                else:
                    tournaments.enter(db.session, version.bot.owner, t.id, version.bot_id)
            tournaments.start(db.session, app_settings(live.app), staff, t.id)
            db.session.commit()
            made[fmt] = t.id

    def done():
        with live.app.app_context():
            from ladder.extensions import db

            return all(
                tournament_queries.get_tournament(db.session, tid).state == "finished"
                for tid in made.values()
            )

    wait_until(done, 300, "both tournaments finished")
    return made


@pytest.mark.parametrize("fmt", ["round-robin", "elimination"])
def test_tournament_page_desktop_and_phone(page, phone, held, fmt):
    url = f"/tournaments/{held[fmt]}"
    for tab, size in ((page, "1280"), (phone, "390")):
        tab.goto(url)
        expect(tab.locator("h1")).to_contain_text("cup")
        expect(tab.locator("table.standings")).to_be_visible()
        assert_no_sideways_scroll(tab, f"the {fmt} tournament page at {size} px")
        if fmt == "elimination":
            expect(tab.locator(".bracket .bracket-round").first).to_be_visible()
        shot(tab, f"tournament-{fmt}-{size}")


def test_list_and_bot_page(page, phone, held):
    for tab, size in ((page, "1280"), (phone, "390")):
        tab.goto("/tournaments")
        expect(tab.locator("text=Harbour round-robin cup")).to_be_visible()
        assert_no_sideways_scroll(tab, f"the tournament list at {size} px")
        shot(tab, f"tournaments-{size}")
        tab.click("text=Harbour round-robin cup")
        tab.locator("table.standings a").first.click()
        expect(tab.locator("h2", has_text="Tournaments")).to_be_visible()
        assert_no_sideways_scroll(tab, f"a bot page at {size} px")
        shot(tab, f"tournament-bot-page-{size}")
