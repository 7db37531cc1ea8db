"""The Caravelas house data is sound: the map, the player card, the deck and the die."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from engine.caravelas import data
from engine.caravelas.sailing import DESTINATIONS, STEPS, destinations, distances_from
from engine.caravelas.svg import render_map

IDS = [c[0] for c in data.CIRCLES]
KIND = {c[0]: c[4] for c in data.CIRCLES}
DIST = distances_from(data.LISBOA_ID)
SVG = "{http://www.w3.org/2000/svg}"


def test_circles_are_unique_named_and_within_the_target_size():
    assert len(IDS) == len(set(IDS))
    assert 60 <= len(IDS) <= 90
    assert all(
        name and -90 <= lat <= 90 and -180 <= lon <= 180 for _, name, lon, lat, _ in data.CIRCLES
    )
    kinds = Counter(KIND.values())
    assert kinds[data.LISBOA] == kinds[data.CALECUTE] == kinds[data.CAPE] == 1
    assert KIND[data.LISBOA_ID] == data.LISBOA
    assert KIND[data.CALECUTE_ID] == data.CALECUTE
    assert KIND[data.CAPE_ID] == data.CAPE


def test_lines_join_known_circles_once():
    seen = set()
    for a, b in data.LINES:
        assert a in KIND and b in KIND and a != b
        key = frozenset((a, b))
        assert key not in seen, f"line {a}-{b} twice"
        seen.add(key)


def test_the_map_is_connected_both_ways():
    assert set(DIST) == set(IDS)
    for cid in IDS:
        assert data.LISBOA_ID in distances_from(cid), f"no way home from {cid}"


def test_arrows_follow_their_line_and_only_bypass_dashed_circles():
    lines = {frozenset(line) for line in data.LINES}
    for start, end, skipped in data.ARROWS:
        assert skipped, "an arrow with nothing to skip would just be a line"
        chain = (start, *skipped, end)
        for a, b in itertools.pairwise(chain):
            assert frozenset((a, b)) in lines, f"arrow {start}->{end} leaves its line at {a}-{b}"
        assert all(KIND[c] == data.DASHED for c in skipped)
        assert KIND[start] != data.DASHED and KIND[end] != data.DASHED


def test_every_dashed_circle_lies_on_an_arrow():
    on_arrows = {c for _, _, skipped in data.ARROWS for c in skipped}
    assert on_arrows == {cid for cid in IDS if KIND[cid] == data.DASHED}


def test_every_circle_can_be_reached_by_an_exact_count_of_every_card():
    # No place is reachable only by some card values: for each value there is a
    # circle from which that card ends exactly there.
    for value in data.MOVEMENT_DECK:
        ends = {to for cid in IDS for to in DESTINATIONS[cid][value]}
        assert ends == set(IDS), f"card {value} can never end on {set(IDS) - ends}"


def test_every_place_is_reachable_from_lisboa_by_playing_cards():
    # Breadth-first over (circle) using real card moves of any value.
    reached, frontier = {data.LISBOA_ID}, [data.LISBOA_ID]
    while frontier:
        here = frontier.pop()
        for value in data.MOVEMENT_DECK:
            for to in DESTINATIONS[here][value]:
                if to not in reached:
                    reached.add(to)
                    frontier.append(to)
    assert set(data.DISCOVERIES) <= reached
    assert set(data.CUBE_PLACES.values()) <= reached
    assert {data.CALECUTE_ID, data.CAPE_ID} <= reached


def test_every_card_can_be_played_from_every_circle():
    # A fleet is never stranded: from anywhere, every card value has a destination.
    for cid in IDS:
        for value in data.MOVEMENT_DECK:
            assert DESTINATIONS[cid][value], f"card {value} is dead at {cid}"


def test_calecute_lies_beyond_the_cape():
    assert DIST[data.CALECUTE_ID] > DIST[data.CAPE_ID]
    east_of_cape = {c for c in IDS if DIST[c] > DIST[data.CAPE_ID]}
    assert data.CALECUTE_ID in east_of_cape


def test_thirty_two_discoveries_sixteen_of_each_colour_on_places():
    assert len(data.DISCOVERIES) == 32
    colours = Counter(colour for colour, _ in data.DISCOVERIES.values())
    assert colours == {data.GREEN: 16, data.YELLOW: 16}
    assert all(KIND[p] == data.PLACE for p in data.DISCOVERIES)
    assert {c for c in IDS if KIND[c] == data.PLACE} == set(data.DISCOVERIES)


def test_discovery_points_rise_with_distance_and_green_is_far():
    assert all(1 <= points <= 6 for _, points in data.DISCOVERIES.values())
    by_distance = sorted(data.DISCOVERIES, key=lambda p: (DIST[p], data.DISCOVERIES[p][1]))
    points = [data.DISCOVERIES[p][1] for p in by_distance]
    assert points == sorted(points)
    far_yellow = max(DIST[p] for p, (c, _) in data.DISCOVERIES.items() if c == data.YELLOW)
    near_green = min(DIST[p] for p, (c, _) in data.DISCOVERIES.items() if c == data.GREEN)
    assert far_yellow < near_green
    assert [data.DISCOVERIES[p][1] for p in ("guine",)] == [1]  # rules fig. 2


def test_eight_cube_places_one_per_colour_values_rising_with_distance():
    assert set(data.CUBE_PLACES) == set(data.COLOURS) == set(data.SLOT_VALUES)
    assert len(set(data.CUBE_PLACES.values())) == 8
    assert data.CUBE_PLACES["red"] == "guine"  # rules fig. 2
    ordered = sorted(data.COLOURS, key=lambda c: DIST[data.CUBE_PLACES[c]])
    values = [data.SLOT_VALUES[c] for c in ordered]
    assert values == sorted(values)
    assert data.CUBE_PLACES["green"] == max(data.CUBE_PLACES.values(), key=DIST.get)


def test_the_player_card_has_two_slots_per_caravel_and_the_printed_example():
    slots = [c for pair in data.CARAVEL_SLOTS.values() for c in pair]
    assert sorted(data.CARAVEL_SLOTS) == [1, 2, 3, 4]
    assert sorted(slots) == sorted(data.COLOURS)
    assert set(data.CARAVEL_SLOTS[1]) == {"red", "black"}  # rules fig. 4
    values = sorted(data.SLOT_VALUES.values())
    assert {5, 6, 7, 10} <= set(values) and values == sorted(set(values))
    # Rules fig. 5: 5 + 6 + 7 + 10 delivered with caravel 3 sunk, so none rides on it.
    fig_5 = {c for c, v in data.SLOT_VALUES.items() if v in (5, 6, 7, 10)}
    assert len(fig_5) == 4 and not fig_5 & set(data.CARAVEL_SLOTS[3])
    # The card of caravelas-1 and -2, kept for their replays, broke fig. 5.
    assert data.CARAVEL_SLOTS_BEFORE_3[3] == ("yellow", "white")


def test_movement_deck_and_die():
    assert sum(data.MOVEMENT_DECK.values()) == 48
    assert sorted(data.MOVEMENT_DECK) == [1, 2, 3, 4, 5]
    assert len(data.DIE_FACES) == 6 and sorted(set(data.DIE_FACES)) == [0, 1]
    assert data.DIE_FACES.count(1) * 3 == len(data.DIE_FACES)  # sinks 1 time in 3
    assert data.GREEN_CUBES == {2: 3, 3: 4, 4: 5}


def test_steps_follow_arrows_one_way_only():
    for start, end, _ in data.ARROWS:
        assert end in STEPS[start]
        assert start not in STEPS[end]


def test_destinations_reject_an_unknown_circle():
    with pytest.raises(KeyError):
        destinations("atlantis", 2)


def test_the_svg_map_shows_every_circle_line_and_arrow():
    root = ET.fromstring(render_map())
    groups = {g.get("id"): g for g in root.iter(f"{SVG}g")}
    for cid, name, _lon, _lat, kind in data.CIRCLES:
        group = groups[f"circle-{cid}"]
        assert group.get("class") == kind
        assert group.find(f"{SVG}text").text == name
        assert group.find(f"{SVG}circle") is not None
    assert len(root.findall(f"{SVG}line")) == len(data.LINES)
    assert len(root.findall(f"{SVG}polyline")) == len(data.ARROWS)
    cube_groups = [g for g in groups.values() if g.find(f"{SVG}rect") is not None]
    assert {g.get("id") for g in cube_groups} == {f"circle-{p}" for p in data.CUBE_PLACES.values()}
    # Circles are drawn inside the picture.
    width, height = float(root.get("width")), float(root.get("height"))
    for circle in root.iter(f"{SVG}circle"):
        assert 0 < float(circle.get("cx")) < width and 0 < float(circle.get("cy")) < height
