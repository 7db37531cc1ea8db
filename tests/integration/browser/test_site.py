"""The site in a real browser: accounts, uploads, charts, phones and keyboards, and the
pages a first-time visitor reads (rules, the bot guide, API tokens) at 1280 and 390 px."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from playwright.sync_api import expect

from ladder.extensions import app_settings, db
from ladder.services import resolve
from tests.integration.browser.conftest import PHONE, games, needs_browser, shot
from tests.integration.browser.helpers import register

pytestmark = needs_browser

BOT = """
def act(view, legal):
    # The first legal action: always valid, so validation passes.
    return legal[0]
"""


def log_in(page, name: str, password: str = "correct horse battery") -> None:
    page.goto("/login")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    # On a phone the button is in the folded menu: its text says who is logged in.
    expect(page.locator(".site-nav button.link")).to_have_text(f"Log out {name}")


def test_register_log_in_upload_and_see_the_bot_validated(page, site, tmp_path):
    register(page, "ahab")
    shot(page, "01-logged-in")
    # Logged in at 1280 px, the whole menu is one line: one row of links, not two.
    heights = page.evaluate(
        "[document.querySelector('.site-nav').offsetHeight,"
        " document.querySelector('.site-nav a').offsetHeight]"
    )
    assert heights[0] < 2.5 * heights[1], f"the menu takes {heights[0]} px: it wraps"

    page.get_by_role("link", name="Upload", exact=True).click()
    page.get_by_label("Game").select_option("meuterer")
    page.get_by_label("Name").fill("firstmate")
    source = tmp_path / "bot.py"
    source.write_text(BOT)
    page.locator("input[type=file]").set_input_files(str(source))
    page.get_by_role("button", name="Upload").click()

    expect(page.get_by_role("heading", level=1)).to_contain_text("firstmate")
    expect(page.locator(".flash")).to_contain_text("waits for validation")
    shot(page, "02-uploaded")

    # The worker validates it in the sandbox; reloading shows the new state.
    state = page.locator("td.state-active")
    for _ in range(60):
        if state.count():
            break
        page.wait_for_timeout(1000)
        page.reload()
    expect(state).to_have_text("active")
    page.get_by_text("Validation log").click()
    expect(page.locator("details pre").first).to_contain_text("Validation passed")
    shot(page, "03-validated")

    # Logging out and in again with the same password works.
    page.get_by_role("button", name="Log out ahab").click()
    expect(page.get_by_role("link", name="Log in")).to_be_visible()
    log_in(page, "ahab")


def test_leaderboard_draws_the_skill_distribution(page, site):
    site.finished_match("manila")
    page.goto("/leaderboard/manila")
    expect(page.get_by_role("heading", name="Skill distribution")).to_be_visible()
    chart = page.locator("#skill-chart")
    expect(chart).to_have_attribute("data-drawn", "true")
    expect(chart.locator("canvas")).to_have_count(1)
    box = chart.locator("canvas").bounding_box()
    assert box["width"] > 300 and box["height"] > 100
    # Its legend gives the whole range and every active bot at rest, no placeholder.
    expect(chart.locator(".chart-legend")).to_contain_text(re.compile(r"skill -?\d+(\.\d+)? to \d"))
    expect(chart.locator(".chart-legend")).to_contain_text(re.compile(r"bots [1-9]\d*"))
    assert "--" not in chart.locator(".chart-legend").text_content()
    # The numbers are still there as a table, and the leaderboard table is untouched.
    counts = page.locator("#skill-data")
    assert '"bins"' in counts.text_content()
    expect(page.locator("table").first.locator("tr")).not_to_have_count(1)
    shot(page, "10-leaderboard")


def test_bot_page_draws_the_rating_history(page, site):
    site.finished_match("manila")
    with site.live.app.app_context():  # a re-solve, so the chart has its second curve
        resolve.resolve_game(db.session, app_settings(), "manila")
        db.session.commit()
    page.goto("/leaderboard/manila")
    page.locator("table a[href^='/bots/']").first.click()
    expect(page.get_by_role("heading", name="Rating history")).to_be_visible()
    chart = page.locator("#rating-chart")
    expect(chart).to_have_attribute("data-drawn", "true")
    expect(chart.locator("canvas")).to_have_count(1)
    # The legend names every series with a value before any hover (the latest match's),
    # never a placeholder; hovering a point shows that match's values.
    legend = chart.locator(".chart-legend")
    latest = page.locator("details.chart-table table tr").nth(1).locator("td")
    expect(legend).to_contain_text(re.compile(r"after match #\d+ \(v\d+\), the latest"))
    expect(legend).to_contain_text(f"skill (μ − 3σ) {latest.nth(3).text_content()}")
    expect(legend).to_contain_text(f"μ {latest.nth(4).text_content()}")
    expect(legend).to_contain_text(re.compile(r"re-solved skill -?\d+\.\d\d \(\d{4}-\d\d-\d\d\)"))
    assert not re.search(r"--|—|\bnull\b|NaN", legend.text_content()), legend.text_content()
    expect(chart.locator(".u-legend")).to_have_count(0)
    chart.scroll_into_view_if_needed()  # below the rating and comparison: bring it in view
    plot = chart.locator(".u-over").bounding_box()  # the plotting area, inside the axes
    page.mouse.move(plot["x"] + 3, plot["y"] + plot["height"] / 2)
    expect(legend).not_to_contain_text("the latest")
    expect(legend).to_contain_text(re.compile(r"after match #\d+ \(v\d+\)"))
    page.mouse.move(0, 0)
    expect(legend).to_contain_text("the latest")
    page.get_by_text("Rating history as a table").click()
    expect(page.locator("details.chart-table table tr").nth(1)).to_be_visible()
    shot(page, "11-bot-page")
    # The legend's numbers are written as the table's (Python's): exact ties to even.
    values = [25.125, 25.135, -25.125, -0.375, 0.625, 18.875, 3.005, 19.28, -1.0, 0.0]
    written = page.evaluate("vs => vs.map(window.TradewindsCharts.twoPlaces)", values)
    assert written == [f"{v:.2f}" for v in values]


def test_keyboard_skip_link_and_visible_focus(page, site):
    page.goto("/")
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    expect(skip).to_be_focused()
    # The focused link is on screen and outlined.
    box = skip.bounding_box()
    assert box is not None and box["x"] >= 0 and box["y"] >= 0
    outline = skip.evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline not in ("none", "")
    shot(page, "20-skip-link")
    page.keyboard.press("Enter")
    expect(page.locator("main#content")).to_be_focused()
    # Tabbing on from main reaches the page's own links, not the nav again.
    page.keyboard.press("Tab")
    focused_in_main = page.evaluate("document.activeElement.closest('main') !== null")
    assert focused_in_main


def test_keyboard_reaches_the_leaderboard_from_the_nav(page, site):
    page.goto("/")
    for _ in range(6):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent") == "Leaderboards":
            break
    else:
        pytest.fail("Tab never reached the Leaderboards link")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/leaderboard/\w+$"))


def test_phone_sized_pages_fit_the_screen(phone, site):
    site.finished_match("manila")
    for path, name in (("/", "30-phone-home"), ("/leaderboard/manila", "31-phone-leaderboard")):
        phone.goto(path)
        # Nothing makes the page itself wider than the phone: wide tables scroll inside.
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{path} is {width}px wide on a {PHONE['width']}px phone"
        shot(phone, name)
    # Every nav link, once the menu is open, is a comfortable tap target.
    phone.get_by_role("button", name="Menu").tap()
    heights = phone.locator(".site-nav .menu a").evaluate_all(
        "links => links.map(a => a.getBoundingClientRect().height)"
    )
    assert heights and min(heights) >= 40
    table = phone.locator("main table").first
    overflow = table.evaluate(
        "t => { const box = t.closest('.table-scroll') || t;"
        " return [getComputedStyle(box).overflowX, box.scrollWidth > box.clientWidth]; }"
    )
    assert overflow[0] in ("auto", "scroll")
    expect(phone.locator("#skill-chart")).to_have_attribute("data-drawn", "true")
    chart_width = phone.locator("#skill-chart canvas").bounding_box()["width"]
    assert chart_width <= PHONE["width"]


def test_pages_without_the_chart_library_still_show_their_numbers(page, site):
    site.finished_match("manila")
    page.route("**/static/vendor/**", lambda route: route.abort())
    page.goto("/leaderboard/manila")
    expect(page.locator("#skill-chart")).to_be_hidden()
    page.get_by_text("Skill distribution as a table").click()
    expect(page.locator("details.chart-table table tr")).not_to_have_count(1)
    page.locator("table a[href^='/bots/']").first.click()
    # The server's sketch stays in place of the chart, and the table is there.
    expect(page.locator("#rating-chart .sparkline polyline")).to_be_visible()
    expect(page.locator("#rating-chart canvas")).to_have_count(0)
    expect(page.locator("#rating-chart")).not_to_have_attribute("data-drawn", "true")
    shot(page, "12-bot-page-without-chart-library")


# -- what a first-time visitor reads -------------------------------------------
def both_widths(page, name: str) -> None:
    """Screenshots of the page as it is now, at 1280 px and at a phone's 390 px, which it fits."""
    size = page.viewport_size
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= width, f"{name} is {wide}px wide at {width}px"
        shot(page, f"{name}-{width}")
    page.set_viewport_size(size)


@pytest.mark.parametrize("game", games())
def test_game_page_shows_the_rules_as_a_document(page, site, game):
    page.goto(f"/games/{game}")
    expect(page).to_have_title(f"{game.capitalize()} · Tradewinds")
    rules = page.locator("#rules")
    expect(rules.locator("h2").first).to_be_visible()
    expect(rules.locator("table").first).to_be_visible()
    assert rules.locator("table").count() >= 2
    # The example view is folded away until asked for.
    view = page.locator("details.fold").first
    expect(view.locator("pre")).to_be_hidden()
    view.locator("summary").click()
    expect(view.locator("pre")).to_be_visible()
    expect(view.locator("pre")).to_contain_text('"phase"')
    view.locator("summary").click()
    # The "rules" link under the heading lands on them.
    page.get_by_role("link", name="rules", exact=True).click()
    expect(page).to_have_url(re.compile(r"#rules$"))
    both_widths(page, f"site-game-{game}")


def test_bot_guide_is_one_click_from_home_and_from_the_upload_page(page, site):
    page.goto("/")
    expect(page).to_have_title("Tradewinds")
    page.locator("main").get_by_role("link", name="Writing a bot").click()
    expect(page).to_have_url(re.compile(r"/docs/bots$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Writing a Tradewinds bot")
    curl = page.locator("pre", has_text="Authorization: Bearer")
    expect(curl).to_contain_text("-F file=@bot.py")
    expect(curl).to_contain_text("/api/v1/versions")
    expect(page).to_have_title("Writing a bot · Tradewinds")
    both_widths(page, "site-bot-guide")

    register(page, "queequeg")
    page.goto("/upload")  # the short address people type
    expect(page).to_have_url(re.compile(r"/bots/upload$"))
    page.locator("main").get_by_role("link", name="Writing a bot").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Writing a Tradewinds bot")


def test_the_site_has_an_icon(page, site):
    page.goto("/")
    href = page.locator("link[rel=icon]").get_attribute("href")
    icon = page.request.get(href)
    assert icon.ok and icon.headers["content-type"].startswith("image/svg+xml")
    assert b"<svg" in icon.body()
    # Clients that ask the old address are sent to the same icon.
    assert page.request.get("/favicon.ico").url.endswith(href)


def test_token_form_is_blank_after_making_a_token(page, site):
    register(page, "starbuck")
    page.get_by_role("link", name="API tokens").click()
    page.get_by_label("Token name").fill("laptop")
    page.get_by_role("button", name="Create token").click()
    token = page.locator(".flash code")
    expect(token).to_have_text(re.compile(r"^tw_"))
    expect(page.get_by_label("Token name")).to_have_value("")
    expect(page.locator("table")).to_contain_text("laptop")
    # The command-line example carries the new token.
    expect(page.locator("pre.command")).to_contain_text(f"Bearer {token.text_content()}")
    # Logged in, the nav holds more links: the site's on one row, the account's on a second.
    tops = page.locator(".site-nav a, .site-nav button").evaluate_all(
        "els => els.filter(e => e.offsetParent).map(e => Math.round(e.getBoundingClientRect().top))"
    )
    tops.sort()
    rows = 1 + sum(1 for a, b in pairwise(tops) if b - a > 8)
    assert rows <= 2, f"the nav takes {rows} rows: link tops {tops}"
    both_widths(page, "site-tokens")


def test_desktop_nav_is_one_row_and_has_no_menu_button(page, site):
    page.goto("/")
    expect(page.get_by_role("button", name="Menu")).to_be_hidden()
    tops = page.locator(".site-nav a").evaluate_all(
        "links => links.map(a => Math.round(a.getBoundingClientRect().top))"
    )
    assert max(tops) - min(tops) <= 4, f"the nav wraps at 1280 px: link tops {sorted(set(tops))}"
