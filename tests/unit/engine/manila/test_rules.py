"""Manila rules, one table per rule (position -> actions -> expected outcome).

Dice given to `at_placement` are used in goods order (jade, silk, ginseng,
nutmeg), one per loaded boat, three per roll.
"""

from __future__ import annotations

import pytest

import engine
from engine import IllegalAction
from engine.manila import data as D
from tests.unit.engine.helpers import with_seat
from tests.unit.engine.manila.helpers import (
    PASS,
    at_placement,
    everyone_passes,
    new,
    place,
    play,
    set_shares,
)


def bid(amount):
    return {"type": "bid", "amount": amount}


# -- setup ----------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "accomplices"), [(3, 4), (4, 3), (5, 3)])
def test_setup_cash_accomplices_and_dealt_shares(n, accomplices):
    for seed in range(30):
        state = new(n, seed)
        assert state.cash == [30] * n
        assert state.accomplices == [accomplices] * n
        assert all(sum(h.values()) == 2 for h in state.held)
        dealt = {g: sum(h[g] for h in state.held) for g in D.GOODS}
        # Dealt from 3 of each good; the rest of the 20 is the open supply.
        assert all(count <= 3 for count in dealt.values())
        assert all(state.supply[g] == 5 - dealt[g] for g in D.GOODS)
        assert state.prices == {g: 0 for g in D.GOODS}


def test_deal_from_all_shares_can_deal_four_of_a_good():
    most = 0
    for seed in range(300):
        state = new(5, seed, deal_from_all_shares=True)
        most = max(most, max(sum(h[g] for h in state.held) for g in D.GOODS))
        assert sum(state.supply.values()) == 10
    assert most >= 4


# -- auction --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("actions", "master", "paid"),
    [
        ([PASS, PASS, PASS, PASS], 0, 0),  # nobody bids: the starting player, free
        ([bid(3), PASS, PASS, PASS], 0, 3),
        ([PASS, bid(2), PASS, PASS], 1, 2),
        ([PASS, PASS, PASS, bid(1)], 3, 1),  # the last one left may still bid
        ([bid(1), bid(2), PASS, PASS, bid(5), PASS], 0, 5),  # raising goes round
        ([bid(1), bid(2), PASS, PASS, PASS], 1, 2),
    ],
)
def test_auction(actions, master, paid):
    state = play(new(4), *actions)
    assert state.phase == "buy" and state.current_player() == master
    assert state.harbour_master == master
    assert state.cash[master] == 30 - paid
    assert state.bank == paid


def test_a_bid_is_limited_by_cash_plus_loans_and_mortgages_when_won():
    state = new(4)
    bids = [a["amount"] for a in state.legal_actions() if a["type"] == "bid"]
    assert bids == list(range(1, 30 + 12 * 2 + 1))  # two unmortgaged shares
    with pytest.raises(IllegalAction):
        state.apply(bid(55))
    play(state, bid(40), PASS, PASS, PASS)
    assert sum(state.mortgaged[0].values()) == 1 and state.cash[0] == 30 + 12 - 40


def test_each_bid_must_be_higher():
    state = play(new(4), bid(6))
    amounts = [a["amount"] for a in state.legal_actions() if a["type"] == "bid"]
    assert min(amounts) == 7


def test_the_next_auction_opens_with_the_last_harbour_master():
    state = play(new(4), PASS, bid(2), PASS, PASS)  # seat 1 wins
    state.apply(PASS)  # no share
    state.apply({"type": "load", "goods": ["jade", "silk", "ginseng"]})
    state.apply({"type": "start", "positions": {"jade": 5, "silk": 4, "ginseng": 0}})
    assert state.current_player() == 1  # placement starts with the harbour master
    everyone_passes(state)
    assert state.voyage == 2 and state.phase == "auction"
    assert state.current_player() == 1
    play(state, PASS, PASS, PASS, PASS)  # nobody bids: seat 1 keeps the office
    assert state.harbour_master == 1 and state.cash[1] == 28


# -- the harbour master's duties -----------------------------------------------------
@pytest.mark.parametrize(("price_step", "cost"), [(0, 5), (1, 5), (2, 10), (3, 20)])
def test_buying_a_share_costs_its_price_at_least_five(price_step, cost):
    state = play(new(4), PASS, PASS, PASS, PASS)
    state.setup_position(prices={**state.prices, "silk": price_step})
    before = state.supply["silk"]
    state.apply({"type": "buy", "good": "silk"})
    assert state.cash[0] == 30 - cost
    assert state.supply["silk"] == before - 1
    assert sum(state.held[0].values()) == 3
    assert state.phase == "load"


def test_a_share_out_of_supply_or_reach_cannot_be_bought():
    state = play(new(4), PASS, PASS, PASS, PASS)
    state.setup_position(
        supply={**state.supply, "jade": 0},
        prices={**state.prices, "nutmeg": 4},  # costs 30
        cash=with_seat(state.cash, 0, 20),
    )
    set_shares(state, 0, {})
    goods = {a["good"] for a in state.legal_actions() if a["type"] == "buy"}
    assert goods == {"silk", "ginseng"}


def test_loading_three_of_four_goods_and_starting_positions_summing_to_nine():
    state = play(new(4), PASS, PASS, PASS, PASS, PASS)
    loads = state.legal_actions()
    assert len(loads) == 4 and all(len(a["goods"]) == 3 for a in loads)
    state.apply({"type": "load", "goods": ["silk", "ginseng", "nutmeg"]})
    starts = state.legal_actions()
    assert len(starts) == 25
    for action in starts:
        positions = action["positions"]
        assert set(positions) == {"silk", "ginseng", "nutmeg"}
        assert sum(positions.values()) == 9 and all(0 <= p <= 5 for p in positions.values())
    with pytest.raises(IllegalAction):
        state.apply({"type": "start", "positions": {"silk": 6, "ginseng": 3, "nutmeg": 0}})


# -- placement ------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "before_first_roll"), [(3, 2), (4, 1), (5, 1)])
def test_placement_rounds_before_the_first_roll(n, before_first_roll):
    state = at_placement(n, dice=(1, 1, 1) * 3)
    spaces = iter(["insurance", *D.HARBOURS, *D.SHIPYARDS, "small_pilot", "large_pilot"])
    placed = 0
    while state.rolls == 0:
        state.apply(place(next(spaces)))
        placed += 1
    # 3 players: two full placement rounds come before the first roll.
    assert placed == n * before_first_roll


def test_boat_seats_fill_cheapest_first_and_a_full_boat_takes_no_more():
    state = at_placement(4, dice=(1, 1, 1))
    costs = []
    for seat in range(4):
        before = state.cash[seat]
        state.apply(place("boat", "silk" if seat < 3 else "jade"))
        costs.append(before - state.cash[seat])
    assert costs == [3, 4, 5, 3]
    assert place("boat", "silk") not in state.legal_actions()


def test_pass_ends_a_players_placements_for_the_voyage():
    state = at_placement(4, dice=(1, 1, 1) * 3)
    play(state, PASS, place("boat", "jade"), place("boat", "jade"), place("boat", "jade"))
    # After roll 1 the second round starts with the harbour master, who passed.
    assert state.rolls == 1 and state.current_player() == 1


def test_a_player_without_accomplices_is_skipped():
    state = at_placement(4, dice=(1, 1, 1) * 3)
    state.setup_position(accomplices=with_seat(state.accomplices, 1, 0))
    state.apply(place("boat", "jade"))
    assert state.current_player() == 2


@pytest.mark.parametrize(
    ("space", "cost"),
    [
        ("harbour_a", 4),
        ("harbour_b", 3),
        ("harbour_c", 2),
        ("shipyard_a", 4),
        ("shipyard_b", 3),
        ("shipyard_c", 2),
        ("pirate", 5),
        ("small_pilot", 2),
        ("large_pilot", 5),
    ],
)
def test_space_costs(space, cost):
    state = at_placement(4)
    state.apply(place(space))
    assert state.cash[0] == 30 - cost
    assert place(space) not in state.legal_actions() or space == "pirate"


def test_insurance_pays_ten_at_once():
    state = at_placement(4)
    state.apply(place("insurance"))
    assert state.cash[0] == 40 and state.bank == -10
    assert place("insurance") not in state.legal_actions()


def test_two_pirates_bow_then_stern_one_player_may_hold_both():
    state = at_placement(4, dice=(1, 1, 1))
    play(state, place("pirate"), place("pirate"))
    assert state.pirates == [0, 1]  # captain at the bow first, then the stern
    assert place("pirate") not in state.legal_actions()
    state = at_placement(4, dice=(1, 1, 1) * 2)
    play(state, place("pirate"), PASS, PASS, PASS, place("pirate"))
    assert state.pirates == [0, 0]


def test_a_broke_player_stows_away_on_a_boat_paying_all_his_cash():
    state = at_placement(4, loaded=("jade", "silk", "nutmeg"))
    state.apply(place("insurance"))  # seat 0 takes the only free space
    set_shares(state, 1, {})
    state.setup_position(cash=with_seat(state.cash, 1, 1))  # cheaper than any space or seat left
    legal = state.legal_actions()
    assert {a.get("space") for a in legal} == {None, "boat"}
    assert {a.get("good") for a in legal if a["type"] == "place"} == {"jade", "silk", "nutmeg"}
    state.apply(place("boat", "jade"))
    assert state.cash[1] == 0 and state.crew["jade"] == [1]
    assert state.log[-2]["reason"] == "stowaway" and state.log[-1]["stowaway"] is True


# «Polizones» (manila_es_pt.txt): «Cuando un jugador no tiene dinero (ni participaciones
# no empeñadas con las cuales poder tomar préstamos), solo puede colocar sus compinches
# como polizones en los espacios vacantes de cualquier chalana, sin coste alguno. No
# podrá acceder a ningún otro espacio del tablero hasta que vuelva a tener dinero.»
# — "When a player has no money (nor unmortgaged shares to take loans on), he may only
# place his accomplices as stowaways on the vacant spaces of any barge, at no cost at
# all. He may not use any other space of the board until he has money again."
# Passing stays open to him: «Un jugador siempre puede renunciar a colocar un compinche
# cuando le toque» — "A player may always decline to place an accomplice on his turn."
BOATS = [place("boat", g) for g in ("jade", "silk", "nutmeg")]


def broke_harbour_master(version=None):
    """Seat 0 wins the auction with all he can raise (30 + 2 shares x 12 = 54): no cash,
    both shares mortgaged. Boats jade, silk, nutmeg; seat 0 first to place, every
    space free. Reached by public actions only."""
    state = new(4, version=version)
    play(state, bid(54), PASS, PASS, PASS)  # seat 0 pays 54: two forced mortgages
    play(state, PASS, {"type": "load", "goods": ["jade", "silk", "nutmeg"]})
    state.apply({"type": "start", "positions": {"jade": 3, "silk": 3, "nutmeg": 3}})
    assert state.cash[0] == 0 and not any(state.held[0].values())
    assert state.phase == "place" and state.current_player() == 0
    return state


@pytest.mark.parametrize(
    ("version", "legal"),
    [
        ("manila-2", [PASS, *BOATS]),  # only free boat seats, and passing
        ("manila-1", [PASS, place("insurance")]),  # the old ruling: insurance, no boat
    ],
)
def test_a_player_with_no_money_and_no_unmortgaged_share_may_only_stow_away(version, legal):
    state = broke_harbour_master(version)
    assert state.legal_actions() == legal


def test_a_stowaway_takes_a_free_boat_seat_at_no_cost():
    state = broke_harbour_master()
    logged, bank = len(state.log), state.bank
    state.apply(place("boat", "silk"))
    assert state.cash[0] == 0 and state.crew["silk"] == [0] and state.bank == bank
    assert state.log[logged:] == [
        {"event": "placed", "seat": 0, "space": "boat", "good": "silk", "stowaway": True}
    ]
    assert place("insurance") in state.legal_actions()  # seat 1 has money


def test_a_stowaway_is_offered_only_boats_with_a_free_seat():
    state = broke_harbour_master()
    state.setup_position(crew={**state.crew, "nutmeg": [1, 2, 3]})  # nutmeg is full
    assert state.legal_actions() == [PASS, place("boat", "jade"), place("boat", "silk")]
    state.setup_position(crew={"jade": [1, 2, 3, 1], "silk": [2, 3, 1], "nutmeg": [1, 2, 3]})
    assert state.legal_actions() == [PASS]


def test_one_unmortgaged_share_is_money_enough_for_any_space():
    state = broke_harbour_master()
    set_shares(state, 0, {"jade": 1}, {"silk": 1})
    legal = state.legal_actions()
    assert place("insurance") in legal and place("harbour_a") in legal
    assert {"type": "mortgage", "good": "jade"} in legal


def test_a_manila_1_record_with_a_broke_insurer_replays_with_its_rules():
    state = broke_harbour_master("manila-1")
    state.apply(place("insurance"))
    assert state.cash[0] == 10 and state.spaces["insurance"] == 0
    record = state.record()
    assert record["engine_version"] == "manila-1"
    rebuilt = engine.replay(record)
    assert rebuilt.version == "manila-1" and rebuilt.cash == state.cash
    assert rebuilt.view(1) == state.view(1)
    with pytest.raises(IllegalAction):  # the same moves break today's rule
        engine.replay({**record, "engine_version": "manila-2"})
    with pytest.raises(ValueError, match=r"manila-0.*manila-2.*manila-1"):
        engine.replay({**record, "engine_version": "manila-0"})


def test_a_player_who_can_pay_something_is_no_stowaway():
    state = at_placement(4, loaded=("jade", "silk", "ginseng"))
    set_shares(state, 0, {})
    state.setup_position(cash=with_seat(state.cash, 0, 2))
    spaces = {(a.get("space"), a.get("good")) for a in state.legal_actions()}
    assert ("boat", "ginseng") in spaces and ("harbour_c", None) in spaces
    assert ("boat", "jade") not in spaces


def test_placing_beyond_cash_mortgages_a_share():
    state = at_placement(4)
    state.setup_position(cash=with_seat(state.cash, 0, 1))
    state.apply(place("pirate"))
    assert state.cash[0] == 1 + 12 - 5
    assert sum(state.mortgaged[0].values()) == 1


# -- mortgages ---------------------------------------------------------------------------
def test_mortgage_and_redeem_at_a_players_own_decision():
    state = new(4)
    good = next(g for g in D.GOODS if state.held[0][g])
    state.apply({"type": "mortgage", "good": good})
    assert state.cash[0] == 42 and state.mortgaged[0][good] == 1
    assert state.current_player() == 0  # still his decision
    state.apply({"type": "redeem", "good": good})
    assert state.cash[0] == 27 and state.mortgaged[0][good] == 0
    state.setup_position(cash=with_seat(state.cash, 0, 14))
    state.apply({"type": "mortgage", "good": good})
    state.setup_position(cash=with_seat(state.cash, 0, 14))
    assert {"type": "redeem", "good": good} not in state.legal_actions()  # needs 15


def test_a_forced_mortgage_takes_the_cheapest_share():
    state = at_placement(4)
    set_shares(state, 0, {"jade": 1, "silk": 1})
    state.setup_position(
        prices={**state.prices, "jade": 3},
        cash=with_seat(state.cash, 0, 0),
    )
    state.apply(place("harbour_c"))
    assert state.mortgaged[0] == {"jade": 0, "silk": 1, "ginseng": 0, "nutmeg": 0}


# -- movement ---------------------------------------------------------------------------
def test_rolls_move_boats_and_boats_past_13_dock_in_order():
    state = at_placement(4, positions=(5, 4, 0), dice=(6, 6, 1, 3, 4, 2, 1, 1, 1))
    everyone_passes(state)
    # roll 1: jade 11, silk 10, nutmeg 1; roll 2: jade 14 docks A, silk 14 docks B
    assert state.voyage == 2
    log = [e for e in state.log if e["event"] == "docked"]
    assert [(e["good"], e["berth"]) for e in log] == [("jade", "harbour_a"), ("silk", "harbour_b")]
    assert next(e for e in state.log if e["event"] == "to_shipyard")["berth"] == "shipyard_a"


def test_a_docked_boat_takes_no_more_accomplices():
    # jade: 5 + 6 = 11 after roll 1, 17 after roll 2: it docks before round 3.
    state = at_placement(4, positions=(5, 4, 0), dice=(6, 1, 1, 6, 1, 1, 1, 1, 1))
    play(state, place("harbour_a"), PASS, PASS, PASS)  # round 1; only seat 0 goes on
    assert state.rolls == 1 and place("boat", "jade") in state.legal_actions()
    state.apply(place("shipyard_a"))  # round 2, then roll 2
    assert state.rolls == 2 and state.berth["jade"] == "harbour_a"
    assert state.current_player() == 0 and state.phase == "place"
    assert all(a.get("good") != "jade" for a in state.legal_actions())
    assert place("boat", "silk") in state.legal_actions()


# -- pirates ------------------------------------------------------------------------------
def pirates_ready(dice, positions=(5, 4, 0), loaded=("jade", "ginseng", "nutmeg"), **options):
    """Seat 0 captain, seat 1 stern pirate; then everyone passes."""
    state = at_placement(4, loaded=loaded, positions=positions, dice=dice, **options)
    play(state, place("pirate"), place("pirate"), PASS, PASS)
    return state


def test_boarding_after_roll_2_one_free_seat_figure_9():
    # Jade and ginseng end roll 2 on 13; only ginseng has a free seat.
    state = pirates_ready(dice=(4, 4, 1, 4, 5, 1, 1, 1, 1))
    state.setup_position(crew={**state.crew, "jade": [2, 3, 2, 3], "ginseng": [2, 3]})
    play(state, place("harbour_a"), PASS)  # seat 0 keeps a placement for round 3
    assert state.rolls == 2 and state.phase == "board" and state.current_player() == 0
    assert state.legal_actions() == [{"type": "stay"}, {"type": "board", "good": "ginseng"}]
    state.apply({"type": "board", "good": "ginseng"})
    # No free seat is left: the stern pirate becomes captain and has nothing to decide.
    assert state.pirates == [1] and state.crew["ginseng"] == [2, 3, 0]
    assert state.phase != "board"


def test_a_captain_who_stays_leaves_the_stern_pirate_his_own_choice():
    state = pirates_ready(dice=(4, 4, 1, 4, 5, 1, 1, 1, 1))
    play(state, place("harbour_a"), PASS)
    state.apply({"type": "stay"})
    assert state.current_player() == 1 and state.phase == "board"
    state.apply({"type": "board", "good": "jade"})
    assert state.pirates == [0] and state.crew["jade"] == [1]
    assert state.phase == "place" and state.current_player() == 0


def test_boats_on_13_are_boarded_after_roll_2_only():
    state = at_placement(4, loaded=("jade", "ginseng", "nutmeg"), dice=(1, 1, 1, 0, 1, 1))
    state.setup_position(position={**state.position, "jade": 12})
    play(state, place("pirate"), place("pirate"), place("harbour_a"), PASS)
    assert state.rolls == 1 and state.position["jade"] == 13
    assert state.phase == "place"  # no boarding after roll 1
    play(state, PASS, PASS, PASS)
    assert state.rolls == 2 and state.phase == "board"


def test_plunder_after_roll_3_splits_nutmeg_24_as_12_and_12_figure_10():
    # nutmeg: 0 +4 +4 +5 = 13 after roll 3
    state = pirates_ready(dice=(1, 1, 4, 1, 1, 4, 1, 1, 5), positions=(5, 4, 0))
    state.setup_position(crew={**state.crew, "nutmeg": [2, 3]})
    cash = list(state.cash)
    everyone_passes(state)
    assert state.phase == "plunder" and state.current_player() == 0
    state.apply({"type": "plunder", "good": "nutmeg", "to": "shipyard"})
    assert state.cash[0] - cash[0] == 12 and state.cash[1] - cash[1] == 12
    assert state.cash[2] == cash[2] and state.cash[3] == cash[3]  # crew unpaid
    assert state.prices["nutmeg"] == 0  # went to the shipyard: no price rise


def test_a_plundered_boat_sent_to_the_harbour_raises_the_price():
    state = pirates_ready(dice=(1, 1, 4, 1, 1, 4, 1, 1, 5))
    everyone_passes(state)
    state.apply({"type": "plunder", "good": "nutmeg", "to": "harbour"})
    assert state.prices["nutmeg"] == 1


def test_a_single_pirate_takes_the_whole_plunder():
    state = at_placement(
        4,
        loaded=("jade", "ginseng", "nutmeg"),
        positions=(5, 4, 0),
        dice=[1, 1, 4, 1, 1, 4, 1, 1, 5],
    )
    play(state, place("pirate"), PASS, PASS, PASS)
    cash = state.cash[0]
    everyone_passes(state)
    state.apply({"type": "plunder", "good": "nutmeg", "to": "shipyard"})
    assert state.cash[0] - cash == 24


def test_with_an_empty_pirate_ship_a_boat_on_13_after_roll_3_docks():
    state = at_placement(
        4,
        loaded=("jade", "ginseng", "nutmeg"),
        positions=(5, 4, 0),
        dice=[1, 1, 4, 1, 1, 4, 1, 1, 5],
    )
    play(state, place("boat", "nutmeg"), PASS, PASS, PASS)
    cash = state.cash[0]
    everyone_passes(state)
    assert state.voyage == 2
    assert state.cash[0] - cash == 24 and state.prices["nutmeg"] == 1


def test_pirate_variant_boards_a_full_boat_sending_one_accomplice_home():
    state = pirates_ready(dice=(4, 4, 1, 4, 5, 1, 1, 1, 1), pirate_variant=True)
    state.setup_position(crew={**state.crew, "jade": [2, 3, 2, 3], "ginseng": [2, 3, 3]})
    everyone_passes(state)
    legal = state.legal_actions()
    assert {"type": "board", "good": "jade", "evict": 2} in legal
    state.apply({"type": "board", "good": "jade", "evict": 2})
    assert sorted(state.crew["jade"]) == [0, 2, 3, 3]
    # The second pirate may not send the first home.
    assert {"type": "board", "good": "jade", "evict": 0} not in state.legal_actions()
    assert {"type": "board", "good": "jade", "evict": 3} in state.legal_actions()


def test_pirate_variant_fills_free_seats_first():
    state = pirates_ready(dice=(4, 4, 1, 4, 5, 1, 1, 1, 1), pirate_variant=True)
    state.setup_position(crew={**state.crew, "jade": [2, 3, 2, 3], "ginseng": [2, 3]})
    everyone_passes(state)
    assert state.legal_actions() == [{"type": "stay"}, {"type": "board", "good": "ginseng"}]


# -- pilots ------------------------------------------------------------------------------
def pilots_ready(positions, dice=(1, 1, 1, 1, 1, 1), holders=("small_pilot", "large_pilot")):
    state = at_placement(4, loaded=("jade", "silk", "nutmeg"), positions=positions, dice=dice)
    actions = [place(h) for h in holders]
    play(state, *actions, *[PASS] * (4 - len(actions)))
    everyone_passes(state)
    return state


def test_small_pilot_then_large_pilot_before_the_third_roll():
    state = pilots_ready((5, 4, 0), dice=(1, 1, 1, 1, 1, 1, 1, 1, 1))
    assert state.rolls == 2 and state.phase == "pilot" and state.current_player() == 0
    small = state.legal_actions()
    assert len(small) == 7  # decline, or one boat one space either way
    state.apply({"type": "pilot", "moves": [{"good": "jade", "steps": 1}]})
    assert state.position["jade"] == 8 and state.current_player() == 1
    large = state.legal_actions()
    assert {"type": "pilot", "moves": [{"good": "jade", "steps": -2}]} in large
    assert {
        "type": "pilot",
        "moves": [{"good": "jade", "steps": 1}, {"good": "nutmeg", "steps": -1}],
    } in large
    positions = state.position  # the voyage ends now; keep its boats' last places
    state.apply({"type": "pilot", "moves": [{"good": "silk", "steps": -2}]})
    assert positions["silk"] == 4 + 1 + 1 - 2 + 1  # and roll 3 moved it one on
    assert positions["jade"] == 5 + 1 + 1 + 1 + 1
    assert state.voyage == 2


def test_a_pilot_never_moves_a_boat_below_zero():
    state = pilots_ready((5, 4, 0), dice=(1, 1, 0, 1, 1, 0, 1, 1, 1))
    moves = [a["moves"] for a in state.legal_actions()]
    assert [{"good": "nutmeg", "steps": -1}] not in moves
    state.apply({"type": "pilot", "moves": []})
    moves = [a["moves"] for a in state.legal_actions()]
    assert [{"good": "nutmeg", "steps": -2}] not in moves
    assert [{"good": "nutmeg", "steps": 2}] in moves


def test_a_pilot_can_dock_a_boat():
    state = pilots_ready((5, 4, 0), dice=(4, 1, 1, 4, 1, 1, 1, 1, 1))
    assert state.position["jade"] == 13
    state.apply({"type": "pilot", "moves": [{"good": "jade", "steps": 1}]})
    assert state.berth["jade"] == "harbour_a"
    # The large pilot can no longer move the docked boat.
    assert all(m["good"] != "jade" for a in state.legal_actions() for m in a["moves"])


def test_a_boat_moved_onto_13_by_a_pilot_is_not_attacked():
    state = at_placement(
        4, loaded=("jade", "silk", "nutmeg"), positions=(5, 4, 0), dice=[1, 1, 1, 1, 1, 1, 1, 1, 1]
    )
    play(state, place("pirate"), place("small_pilot"), PASS, PASS)
    everyone_passes(state)
    state.setup_position(position={**state.position, "jade": 12})
    state.apply({"type": "pilot", "moves": [{"good": "jade", "steps": 1}]})
    # Nothing happens on 13 between the pilots and the roll; roll 3 moves jade on.
    assert state.voyage == 2
    assert not any(e["event"] in ("plundered", "boarded") for e in state.log)


# -- profits ------------------------------------------------------------------------------
def settle_with(crew=None, spaces=None, positions=(13, 13, 13), dice=(1, 1, 1), n=4):
    """Boats at the given positions before the last roll; everyone passes from round 1."""
    state = at_placement(n, loaded=("jade", "silk", "nutmeg"), dice=[0, 0, 0, 0, 0, 0, *dice])
    state.setup_position(
        crew={**state.crew, **{good: list(seats) for good, seats in (crew or {}).items()}},
        spaces={**state.spaces, **(spaces or {})},
        position=dict(zip(("jade", "silk", "nutmeg"), positions, strict=True)),
    )
    cash = list(state.cash)
    bank = state.bank
    everyone_passes(state)
    return state, [state.cash[s] - cash[s] for s in range(n)], state.bank - bank


def test_jade_36_split_24_and_12_figure_12():
    _, gain, bank = settle_with(crew={"jade": [0, 0, 1]}, positions=(13, 0, 0))
    assert gain == [24, 12, 0, 0] and bank == -36


@pytest.mark.parametrize(
    ("positions", "spaces", "gain"),
    [
        # Two boats dock: harbours A and B pay 6 and 8; C has no boat and pays nothing.
        ((13, 13, 0), {"harbour_a": 0, "harbour_b": 1, "harbour_c": 2}, [6, 8, 0, 0]),
        ((13, 13, 13), {"harbour_c": 3}, [0, 0, 0, 15]),
        ((0, 0, 0), {"harbour_a": 0}, [0, 0, 0, 0]),
    ],
)
def test_harbours_pay_from_the_bank_figure_13a(positions, spaces, gain):
    assert settle_with(spaces=spaces, positions=positions)[1] == gain


def test_shipyard_paid_by_insurer_who_never_pays_himself_figure_14():
    # Two boats in the shipyards; seat 0 insures and sits on shipyard A, seat 1 on B.
    spaces = {"insurance": 0, "shipyard_a": 0, "shipyard_b": 1}
    _, gain, bank = settle_with(spaces=spaces, positions=(13, 0, 0))
    assert gain[0] == -8 and gain[1] == 8
    assert bank == 0  # jade docked with no crew, and the insurer paid seat 1


def test_insurer_pays_the_bank_for_a_shipyard_nobody_holds():
    spaces = {"insurance": 2, "shipyard_c": 3}
    _, gain, bank = settle_with(spaces=spaces, positions=(0, 0, 0))
    # Three boats in shipyards A, B, C: the bank gets 6 + 8, seat 3 gets 15.
    assert gain == [0, 0, -29, 15] and bank == 14


def test_without_an_insurer_the_bank_pays_the_shipyards():
    _, gain, bank = settle_with(spaces={"shipyard_a": 1}, positions=(13, 13, 0))
    assert gain == [0, 6, 0, 0] and bank == -6


def test_an_insurer_short_of_cash_mortgages_then_the_bank_pays_the_rest():
    state = at_placement(4, loaded=("jade", "silk", "nutmeg"), dice=[0] * 9)
    state.setup_position(
        position={"jade": 0, "silk": 0, "nutmeg": 0},
        spaces={**state.spaces, "insurance": 0, "shipyard_a": 1, "shipyard_b": 2, "shipyard_c": 3},
    )
    set_shares(state, 0, {"silk": 1})
    state.setup_position(cash=with_seat(state.cash, 0, 5))
    cash = list(state.cash)
    everyone_passes(state)
    # Owes 6 + 8 + 15 = 29; has 5 + 12 from the forced mortgage: pays 17, bank pays 12.
    assert state.cash[0] == 0 and state.mortgaged[0]["silk"] == 1
    assert [state.cash[s] - cash[s] for s in (1, 2, 3)] == [6, 8, 15]
    assert state.bank == -12 - 12  # lent 12 on the mortgage, paid 12 of the claims


def test_profit_order_lets_the_insurer_collect_first():
    # The insurer crews the docked jade (36) before paying 29 of repairs.
    spaces = {"insurance": 0, "shipyard_a": 1, "shipyard_b": 2, "shipyard_c": 3}
    state = at_placement(4, loaded=("jade", "silk", "nutmeg"), dice=[0] * 6 + [1, 0, 0])
    state.setup_position(
        position={"jade": 13, "silk": 0, "nutmeg": 0},
        spaces={**state.spaces, **spaces},
        crew={**state.crew, "jade": [0]},
        cash=with_seat(state.cash, 0, 0),
    )
    everyone_passes(state)
    # jade docks (shipyards A and B get silk and nutmeg): +36, then pays 6 + 8.
    assert state.cash[0] == 36 - 14 and sum(state.mortgaged[0].values()) == 0


@pytest.mark.parametrize(
    ("positions", "rises"),
    [
        ((13, 13, 0), {"jade": 1, "silk": 1, "nutmeg": 0}),
        ((0, 0, 0), {"jade": 0, "silk": 0, "nutmeg": 0}),
        ((13, 13, 13), {"jade": 1, "silk": 1, "nutmeg": 1}),
    ],
)
def test_docked_goods_rise_one_step(positions, rises):
    state, _, _ = settle_with(positions=positions)
    assert {g: state.prices[g] for g in ("jade", "silk", "nutmeg")} == rises
    assert state.prices["ginseng"] == 0


# -- the end -------------------------------------------------------------------------------
def test_the_game_ends_after_the_voyage_in_which_a_price_reaches_30():
    state = at_placement(4, loaded=("jade", "silk", "nutmeg"), dice=[0] * 6 + [1, 0, 0])
    state.setup_position(
        prices={**state.prices, "jade": 3},
        position={**state.position, "jade": 13},
    )
    set_shares(state, 0, {"jade": 2}, {"silk": 1})
    set_shares(state, 1, {"jade": 1, "nutmeg": 1})
    set_shares(state, 2, {}, {})
    set_shares(state, 3, {"silk": 2})
    state.setup_position(cash=[30, 45, 90, 90])
    everyone_passes(state)
    assert state.is_over() and state.current_player() is None and state.legal_actions() == []
    # Fortune: cash + shares at market price - 15 per mortgaged share.
    assert state.result()["scores"] == [30 + 60 - 15, 45 + 30, 90, 90]
    assert state.result()["ranks"] == [3, 3, 1, 1]  # equal fortunes share a rank


# -- views ---------------------------------------------------------------------------------
def test_a_view_shows_counts_of_others_shares_but_only_its_own_goods():
    state = new(4, seed=3)
    state.apply({"type": "mortgage", "good": next(g for g in D.GOODS if state.held[0][g])})
    for seat in range(4):
        view = state.view(seat)
        assert view["my_shares"] == state.held[seat]
        assert view["my_mortgaged"] == state.mortgaged[seat]
        assert view["shares"] == [2, 2, 2, 2] and view["mortgaged"] == [1, 0, 0, 0]
    # Goods appear in a view only as the seat's own (the supply is public).
    view = state.view(1)
    hidden = {k: v for k, v in view.items() if k not in ("my_shares", "my_mortgaged")}
    assert set(hidden) >= {"cash", "prices", "supply", "boats", "spaces"}
    assert "held" not in str(hidden) and "dealt" not in str(hidden)


def test_a_mortgage_keeps_its_good_secret():
    state = new(4)
    good = next(g for g in D.GOODS if state.held[0][g])
    state.apply({"type": "mortgage", "good": good})
    view = state.view(1)
    assert view["mortgaged"][0] == 1
    assert good not in str(view["events"][-1])


# What a seat was shown once and may remember stays in its view (manila-2): the
# harbour master buys his share openly, a pirate who boards is crew apart (the
# variant may not send him home), a plundered boat's crew goes unpaid.
def test_open_share_purchases_stay_in_every_view():
    state = play(new(4), PASS, PASS, PASS, PASS, {"type": "buy", "good": "silk"})
    play(state, {"type": "load", "goods": ["jade", "silk", "nutmeg"]})
    state.apply({"type": "start", "positions": {"jade": 3, "silk": 3, "nutmeg": 3}})
    play(state, PASS, PASS, PASS, PASS)  # the "share_bought" event has left every log window
    for seat in range(4):
        view = state.view(seat)
        assert not any(e["event"] == "share_bought" for e in view["events"])
        assert view["bought"] == [["silk"], [], [], []]


def test_boarded_pirates_and_plundered_boats_show_on_their_boats():
    state = pirates_ready(dice=(4, 4, 1, 4, 5, 1, 1, 1, 1))
    play(state, place("harbour_a"), PASS)
    state.apply({"type": "board", "good": "ginseng"})
    boats = {b["good"]: b for b in state.view(3)["boats"]}
    assert boats["ginseng"]["boarded"] == [0] and boats["jade"]["boarded"] == []
    state = pirates_ready(dice=(1, 1, 4, 1, 1, 4, 1, 1, 5))
    everyone_passes(state)
    assert state.phase == "plunder"
    boats = {b["good"]: b for b in state.view(2)["boats"]}
    assert [g for g, b in boats.items() if b["plundered"]] == ["nutmeg"]


def test_a_manila_1_view_is_the_view_manila_1_gave():
    state = play(
        new(4, version="manila-1"), PASS, PASS, PASS, PASS, {"type": "buy", "good": "silk"}
    )
    play(state, {"type": "load", "goods": ["jade", "silk", "nutmeg"]})
    view = state.view(1)
    assert "bought" not in view
    assert set(view["boats"][0]) == {
        "good",
        "position",
        "berth",
        "crew",
        "free_seats",
        "next_seat_cost",
        "profit",
    }


def test_events_since_a_seats_last_decision():
    state = play(new(4), bid(2), bid(3), PASS, PASS)
    assert state.current_player() == 0
    events = [e["event"] for e in state.view(0)["events"]]
    # From the seat's own last action on: its bid, then what the others did.
    assert events == ["bid", "bid", "auction_pass", "auction_pass"]
    state.apply(PASS)  # seat 0 passes too: seat 1 wins at 3
    assert [e["event"] for e in state.view(1)["events"]] == [
        "bid",
        "auction_pass",
        "auction_pass",
        "auction_pass",
        "pay",
        "harbour_master",
    ]
