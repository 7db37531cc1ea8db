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

import workers
from tests.integration.browser.conftest import DESKTOP, PHONE, games, needs_browser, shot

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


# "0.8 ms wall · 0.6 ms CPU" (no-break spaces inside each figure), or a fallback's move.
MOVE_TIME = re.compile(r"^([\d.]+\xa0m?s\xa0wall( · [\d.]+\xa0m?s\xa0CPU)?|fallback move)$")


def boxes_overlap(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("device", ["page", "phone"])
def test_each_move_shows_its_wall_and_cpu_time(request, site, device):
    page = request.getfixturevalue(device)  # 1280 px wide, or a 390 px phone
    total = open_match(page, site, "manila")
    page.locator("#step-forward").click()  # a phone's tap is a click here too
    expect_step(page, 1)
    # The current step's time beside the step label...
    step_time = page.locator("#step-time")
    expect(step_time).to_have_text(re.compile(r"^seat \d+ move: (.+\xa0wall|fallback move)"))
    # ...and every move's in the move list, in the same words.
    times = page.locator("#move-list li .move-time").all_text_contents()
    assert len(times) == total and all(MOVE_TIME.match(t) for t in times), times[:5]
    # The worker measured the bots' CPU (cgroups here, signals elsewhere: then none).
    if workers.isolation()["mode"] != "signals":
        assert any("CPU" in t for t in times), times[:5]
    first = page.locator("#move-list li").first
    assert first.locator(".move-time").text_content() in step_time.text_content()

    # Readable and in place: nothing sticks out of the screen or overlaps the label.
    screen = page.evaluate("window.innerWidth")
    label, took = page.locator("#step-label").bounding_box(), step_time.bounding_box()
    assert took["x"] + took["width"] <= screen and not boxes_overlap(label, took)
    slider = page.locator("#step-slider").bounding_box()
    assert not boxes_overlap(slider, took)
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= screen, f"the viewer is {wide}px wide on a {screen}px screen"
    size_px = step_time.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
    assert size_px >= 12
    for item in page.locator("#move-list li").all()[:20]:
        action, time = item.locator(".move-action"), item.locator(".move-time")
        assert not boxes_overlap(action.bounding_box(), time.bounding_box())
    page.locator("#move-list").evaluate("list => { list.scrollTop = 0; }")
    width = DESKTOP["width"] if device == "page" else PHONE["width"]
    shot(page, f"45-manila-move-times-{width}")


def test_an_old_replay_without_times_shows_none(page, site, tmp_path):
    match_id = site.finished_match("manila")
    response = page.request.get(f"/matches/{match_id}/replay.json.gz")
    record = json.loads(gzip.decompress(response.body()))
    record.pop("decision_ms", None)
    record.pop("decision_cpu_ms", None)
    old = tmp_path / "old.json"
    old.write_text(json.dumps(record))
    page.goto("/replays/open")
    page.locator("#replay-file").set_input_files(str(old))
    expect(board(page)).to_have_attribute("data-step", "0")
    page.locator("#step-forward").click()
    expect_step(page, 1)
    expect(page.locator("#step-time")).to_be_hidden()
    assert page.locator("#move-list li .move-time").count() == 0
