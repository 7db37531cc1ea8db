"""The replay viewer in a real browser, driven through its DOM contract.

The contract: `#replay-viewer` holds the controls (`#to-start`, `#step-back`,
`#play-pause`, `#step-forward`, `#to-end`, `#step-slider`, `#speed`, `#seat-view`),
`#step-label` reading "step K / N", the `#move-list` <ol> (an `li.move` per move,
an `li.pause-mark` after a move that ends a voyage or round) whose current item
has aria-current="step", `#board` with one <svg data-step data-stage data-game
data-view> (stage "pause": the board as a voyage or round was settled, before the
same move cleared it; view: the perspective drawn, "spectator" or a seat number),
`#board-status` (where the game stands, in words), `#game-over` (at the end: a row
per seat with rank, bot, score and status), `#step-events` (the move and every
event it caused, an `li.event` each), `#board-panel`, `#board-legend`, and for the
Caravelas map `#zoom-in`, `#zoom-out`, `#zoom-fit`. The address of a match page
keeps the position shown as `#step=K&view=V` (`&stage=pause` at a pause), and a
page opened with one starts there.
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
    expect(board(page)).to_have_attribute("data-view", "spectator")
    spectator = drawing(page)
    drawings = {}
    for seat in seats:
        seat_view.select_option(seat)
        expect(seat_view).to_have_value(seat)
        expect_step(page, total)  # switching the view keeps the step
        # The seat's frames have come and been drawn (the step alone does not say so).
        expect(board(page)).to_have_attribute("data-view", seat)
        drawings[seat] = drawing(page)
    shot(page, f"42-{game}-seat-{seats[-1]}")
    # The all-seeing spectator sees more than at least one seat did (hidden hands or shares).
    assert any(drawing != spectator for drawing in drawings.values())


def drawing(page) -> str:
    """What the board shows: the drawing, and the panel of seats beside it."""
    return board(page).inner_html() + page.locator("#board-panel").inner_html()


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
    # The address names the moment (replaced, not a history entry a step): a reload,
    # or the link shared, opens it again; a hash it cannot read opens the start.
    entries = phone.evaluate("history.length")
    phone.locator("#seat-view").select_option("1")
    expect(phone).to_have_url(re.compile(r"#step=1&view=1$"))
    assert phone.evaluate("history.length") == entries
    phone.reload()
    expect_step(phone, 1)
    expect(board(phone)).to_have_attribute("data-view", "1")
    phone.goto(f"/matches/{match_id}#step=1.5&view=9")
    phone.reload()
    expect_step(phone, 0)
    expect(board(phone)).to_have_attribute("data-view", "spectator")


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
    # (named as the viewer names the seat everywhere, not "seat 2")
    expect(step_time).to_have_text(re.compile(r"^(?!seat \d)[^:]+: (.+\xa0wall|fallback move)"))
    # ...and every move's in the move list, in the same words.
    times = page.locator("#move-list li.move .move-time").all_text_contents()
    assert len(times) == total and all(MOVE_TIME.match(t) for t in times), times[:5]
    # The worker measured the bots' CPU (cgroups here, signals elsewhere: then none).
    if workers.isolation()["mode"] != "signals":
        assert any("CPU" in t for t in times), times[:5]
    first = page.locator("#move-list li.move").first
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
    for item in page.locator("#move-list li.move").all()[:20]:
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


# -- a spectator's reading of the game (issue #19) -----------------------------------
DEVICES = ["page", "phone"]  # 1280 px wide, and a 390 px phone
RAW_FIELDS = re.compile(r"\w=|[{}\[\]]|\bNone\b|\bnull\b")


def width_of(device: str) -> int:
    return DESKTOP["width"] if device == "page" else PHONE["width"]


def served(page, site, game: str, what: str, **query) -> dict:
    """The viewer's own JSON for a finished match of `game` (summary or frames)."""
    match_id = site.finished_match(game)
    response = page.request.get(f"/matches/{match_id}/replay/{what}.json", params=query)
    assert response.ok, response.text()
    return response.json()


def go_to(page, step: int) -> None:
    """The final stage of `step`, by the slider."""
    page.locator("#step-slider").fill(str(step))
    expect_step(page, step)
    expect(board(page)).to_have_attribute("data-stage", "final")


def short_names(summary: dict) -> list[str]:
    """The bot names a sentence uses: "alice/corsair v3" -> "corsair"."""
    return [re.sub(r"\s+v\d+$", "", label).split("/")[-1] for label in summary["seats"]]


def event_texts(page) -> list[str]:
    return [t.strip() for t in page.locator("#step-events li.event").all_text_contents()]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize(("game", "period"), [("manila", "voyage"), ("meuterer", "round")])
def test_the_end_of_a_voyage_or_round_is_shown_with_every_event(
    request, site, device, game, period
):
    page = request.getfixturevalue(device)
    open_match(page, site, game)
    summary = served(page, site, game, "summary")
    assert summary["pauses"], f"a whole {game} game ends a {period}"
    step = summary["pauses"][0]
    frame = served(page, site, game, "frames", start=step, count=1)["frames"][0]
    cut = frame["pause"]["events"]
    # One step back, then Next: the settled board first, then the cleared one.
    go_to(page, step - 1)
    page.locator("#step-forward").click()
    expect(board(page)).to_have_attribute("data-stage", "pause")
    expect_step(page, step)
    expect(page.locator("#step-label")).to_contain_text(f"end of {period} 1")
    expect(page.locator("#board-status")).to_contain_text(f"End of {period} 1")
    # Every event up to the settlement is listed (a scrolled list), none cut off.
    expect(page.locator("#step-events li.event")).to_have_count(cut)
    settled = event_texts(page)
    mark = page.locator("#move-list li.pause-mark[aria-current='step']")
    expect(mark).to_have_text(f"End of {period} 1")
    shot(page, f"46-{game}-end-of-{period}-{width_of(device)}")
    page.locator("#step-forward").click()
    expect(board(page)).to_have_attribute("data-stage", "final")
    expect_step(page, step)
    expect(page.locator("#step-events li.event")).to_have_count(len(frame["events"]))
    every = event_texts(page)
    assert every[:cut] == settled
    assert all(text and not RAW_FIELDS.search(text) for text in every), every
    # Back goes through the settled board again.
    page.locator("#step-back").click()
    expect(board(page)).to_have_attribute("data-stage", "pause")
    page.locator("#step-back").click()
    expect_step(page, step - 1)
    expect(board(page)).to_have_attribute("data-stage", "final")


@pytest.mark.parametrize("game", games())
def test_moves_and_events_read_as_sentences_with_bot_names(page, site, game):
    total = open_match(page, site, game)
    summary = served(page, site, game, "summary")
    names = short_names(summary)
    moves = page.locator("#move-list li.move .move-action")
    expect(moves).to_have_count(total)
    texts = moves.all_text_contents()
    for move, text in zip(summary["moves"][:200], texts[:200], strict=True):
        # The bot who moved, by name, beside a square of its seat colour; no raw fields.
        assert names[move["seat"]] in text, (move, text)
        assert not RAW_FIELDS.search(text), text
    swatches = moves.first.locator(".swatch")
    expect(swatches.first).to_have_class(re.compile(rf"seat-{summary['moves'][0]['seat']}"))
    colour = swatches.first.evaluate("s => getComputedStyle(s).backgroundColor")
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent")
    # "This move" words the move and its events the same way.
    go_to(page, min(total, 12))
    expect(page.locator("#step-events .step-move")).to_contain_text("Step ")
    for text in event_texts(page) + page.locator("#board-status").all_text_contents():
        assert text and not RAW_FIELDS.search(text), text


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("game", games())
def test_the_last_step_has_a_game_over_banner(request, site, device, game):
    page = request.getfixturevalue(device)
    total = open_match(page, site, game)
    summary = served(page, site, game, "summary")
    banner = page.locator("#game-over")
    expect(banner).to_be_hidden()
    press(page, "#to-end")
    expect_step(page, total)
    expect(banner).to_be_visible()
    rows = banner.locator("tr[data-seat]")
    expect(rows).to_have_count(summary["players"])
    names = short_names(summary)
    ranks = summary["ranks"]
    seen = []
    for row in rows.all():
        seat = int(row.get_attribute("data-seat"))
        seen.append(ranks[seat])
        assert names[seat] in row.locator("td.bot").text_content()
        score = row.locator("td.score").text_content()
        # Scores as integers, in the game's unit.
        assert re.fullmatch(rf"{summary['result']['scores'][seat]} (pesos|points)", score), score
        assert row.locator("td.rank").text_content().startswith(str(ranks[seat]))
        assert row.locator("td.status").text_content().strip()
    assert seen == sorted(seen), "the banner lists seats by rank"
    winner = names[ranks.index(1)]
    expect(banner.locator("h3")).to_contain_text(winner)
    # Readable on the screen: nothing of it sticks out or scrolls sideways.
    box = banner.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width_of(device)
    inner = banner.evaluate("b => [b.scrollWidth, b.clientWidth]")
    assert inner[0] <= inner[1], f"the banner hides {inner[0] - inner[1]}px to the side"
    shot(page, f"47-{game}-game-over-{width_of(device)}")
    page.locator("#step-back").click()
    expect(banner).to_be_hidden()


def test_meuterer_has_a_legend_and_no_hidden_characters(page, site):
    total = open_match(page, site, "meuterer")
    legend = page.locator("#board-legend")
    expect(legend).to_be_visible()
    for words in (
        "ruby",
        "salt",
        "wine",
        "cloth",
        "grain",
        "conflict",
        "active island",
        "ship",
        "promise",
    ):
        expect(legend).to_contain_text(words)
    assert legend.locator("svg.icon").count() >= 10
    expect(page.locator("#board svg .promise")).to_have_count(1)
    for step in (0, 1, total // 3, total // 2, total - 1, total):
        go_to(page, step)
        for text in (board(page).text_content(), page.locator("#board-status").text_content()):
            assert "hidden" not in text and "character: —" not in text, (step, text)
    # Once revealed, characters are named in the seats' lines.
    press(page, "#to-end")
    assert re.search(r"mutineer|cabin boy|boatswain|merchant|stevedore", board(page).text_content())


def label_boxes(page) -> list[dict]:
    return page.locator("#board svg text.place-label").evaluate_all(
        "labels => labels.map(l => { const r = l.getBoundingClientRect();"
        " return {x: r.x, y: r.y, width: r.width, height: r.height, text: l.textContent}; })"
    )


def assert_labels_readable(page, what: str) -> list[dict]:
    """Place names: none overlaps another, none is cut by the board's edge."""
    edge = board(page).bounding_box()
    labels = label_boxes(page)
    assert labels, f"{what}: no place names"
    for label in labels:
        assert label["x"] >= edge["x"] - 0.5 and label["y"] >= edge["y"] - 0.5, (what, label, edge)
        assert label["x"] + label["width"] <= edge["x"] + edge["width"] + 0.5, (what, label, edge)
        assert label["y"] + label["height"] <= edge["y"] + edge["height"] + 0.5, (what, label, edge)
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            shrunk = {**a, "x": a["x"] + 0.5, "y": a["y"] + 0.5}
            shrunk.update(width=a["width"] - 1, height=a["height"] - 1)
            assert not boxes_overlap(shrunk, b), f"{what}: {a['text']!r} overlaps {b['text']!r}"
    sizes = page.locator("#board svg text.place-label").evaluate_all(
        "ls => ls.map(l => parseFloat(getComputedStyle(l).fontSize) * l.getScreenCTM().a)"
    )
    assert min(sizes) >= 9.5, f"{what}: place names shrink to {min(sizes):.1f}px"
    return labels


def until_view(page, test: str, value: float) -> None:
    """Wait until the board's viewBox passes `test` ("width <", "x >", ...) against `value`."""
    page.wait_for_function(
        f"() => document.querySelector('#board svg').viewBox.baseVal.{test} {value}"
    )


def view_box(page) -> list[float]:
    return [float(v) for v in board(page).get_attribute("viewBox").split()]


@pytest.mark.parametrize("device", DEVICES)
def test_caravelas_map_reads_and_zooms(request, site, device):
    page = request.getfixturevalue(device)
    total = open_match(page, site, "caravelas")
    width = width_of(device)
    go_to(page, total // 2)
    expect(page.locator("#board-legend")).to_contain_text("fleet")
    expect(page.locator("#board-status")).to_contain_text(re.compile(r"Round \d+: "))
    assert not RAW_FIELDS.search(page.locator("#board-status").text_content())
    expect(page.locator("#board-panel li[data-seat]")).to_have_count(
        served(page, site, "caravelas", "summary")["players"]
    )
    whole = view_box(page)
    names = [label["text"] for label in assert_labels_readable(page, f"whole map at {width}px")]
    assert "Lisboa" in names
    shot(page, f"48-caravelas-map-{width}")

    # The buttons zoom in about the middle, and back out to the whole map.
    page.locator("#zoom-in").click()
    until_view(page, "width <", whole[2] - 1)
    zoomed = view_box(page)
    assert zoomed[2] < whole[2] and zoomed[3] < whole[3]
    assert zoomed[2] / zoomed[3] == pytest.approx(whole[2] / whole[3], rel=1e-3)
    closer = assert_labels_readable(page, f"zoomed map at {width}px")
    # Zoomed in, names the whole map had no room for appear.
    assert len(closer) > 0
    page.locator("#zoom-in").click()
    until_view(page, "width <", zoomed[2] - 1)
    assert_labels_readable(page, f"map zoomed twice at {width}px")
    shot(page, f"48-caravelas-map-zoomed-{width}")
    # Stepping keeps the zoom.
    before = view_box(page)
    page.locator("#step-forward").click()
    expect_step(page, total // 2 + 1)
    assert view_box(page) == before
    page.locator("#zoom-fit").click()
    until_view(page, "width >=", whole[2] - 0.5)
    assert view_box(page) == pytest.approx(whole, abs=0.2)

    # Keys on the board: + zooms in, Shift+arrows pan, 0 shows the whole map.
    page.locator("#board").focus()
    page.keyboard.press("+")
    until_view(page, "width <", whole[2] - 1)
    keyed = view_box(page)
    page.keyboard.press("Shift+ArrowRight")
    until_view(page, "x >", keyed[0] + 1)
    page.keyboard.press("Shift+ArrowDown")
    until_view(page, "y >", keyed[1] + 1)
    expect_step(page, total // 2 + 1)  # panning is not stepping
    page.keyboard.press("0")
    until_view(page, "width >=", whole[2] - 0.5)

    # A pinch (two touches moving apart) zooms in; a drag then pans.
    page.locator("#board").evaluate(PINCH)
    until_view(page, "width <", whole[2] / 1.5)
    pinched = view_box(page)
    page.locator("#board").evaluate(DRAG)
    until_view(page, "x <", pinched[0] - 1)
    assert_labels_readable(page, f"pinched map at {width}px")


# Synthetic touch pointers: two fingers 60px apart spread to 200px about the middle.
PINCH = """board => {
  const box = board.querySelector('svg').getBoundingClientRect();
  const cx = box.left + box.width / 2, cy = box.top + box.height / 2;
  const fire = (type, id, x) => board.dispatchEvent(new PointerEvent(type, {pointerId: id,
    pointerType: 'touch', isPrimary: id === 1, clientX: x, clientY: cy, bubbles: true}));
  fire('pointerdown', 1, cx - 30); fire('pointerdown', 2, cx + 30);
  for (let d = 40; d <= 100; d += 20) {
    fire('pointermove', 1, cx - d); fire('pointermove', 2, cx + d);
  }
  fire('pointerup', 1, cx - 100); fire('pointerup', 2, cx + 100);
}"""
# One finger dragging the map 80px to the right: the view moves left.
DRAG = """board => {
  const box = board.querySelector('svg').getBoundingClientRect();
  const cx = box.left + box.width / 2, cy = box.top + box.height / 2;
  const fire = (type, x) => board.dispatchEvent(new PointerEvent(type, {pointerId: 7,
    pointerType: 'touch', isPrimary: true, clientX: x, clientY: cy, bubbles: true}));
  fire('pointerdown', cx); fire('pointermove', cx + 40);
  fire('pointermove', cx + 80); fire('pointerup', cx + 80);
}"""


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("game", games())
def test_screenshots_of_each_game_at_start_middle_and_end(request, site, device, game):
    """For a person to look at: each game's viewer at 1280 and 390 px."""
    page = request.getfixturevalue(device)
    total = open_match(page, site, game)
    width = width_of(device)
    for name, step in (("start", 0), ("middle", total // 2), ("end", total)):
        go_to(page, step)
        page.wait_for_load_state("networkidle")
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= width, f"the {game} viewer is {wide}px wide on a {width}px screen"
        shot(page, f"49-{game}-{name}-{width}")
