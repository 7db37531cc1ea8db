"""The replay viewer in a real browser, driven through its DOM contract.

The contract: `#replay-viewer` holds the controls (`#to-start`, `#step-back`,
`#play-pause`, `#step-forward`, `#to-end`, `#step-slider`, `#speed`, `#seat-view`),
`#step-label` reading "step K / N", the `#move-list` <ol> whose current item has
aria-current="step", and `#board` with one <svg data-step data-game>.
"""

from __future__ import annotations

import gzip
import json
import re

import pytest
from playwright.sync_api import expect

from tests.integration.browser.conftest import PHONE, games, needs_browser, shot

pytestmark = needs_browser

STEP_LABEL = re.compile(r"step (\d+) / (\d+)")


def steps(page) -> tuple[int, int]:
    """(K, N) from the step label."""
    text = page.locator("#step-label").text_content() or ""
    found = STEP_LABEL.search(text)
    assert found, f"step label reads {text!r}"
    return int(found.group(1)), int(found.group(2))


def board(page):
    return page.locator("#board svg")


def expect_step(page, k: int) -> None:
    expect(board(page)).to_have_attribute("data-step", str(k))
    expect(page.locator("#step-label")).to_contain_text(re.compile(rf"step {k} / \d+"))


def press(page, control: str) -> None:
    """Click a viewer button, unless it is disabled because it would do nothing here."""
    button = page.locator(control)
    if button.is_enabled():
        button.click()


def open_match(page, site, game: str) -> int:
    """Open a finished match of `game`, wait for the viewer's first board; returns N."""
    match_id = site.finished_match(game)
    page.goto(f"/matches/{match_id}")
    viewer = page.locator("#replay-viewer")
    expect(viewer).to_be_visible()
    expect(board(page)).to_have_count(1)
    expect(board(page)).to_have_attribute("data-game", game)
    _, total = steps(page)
    assert total > 1, f"a finished {game} match has {total} steps"
    return total


@pytest.mark.parametrize("game", games())
def test_step_through_a_replay_and_see_the_board_change(page, site, game):
    total = open_match(page, site, game)
    press(page, "#to-start")
    expect_step(page, 0)
    first = board(page).inner_html()
    shot(page, f"40-{game}-start")

    page.locator("#step-forward").click()
    expect_step(page, 1)
    # The move list marks the move just played; the board was redrawn for it.
    current = page.locator("#move-list li[aria-current='step']")
    expect(current).to_have_count(1)
    assert current.text_content().strip()
    assert board(page).inner_html() != first

    page.locator("#step-forward").click()
    expect_step(page, 2)
    page.locator("#step-back").click()
    expect_step(page, 1)

    press(page, "#to-end")
    expect_step(page, total)
    assert page.locator("#move-list li").count() >= total
    shot(page, f"41-{game}-end")

    # The slider jumps anywhere.
    middle = total // 2
    page.locator("#step-slider").fill(str(middle))
    expect_step(page, middle)
    current_index = page.locator("#move-list li").evaluate_all(
        "items => items.findIndex(li => li.getAttribute('aria-current') === 'step')"
    )
    assert current_index >= 0


@pytest.mark.parametrize("game", games())
def test_seat_views_show_what_each_seat_saw(page, site, game):
    total = open_match(page, site, game)
    seat_view = page.locator("#seat-view")
    options = seat_view.locator("option").evaluate_all("opts => opts.map(o => o.value)")
    assert options[0] == "spectator"
    seats = options[1:]
    assert seats == [str(i) for i in range(len(seats))] and len(seats) >= 2
    press(page, "#to-end")
    expect_step(page, total)
    seat_view.select_option("spectator")
    expect_step(page, total)
    spectator = board(page).inner_html()
    drawings = {}
    for seat in seats:
        seat_view.select_option(seat)
        expect(seat_view).to_have_value(seat)
        expect_step(page, total)  # switching the view keeps the step
        page.wait_for_load_state("networkidle")  # the seat's frames have come and been drawn
        drawings[seat] = board(page).inner_html()
    shot(page, f"42-{game}-seat-{seats[-1]}")
    # The all-seeing spectator sees more than at least one seat did (hidden hands or shares).
    assert any(drawing != spectator for drawing in drawings.values())


@pytest.mark.parametrize("game", games())
def test_keyboard_drives_the_viewer(page, site, game):
    total = open_match(page, site, game)
    press(page, "#to-start")
    expect_step(page, 0)
    # The board is a tab stop of its own, after the controls: keys work there whatever
    # the buttons' states.
    page.locator("#step-slider").focus()
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "board":
            break
    else:
        pytest.fail("Tab from the slider never reached the board")
    page.keyboard.press("ArrowRight")
    expect_step(page, 1)
    page.keyboard.press("ArrowRight")
    expect_step(page, 2)
    page.keyboard.press("ArrowLeft")
    expect_step(page, 1)
    page.keyboard.press("End")
    expect_step(page, total)
    page.keyboard.press("Home")
    expect_step(page, 0)
    # Space plays: the step moves on by itself; Space again pauses it.
    page.locator("#speed").evaluate(
        "select => { select.value = select.options[select.options.length - 1].value;"
        " select.dispatchEvent(new Event('change', {bubbles: true})); }"
    )
    page.locator("#board").focus()
    page.keyboard.press(" ")
    page.wait_for_function(
        "() => Number(document.querySelector('#board svg').dataset.step) >= 2", timeout=10_000
    )
    page.keyboard.press(" ")
    paused_at = int(board(page).get_attribute("data-step"))
    page.wait_for_timeout(1500)
    assert int(board(page).get_attribute("data-step")) in (paused_at, paused_at + 1)
    later = int(board(page).get_attribute("data-step"))
    page.wait_for_timeout(1500)
    assert int(board(page).get_attribute("data-step")) == later, "Space did not pause"


def test_download_the_replay_and_open_it_from_disk(page, site, tmp_path):
    game = "manila" if "manila" in games() else games()[0]
    total = open_match(page, site, game)
    with page.expect_download() as info:
        page.locator("a[href$='.json.gz']").first.click()
    download = info.value
    assert download.suggested_filename.endswith(".json.gz")
    packed = tmp_path / download.suggested_filename
    download.save_as(packed)
    record = json.loads(gzip.decompress(packed.read_bytes()))
    assert record["game"] == game

    # A plain .json file, as `ladder play --replay` writes it.
    plain = tmp_path / "replay.json"
    plain.write_text(json.dumps(record, indent=1))
    page.goto("/replays/open")
    expect(page.locator("#drop-zone")).to_be_visible()
    page.locator("#replay-file").set_input_files(str(plain))
    expect(page.locator("#replay-viewer")).to_be_visible()
    expect(board(page)).to_have_attribute("data-game", game)
    assert steps(page)[1] == total
    press(page, "#to-end")
    expect_step(page, total)
    page.locator("#step-back").click()
    expect_step(page, total - 1)
    shot(page, "43-opened-from-disk")

    # The gzipped download opens as it is, too.
    page.locator("#replay-file").set_input_files(str(packed))
    expect(board(page)).to_have_attribute("data-game", game)
    assert steps(page)[1] == total


def test_viewer_on_a_phone(phone, site):
    game = "meuterer" if "meuterer" in games() else games()[0]
    match_id = site.finished_match(game)
    phone.goto(f"/matches/{match_id}")
    expect(board(phone)).to_have_attribute("data-game", game)
    expect_step(phone, 0)
    phone.locator("#step-forward").tap()
    expect_step(phone, 1)
    box = board(phone).bounding_box()
    assert box["width"] <= PHONE["width"]
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the match page is {width}px wide on a phone"
    for control in ("#to-start", "#step-back", "#play-pause", "#step-forward", "#to-end"):
        assert phone.locator(control).bounding_box()["height"] >= 32, control
    shot(phone, "44-phone-viewer")
