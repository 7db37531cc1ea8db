"""Caravelas rules, table by table: a position, an action, the expected outcome.

Positions are built by starting a real game and setting the seat on move's
fleet, cards and cargo through `State.setup_position` (see `helpers.py`);
everything after that goes through `apply`.
"""

from __future__ import annotations

import json
import random

import pytest

import engine
from engine import IllegalAction
from engine.caravelas import data
from engine.caravelas.sailing import DESTINATIONS
from engine.caravelas.state import LIST_EVENTS, CaravelasState
from engine.caravelas.view import colour_counts
from tests.unit.engine.caravelas.helpers import die_showing, events, move, position
from tests.unit.engine.helpers import with_seat

CAPE = data.CAPE_ID
END = {"type": "end_turn"}


# -- setup -------------------------------------------------------------------
@pytest.mark.parametrize(("n", "green"), [(2, 3), (3, 4), (4, 5)])
def test_setup(n, green):
    """Rules 4 and 12: the table at the start."""
    state = CaravelasState(n, seed=3)
    assert state.pos == ["lisboa"] * n
    assert state.stock == {**dict.fromkeys(data.COLOURS, 4), "green": green}
    assert state.jeronimos_size == green
    assert all(len(h) == 4 for h in state.hand)
    assert len(state.deck) == 48 - 4 * n
    for seat in range(n):
        assert colour_counts(state, seat) == {"green": 2, "yellow": 2}
    cards = state.pile + [p for s in state.secret for p in s]
    assert sorted(cards) == sorted(data.DISCOVERIES)
    assert state.current_player() == 0


# -- movement (rules 6.1-6.5) ---------------------------------------------------
@pytest.mark.parametrize(
    ("start", "card", "expected"),
    [
        # The Canary current arrow skips both dashed circles: Bojador in one move.
        ("lisboa", 1, {"mar_dos_acores", "mar_de_portugal", "cabo_bojador"}),
        # Exact count: two moves, and never back through Lisboa (fig. 1).
        ("lisboa", 2, {"acores", "madeira", "mar_das_canarias", "rio_do_ouro"}),
        # Against the arrow every circle costs a move.
        ("cabo_bojador", 1, {"mar_das_canarias", "rio_do_ouro"}),
        ("acores", 1, {"lisboa", "madeira", "mar_dos_acores", "mar_dos_sargacos"}),
        # Ormuz is a dead end: a card may not double back through the same circle.
        ("golfo_de_oma", 3, {"cabo_guardafui", "goa", "moncao_nordeste_2"}),
        # The Cape stops the fleet with moves left; nothing beyond it is reached.
        ("mar_do_cabo", 4, {CAPE, "abrolhos", "ascensao", "costa_de_angola"}),
        ("melinde", 1, {"calecute", "costa_dos_somalis", "mombaca", "moncao_sudoeste_1"}),
        ("calecute", 1, {"angediva", "cochim", "moncao_sudoeste_3"}),
        # Ruling 10: circles skipped by an arrow were not passed, so the same
        # card may step back onto them (Benguela arrow, then south again).
        (
            "cabo_da_volta",
            3,
            {"angra_pequena", CAPE, "cabo_negro", "congo", "santa_helena"},
        ),
    ],
)
def test_destinations(start, card, expected):
    assert set(DESTINATIONS[start][card]) == expected


@pytest.mark.parametrize(
    ("start", "card", "absent"),
    [
        ("cabo_da_volta", 3, "angra_de_sao_bras"),  # would pass the Cape
        ("cabo_da_volta", 5, "rio_do_infante"),
        ("calecute", 1, "melinde"),  # the monsoon arrow runs the other way
        ("lisboa", 3, "lisboa"),  # fig. 1: not back through the start
    ],
)
def test_destinations_exclude(start, card, absent):
    assert absent not in DESTINATIONS[start][card]


def test_legal_moves_list_each_card_value_and_destination_once():
    state = position(at="lisboa", hand=(2, 2, 3, 3))
    legal = state.legal_actions()
    moves = [a for a in legal if a["type"] == "move"]
    expected = [move(v, to) for v in (2, 3) for to in DESTINATIONS["lisboa"][v]]
    assert moves == expected
    assert legal[-1] == END


def test_a_move_spends_the_card_and_several_fleets_share_a_circle():
    state = position(at="lisboa", hand=(1, 2, 3, 4))
    state.setup_position(pos=with_seat(state.pos, 1, "madeira"))
    state.apply(move(2, "madeira"))
    assert state.pos == ["madeira", "madeira"]
    assert state.hand[0] == [1, 3, 4]
    assert state.used[-1] == 2
    assert state.played == 1


def test_the_next_card_may_pass_the_same_circles_again():
    state = position(at="lisboa", hand=(1, 1, 5, 5), secret=["guine"])
    state.apply(move(1, "mar_de_portugal"))
    assert move(1, "lisboa") in state.legal_actions()


def test_at_most_four_cards_and_then_only_end_turn():
    state = position(at="lisboa", hand=(1, 1, 1, 1), secret=["guine", "mina", "congo", "goa"])
    for to in ("mar_de_portugal", "madeira", "mar_das_canarias", "cabo_bojador"):
        state.apply(move(1, to))
    assert state.legal_actions() == [END]


# -- discovering (rule 7) --------------------------------------------------------
@pytest.mark.parametrize(
    ("secret", "start", "card", "to", "score", "found"),
    [
        (["guine"], "rio_de_sanaga", 1, "guine", 1, ["guine"]),  # fig. 2: 1 point
        (["ormuz"], "golfo_de_oma", 1, "ormuz", 6, ["ormuz"]),
        ([], "rio_de_sanaga", 1, "guine", 0, []),  # no card, no discovery
        (["guine"], "rio_de_sanaga", 2, "serra_leoa", 0, []),  # passing is not stopping
        (["guine", "serra_leoa"], "rio_de_sanaga", 2, "serra_leoa", 1, ["serra_leoa"]),
    ],
)
def test_discovering(secret, start, card, to, score, found):
    state = position(at=start, hand=(1, 2, 3, 4), secret=secret)
    state.apply(move(card, to))
    assert state.score[0] == score
    assert state.found[0] == found
    assert state.secret[0] == sorted(set(secret) - set(found))
    assert [e["place"] for e in events(state, "discover")] == found


# -- collecting cubes (rule 8) ---------------------------------------------------
@pytest.mark.parametrize(
    ("cargo", "sunk", "stock", "cargo_after", "stock_after"),
    [
        ((), (), 4, ["red"], 3),
        (("red",), (), 3, ["red"], 3),  # one cube of each colour only
        ((), (1,), 4, [], 4),  # the red slot's caravel is sunk
        ((), (2,), 4, ["red"], 3),  # another caravel sunk does not matter
        ((), (), 0, [], 0),  # no cubes left there
        (("black",), (), 4, ["red", "black"], 3),
    ],
)
def test_collecting(cargo, sunk, stock, cargo_after, stock_after):
    state = position(at="rio_de_sanaga", secret=[], cargo=cargo, sunk=sunk)
    state.setup_position(stock={**state.stock, "red": stock})
    state.apply(move(1, "guine"))
    assert state.cargo[0] == cargo_after
    assert state.stock["red"] == stock_after


# -- delivering at Lisboa (rule 10) ------------------------------------------------
@pytest.mark.parametrize(
    ("cargo", "sunk", "points", "jeronimos", "ends_turn"),
    [
        # Fig. 5's sum, 5+6+7+10 (played through in test_fig_5_through_play).
        (("yellow", "blue", "white", "green"), (3,), 28, 1, True),
        (("red", "brown"), (), 7, 0, True),
        ((), (3,), 0, 0, True),  # repairing alone ends the turn
        ((), (), 0, 0, False),  # nothing to do: sail on
    ],
)
def test_delivering(cargo, sunk, points, jeronimos, ends_turn):
    full = ["cochim", "congo", "goa", "mina"]
    state = position(at="mar_de_portugal", hand=(1, 2, 3, 4), secret=full, cargo=cargo, sunk=sunk)
    stock_before = dict(state.stock)
    state.apply(move(1, "lisboa"))
    assert state.score[0] == points
    assert state.cargo[0] == []
    assert state.sunk[0] == [False] * 4
    assert state.jeronimos == jeronimos
    for colour in cargo:
        returned = 0 if colour == "green" else 1
        assert state.stock[colour] == stock_before[colour] + returned
    assert (state.legal_actions() == [END]) is ends_turn


def test_passing_through_lisboa_delivers_nothing():
    state = position(at="mar_de_portugal", hand=(2, 2, 3, 4), cargo=("red",), secret=[])
    state.apply(move(2, "mar_dos_acores"))
    assert state.cargo[0] == ["red"] and state.score[0] == 0


# -- drawing discovery cards (rule 7) ----------------------------------------------
@pytest.mark.parametrize(
    ("start", "to", "secret", "pile", "can_draw", "keep_options"),
    [
        ("mar_de_portugal", "lisboa", ["goa", "mina", "congo"], None, True, 4),
        ("mar_de_portugal", "lisboa", ["goa"], None, True, 4 + 6 + 4),
        ("angediva", "calecute", [], None, True, 15),
        ("angediva", "calecute", ["goa", "mina", "congo", "ormuz"], None, False, 0),
        ("mar_de_portugal", "madeira", [], None, False, 0),
        ("angediva", "calecute", [], ["ceilao", "natal"], True, 3),  # a short pile
        ("angediva", "calecute", [], [], False, 0),  # an empty pile
    ],
)
def test_drawing(start, to, secret, pile, can_draw, keep_options):
    state = position(at=start, secret=secret)
    if pile is not None:
        state.setup_position(pile=pile)
    state.apply(move(1, to))
    assert ({"type": "draw"} in state.legal_actions()) is can_draw
    if can_draw:
        state.apply({"type": "draw"})
        keeps = state.legal_actions()
        assert len(keeps) == keep_options
        assert all(a["type"] == "keep" and a["places"] for a in keeps)


def test_kept_cards_join_the_hand_and_the_rest_go_under_the_pile():
    state = position(at="angediva", secret=["goa"])
    state.setup_position(pile=["ceilao", "natal", "mina", "congo", "ormuz"])
    state.apply(move(1, "calecute"))
    state.apply({"type": "draw"})
    assert state.drawn == ["ceilao", "natal", "mina", "congo"]
    assert state.view(1)["drawn"] == [] and state.view(1)["drawn_count"] == 4
    state.apply({"type": "keep", "places": ["congo", "natal"]})
    assert state.secret[0] == ["congo", "goa", "natal"]
    assert state.pile == ["ormuz", "ceilao", "mina"]
    assert events(state, "keep")[-1] == {"event": "keep", "seat": 0, "kept": 2, "returned": 2}


# Rule 7: «Devolva as cartas rejeitadas à base da respectiva pilha» — "Return the
# rejected cards to the bottom of the pile". The seat saw them and knows where they lie
# until somebody draws them: from caravelas-3 on its view keeps them.
def known(view):
    return {i: p for i, p in enumerate(view["discovery_pile_known"]) if p is not None}


def test_a_seat_remembers_the_cards_it_put_under_the_pile_until_they_are_drawn():
    named = ["ceilao", "natal", "mina", "congo", "ormuz", "sofala"]
    rest = sorted(set(data.DISCOVERIES) - set(named) - {"goa"})
    state = position(at="angediva", hand=(1, 1, 2, 3), secret=["goa"])
    value = state.hand[1][0]
    start = next(c for c in DESTINATIONS if "calecute" in DESTINATIONS[c][value])
    # Out of play (discovered) so that the pile is short: seat 1 will reach the bottom.
    state.setup_position(
        pile=list(named), secret=[["goa"], []], found=[[], rest], pos=["angediva", start]
    )
    play = [move(1, "calecute"), {"type": "draw"}, {"type": "keep", "places": ["congo"]}]
    for action in play:
        state.apply(action)
    assert state.pile == ["ormuz", "sofala", "ceilao", "natal", "mina"]
    assert known(state.view(0)) == {2: "ceilao", 3: "natal", 4: "mina"}
    assert known(state.view(1)) == {}  # seat 1 never saw them
    for action in (END, {"type": "discard", "cards": []}, move(value, "calecute")):
        state.apply(action)
    assert known(state.view(0)) == {2: "ceilao", 3: "natal", 4: "mina"}  # turns later
    state.apply({"type": "draw"})  # seat 1 draws ormuz, sofala, ceilao, natal
    assert known(state.view(0)) == {0: "mina"}
    state.apply({"type": "keep", "places": ["ceilao"]})
    assert state.pile == ["mina", "ormuz", "sofala", "natal"]
    assert known(state.view(0)) == {0: "mina"}  # not natal: seat 1 chose what went back
    assert known(state.view(1)) == {1: "ormuz", 2: "sofala", 3: "natal"}
    for seat in (0, 1):
        for seed in range(10):
            assert state.hidden_variant(seat, seed).view(seat) == state.view(seat)


def test_before_caravelas_3_the_view_forgot_the_cards_put_under_the_pile():
    state = position(at="angediva", secret=["goa"], version="caravelas-2")
    state.setup_position(pile=["ceilao", "natal", "mina", "congo", "ormuz"])
    for action in (move(1, "calecute"), {"type": "draw"}):
        state.apply(action)
    state.apply({"type": "keep", "places": ["congo"]})
    assert "discovery_pile_known" not in state.view(0)


def test_drawing_only_once_per_turn_and_right_after_stopping():
    state = position(at="angediva", hand=(1, 1, 1, 2), secret=[])
    state.apply(move(1, "calecute"))
    state.apply({"type": "draw"})
    state.apply({"type": "keep", "places": sorted(state.drawn)[:1]})
    state.apply(move(1, "angediva"))
    state.apply(move(1, "calecute"))
    assert {"type": "draw"} not in state.legal_actions()


def test_moving_on_gives_up_the_draw():
    state = position(at="angediva", hand=(1, 1, 1, 2), secret=[])
    state.apply(move(1, "calecute"))
    state.apply(move(1, "cochim"))
    assert {"type": "draw"} not in state.legal_actions()


def test_a_delivery_ends_the_turn_but_the_draw_at_lisboa_remains():
    state = position(at="mar_de_portugal", secret=["goa"], cargo=("red",))
    state.apply(move(1, "lisboa"))
    assert state.legal_actions() == [{"type": "draw"}, END]


# -- the Cape of Good Hope (rule 9) ------------------------------------------------
def test_the_cape_stops_the_fleet_and_a_zero_does_nothing():
    state = position(at="cabo_da_volta", hand=(1, 3, 4, 5), secret=[], rng=die_showing(0))
    state.apply(move(3, CAPE))
    assert state.pos[0] == CAPE and state.hand[0] == [1, 4, 5]
    assert events(state, "roll")[-1]["face"] == 0
    # Rule 9.6: after the roll the player goes on with the remaining cards.
    assert move(1, "angra_de_sao_bras") in state.legal_actions()


@pytest.mark.parametrize(
    ("cargo", "sunk", "choice", "cargo_after", "options"),
    [
        (("red", "black", "blue"), (), 1, ["blue"], [1, 2, 3, 4]),  # fig. 4
        (("red", "green"), (2,), 4, ["red"], [1, 3, 4]),
    ],
)
def test_a_one_sinks_a_caravel_of_the_players_choice(cargo, sunk, choice, cargo_after, options):
    state = position(at="cabo_da_volta", secret=[], cargo=cargo, sunk=sunk, rng=die_showing(1))
    stock_before = dict(state.stock)
    state.apply(move(1, CAPE))
    legal = state.legal_actions()
    assert legal == [{"type": "sink", "caravel": k} for k in options]
    state.apply({"type": "sink", "caravel": choice})
    assert state.cargo[0] == cargo_after
    for colour in set(cargo) - set(cargo_after):
        assert state.stock[colour] == stock_before[colour] + 1  # back to its place
    assert state.sunk[0][choice - 1]
    assert any(a["type"] == "move" for a in state.legal_actions())


def test_a_sunk_slot_cannot_collect_until_repaired():
    state = position(at="rio_de_sanaga", secret=[], sunk=(1,))
    state.apply(move(1, "guine"))
    assert state.cargo[0] == []


def test_losing_the_fourth_caravel_sends_the_fleet_home_and_ends_the_turn():
    state = position(at="cabo_da_volta", secret=[], sunk=(1, 2, 3), rng=die_showing(1))
    state.apply(move(1, CAPE))
    assert state.legal_actions() == [{"type": "sink", "caravel": 4}]
    state.apply({"type": "sink", "caravel": 4})
    assert state.pos[0] == "lisboa"
    assert state.sunk[0] == [False] * 4
    assert state.legal_actions() == [END]  # no draw: the fleet did not sail there


def test_with_no_black_disc_left_a_one_sinks_nothing():
    # Ruling: the six black discs are the limit of wrecks on the table.
    state = position(3, at="cabo_da_volta", secret=[], rng=die_showing(1))
    three_lost = [True, True, True, False]
    state.setup_position(sunk=[state.sunk[0], three_lost, list(three_lost)])
    state.apply(move(1, CAPE))
    assert state.phase == "sail" and state.sunk[0] == [False] * 4
    assert events(state, "no_disc")


# -- ending a turn (rules 5 and 4) -------------------------------------------------
def test_unplayed_cards_may_be_kept_or_discarded_then_the_hand_refills():
    state = position(at="lisboa", hand=(2, 2, 5, 1), secret=[])
    state.apply(move(1, "mar_de_portugal"))
    state.apply(END)
    options = [a["cards"] for a in state.legal_actions()]
    assert options == [[], [2], [5], [2, 2], [2, 5], [2, 2, 5]]
    deck_before = len(state.deck)
    state.apply({"type": "discard", "cards": [2, 5]})
    assert state.used[-2:] == [2, 5]
    assert len(state.hand[0]) == 4 and 2 in state.hand[0]
    assert len(state.deck) == deck_before - 3
    assert state.current_player() == 1


def test_an_empty_hand_ends_the_turn_without_a_discard_step():
    state = position(at="lisboa", hand=(1, 1, 1, 1), secret=["goa", "mina", "congo", "ormuz"])
    for to in ("mar_de_portugal", "madeira", "mar_das_canarias", "cabo_bojador"):
        state.apply(move(1, to))
    state.apply(END)
    assert state.current_player() == 1 and len(state.hand[0]) == 4


def test_the_used_cards_are_reshuffled_when_the_deck_runs_out():
    state = position(at="lisboa", hand=(1, 2), secret=[])
    state.setup_position(used=state.used + state.deck[:-1], deck=state.deck[-1:])
    used = len(state.used)
    state.apply(END)
    state.apply({"type": "discard", "cards": []})
    assert len(state.hand[0]) == 4
    assert events(state, "reshuffle") == [{"event": "reshuffle", "cards": used}]
    assert len(state.deck) == used - 1


# -- the end (rule 11) ---------------------------------------------------------------
def _finish_turns(state, count):
    for _ in range(count):
        state.apply(END)
        if state.phase == "discard":
            state.apply({"type": "discard", "cards": []})


@pytest.mark.parametrize(("n", "trigger_seat"), [(2, 0), (3, 1), (3, 2), (4, 0)])
def test_reaching_100_ends_the_game_after_the_round(n, trigger_seat):
    state = position(n, secret=[])
    _finish_turns(state, trigger_seat)
    seat = state.current_player()
    state.setup_position(
        score=with_seat(state.score, seat, 99),
        pos=with_seat(state.pos, seat, "rio_de_sanaga"),
        secret=with_seat(state.secret, seat, ["guine"]),
        hand=with_seat(state.hand, seat, [1, 1, 1, 1]),
    )
    state.apply(move(1, "guine"))
    assert state.end_triggered and not state.is_over()
    _finish_turns(state, n - 1 - trigger_seat)
    assert not state.is_over() and state.current_player() == n - 1
    _finish_turns(state, 1)
    assert state.is_over() and state.current_player() is None
    assert state.legal_actions() == []


def test_a_full_jeronimos_ends_the_game():
    state = position(2, at="mar_de_portugal", secret=[], cargo=("green",), jeronimos=2)
    state.apply(move(1, "lisboa"))
    assert state.jeronimos == 3 and state.end_triggered
    _finish_turns(state, 2)
    assert state.is_over()


@pytest.mark.parametrize(
    ("at", "cargo", "secret", "score", "final"),
    [
        ("guine", ("red", "black"), [], 50, 54),  # +2 a cube, far from home
        ("lisboa", ("red", "black"), [], 50, 50),  # in Lisboa: nothing
        ("guine", (), ["goa", "mina"], 50, 46),  # -2 a card not discovered
        ("cochim", ("green",), ["goa"], 10, 10),
    ],
)
def test_final_adjustments(at, cargo, secret, score, final):
    state = position(2, at=at, secret=secret, cargo=cargo)
    state.setup_position(score=with_seat(state.score, 0, score))
    assert state.final_scores()[0] == final


@pytest.mark.parametrize(
    ("scores", "found", "ranks"),
    [
        ([40, 30], [[], []], [1, 2]),
        ([40, 40], [["guine"], ["guine", "mina"]], [2, 1]),  # more discoveries
        ([40, 40], [["goa", "mina"], ["guine", "mina"]], [1, 2]),  # more green ones
        ([40, 40], [["goa", "mina"], ["ormuz", "mina"]], [1, 1]),  # shared rank
    ],
)
def test_ties(scores, found, ranks):
    state = position(2, secret=[])
    state.setup_position(secret=[[], []], score=list(scores), found=found, phase="over")
    assert state.result() == {"scores": scores, "ranks": ranks}


# -- views and bad input -----------------------------------------------------------
def test_a_view_shows_own_cards_and_only_counts_of_others():
    state = position(3, secret=["goa", "mina"])
    view = state.view(1)
    assert view["movement"] == state.hand[1]
    assert view["discovery_cards"] == state.secret[1]
    assert view["movement_counts"] == [4, 4, 4]
    assert view["discovery_counts"][0] == {"green": 1, "yellow": 1}
    text = json.dumps(view)
    assert all(f'"{p}"' not in text for p in state.secret[0] + state.secret[2] + state.pile)
    assert "deck" not in view and view["movement_deck"] == len(state.deck)


@pytest.mark.parametrize(
    "action",
    [
        move(5, "madeira"),  # card not in hand
        move(1, "madeira"),  # not one move away
        move(1, "atlantis"),
        {"type": "draw"},  # not at a harbour
        {"type": "keep", "places": []},
        {"type": "sink", "caravel": 1},
        {"type": "discard", "cards": [1]},
        {"type": "move", "card": "1", "to": "cabo_bojador"},
    ],
)
def test_illegal_actions_leave_the_state_alone(action):
    state = position(at="lisboa", hand=(1, 2, 3, 4), secret=[])
    before = json.dumps([state.view(s) for s in range(2)])
    with pytest.raises(IllegalAction):
        state.apply(action)
    assert json.dumps([state.view(s) for s in range(2)]) == before


def test_keeping_nothing_is_illegal():
    state = position(at="angediva", secret=[])
    state.apply(move(1, "calecute"))
    state.apply({"type": "draw"})
    with pytest.raises(IllegalAction):
        state.apply({"type": "keep", "places": []})
    with pytest.raises(IllegalAction):
        state.apply(END)


def test_the_position_helper_keeps_every_card_once():
    state = position(4, secret=["goa", "mina"])
    cards = state.pile + [p for s in state.secret for p in s]
    assert sorted(cards) == sorted(data.DISCOVERIES)


def test_discarded_cards_are_public_counts():
    # Ruling 8: the used pile is shown to everyone as counts per value.
    state = position(at="lisboa", hand=(2, 2, 5, 1), secret=[])
    before = state.view(1)["movement_used"]
    state.apply(END)
    state.apply({"type": "discard", "cards": [2, 5]})
    after = state.view(1)["movement_used"]
    assert after["2"] == before["2"] + 1 and after["5"] == before["5"] + 1
    assert events(state, "discard")[-1]["cards"] == [2, 5]


def test_a_hidden_variant_keeps_what_the_seat_knows():
    state = position(3, secret=["goa", "mina"])
    variant = state.hidden_variant(0, seed=5)
    assert variant.hand[0] == state.hand[0] and variant.secret[0] == state.secret[0]
    for seat in (1, 2):
        assert colour_counts(variant, seat) == colour_counts(state, seat)
        assert len(variant.hand[seat]) == len(state.hand[seat])
    every = sorted(variant.pile + [p for s in variant.secret for p in s])
    assert every == sorted(data.DISCOVERIES)
    cards = sorted(variant.deck + [v for h in variant.hand for v in h])
    assert cards == sorted(state.deck + [v for h in state.hand for v in h])
    # The copy is independent of the original.
    variant.apply(END)
    assert variant.phase == "discard" and variant.history == [(0, END)]
    assert state.phase == "sail" and state.history == []


def test_a_card_named_as_a_float_or_bool_is_stored_as_an_int():
    state = position(at="lisboa", hand=(1, 1, 2, 3), secret=[])
    state.apply({"type": "move", "card": 1.0, "to": "cabo_bojador"})
    state.apply({"type": "move", "card": True, "to": "rio_do_ouro"})
    assert state.used[-2:] == [1, 1]
    assert all(type(v) is int for v in state.used)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_play_conserves_cards_and_cubes(n):
    """Nothing is created or lost: cards and cubes only move between places."""

    state = CaravelasState(n, seed=n)
    chooser = random.Random(n)
    total_cubes = {**dict.fromkeys(data.COLOURS, 4), "green": data.GREEN_CUBES[n]}
    while not state.is_over():
        carried = [c for cargo in state.cargo for c in cargo]
        for colour, total in total_cubes.items():
            home = state.jeronimos if colour == "green" else 0
            assert state.stock[colour] + carried.count(colour) + home == total
        movement = state.deck + state.used + [v for h in state.hand for v in h]
        assert len(movement) == 48
        discovery = state.pile + state.drawn + [p for s in state.secret + state.found for p in s]
        assert sorted(discovery) == sorted(data.DISCOVERIES)
        assert all(len(s) <= 4 for s in state.secret)
        assert all(not all(sunk) for sunk in state.sunk)
        state.apply(chooser.choice(state.legal_actions()))
    assert max(state.score) >= 100 or state.jeronimos == state.jeronimos_size


def test_ruling_12_a_game_that_never_scores_ends_after_round_400():
    """Two fleets that always play their first move would sail for ever (ruling 12)."""
    state = CaravelasState(2, seed=0)
    while not state.is_over():
        state.apply(state.legal_actions()[0])
    assert state.round == data.MAX_ROUNDS == 400
    ends = [e for e in state.log if e["event"] == "end_triggered"]
    assert [e["reason"] for e in ends] == ["round_limit"]
    assert state.result()["scores"] == state.final_scores()


@pytest.mark.parametrize("version", ["caravelas-1", "caravelas-2"])
def test_records_of_older_versions_replay_with_their_own_rules(version):
    state = CaravelasState(3, seed=8, version=version)
    chooser = random.Random(8)
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
    record = state.record()
    assert record["engine_version"] == version
    rebuilt = engine.replay(record)
    assert rebuilt.version == version and rebuilt.result() == state.result()
    assert rebuilt.view(0) == state.view(0)
    assert "discovery_pile_known" not in rebuilt.view(0)  # the view of its day
    with pytest.raises(ValueError, match=r"caravelas-0.*caravelas-3.*caravelas-1, caravelas-2"):
        engine.replay({**record, "engine_version": "caravelas-0"})


# -- the player card through play (figs. 4 and 5, rule 9.5) -------------------------
# Fig. 5: «O jogador chegou a Lisboa com carga e uma Caravela afundada (a nº 3).
# Recupera-a, devolvendo a ficha preta à caixa. Ganha 28 pontos (5+6+7+10)» — "The
# player reached Lisboa with cargo and one Caravel sunk (no. 3). He recovers it,
# returning the black disc to the box. He scores 28 points (5+6+7+10)".
# Rule 9.5: «Se a Caravela que vai ao fundo já carrega cubos, devolva-os imediatamente
# aos seus locais» and «O jogador não pode recolher mais cubos desse tipo» — "If the
# Caravel that sinks already carries cubes, return them at once to their places" and
# "The player may not collect more cubes of that kind". So the cubes worth 5, 6, 7 and
# 10 ride on caravels 1, 2 and 4. The same moves under the card of caravelas-1 and -2
# (yellow and white on caravel 3) lose white at the Cape, cannot load yellow, and
# deliver blue and green only: 16.
FIG_5 = [  # from Calecute: green, white, the Cape (a 1: caravel 3 sinks), blue, yellow, home
    move(3, "ceilao"),
    move(3, "chagos"),
    move(5, "sofala"),
    move(5, CAPE),
    {"type": "sink", "caravel": 3},
    END,  # an empty hand refills at once: 4, 4, 2, 5 from the deck
    END,  # seat 1 ends its turn...
    {"type": "discard", "cards": []},  # ...keeping its cards
    move(4, "congo"),
    move(4, "mina"),
    move(2, "serra_leoa"),
    move(5, "lisboa"),
]


def stacked_deck(state, upcoming):
    """The movement deck left by the hands of `state`, drawing `upcoming` first."""
    deck = [v for v, count in data.MOVEMENT_DECK.items() for _ in range(count)]
    for value in [*(v for hand in state.hand for v in hand), *upcoming]:
        deck.remove(value)
    return deck + list(reversed(upcoming))  # the deck is drawn from its end


@pytest.mark.parametrize(
    ("version", "lost", "delivered", "points"),
    [
        ("caravelas-3", [], ["yellow", "blue", "white", "green"], 28),
        ("caravelas-2", ["white"], ["blue", "green"], 16),
        ("caravelas-1", ["white"], ["blue", "green"], 16),
    ],
)
def test_fig_5_through_play(version, lost, delivered, points):
    # The start position only: seat 0 at Calecute with these cards, the next ones
    # drawn and the die; everything after it is played.
    state = position(
        at="calecute", hand=(3, 3, 5, 5), secret=[], version=version, rng=die_showing(1)
    )
    state.setup_position(deck=stacked_deck(state, (4, 4, 2, 5)))
    for action in FIG_5:
        state.apply(action)
    assert events(state, "sink") == [{"event": "sink", "seat": 0, "caravel": 3, "cubes": lost}]
    assert events(state, "deliver") == [
        {"event": "deliver", "seat": 0, "cubes": delivered, "points": points, "repaired": 1}
    ]
    assert state.score[0] == points and state.sunk[0] == [False] * 4


# Fig. 4: «O jogador verde chegou ao Cabo da Boa Esperança com uma carta Movimento 2 e
# apenas gastou 1 movimento. [...] O resultado é 1 [...] O jogador escolhe a Caravela 1,
# coloca sobre ela uma ficha preta e perde o cubo preto e o vermelho.» — "The green
# player reached the Cape of Good Hope with a Movement card 2 and spent only 1 move.
# [...] The result is 1 [...] The player chooses Caravel 1, puts a black disc on it and
# loses the black cube and the red one." Caravel 1 carries red and black in every version.
FIG_4 = [  # red at Guiné, round the Cape (a 0), black at Cochim, back to the Cape (a 1)
    move(1, "guine"),
    move(1, "serra_leoa"),
    move(5, CAPE),
    move(1, "angra_de_sao_bras"),
    END,
    END,
    {"type": "discard", "cards": []},
    move(5, "mocambique"),
    move(5, "cochim"),
    move(3, "mascarenhas"),
    move(5, "angra_de_sao_bras"),
    END,
    END,
    {"type": "discard", "cards": []},
    move(2, CAPE),  # one move of the two: the Cape stops the fleet
    {"type": "sink", "caravel": 1},
]


@pytest.mark.parametrize("version", ["caravelas-3", "caravelas-1"])
def test_fig_4_through_play(version):
    state = position(
        at="rio_de_sanaga", hand=(1, 1, 1, 5), secret=[], version=version, rng=die_showing(0, 1)
    )
    state.setup_position(deck=stacked_deck(state, (5, 5, 3, 5, 2, 1, 1, 1)))
    for action in FIG_4[:-1]:
        state.apply(action)
    assert state.cargo[0] == ["red", "black"] and state.phase == "sink"
    assert state.pos[0] == CAPE and state.hand[0] == [1, 1, 1]
    state.apply(FIG_4[-1])
    assert state.cargo[0] == [] and state.sunk[0] == [True, False, False, False]
    assert events(state, "sink")[-1]["cubes"] == ["red", "black"]


def test_a_view_shares_no_list_with_the_log():
    """Every event kind that holds a list is named in LIST_EVENTS, over whole games; editing
    every list in every view then leaves the log as it was."""
    for n in (2, 3, 4):
        state, chooser = CaravelasState(n, seed=n), random.Random(n)
        while not state.is_over():
            shown = state.log[min(state._seen) :]  # what any seat's view shows
            if any(isinstance(v, list) for e in shown for v in e.values()):
                before = json.dumps(shown)
                for seat in range(n):
                    for event in state.view(seat)["events"]:
                        for value in event.values():
                            if isinstance(value, list):
                                value.append("edited")
                assert json.dumps(shown) == before
            state.apply(chooser.choice(state.legal_actions()))
        holding = {
            e["event"] for e in state.log if any(type(v) in (list, dict) for v in e.values())
        }
        assert holding <= LIST_EVENTS
