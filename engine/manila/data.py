"""Manila's numbers: the board and the setup, apart from the rules that use them."""

GOODS = ("jade", "silk", "ginseng", "nutmeg")

# Boat seats, cheapest first (a boat always fills its cheapest free seat).
SEAT_COSTS = {
    "jade": (3, 4, 5, 5),
    "silk": (3, 4, 5),
    "ginseng": (1, 2, 3),
    "nutmeg": (2, 3, 4),
}
# What a docked boat pays its crew, split equally.
PROFIT = {"jade": 36, "silk": 30, "ginseng": 18, "nutmeg": 24}

HARBOURS = ("harbour_a", "harbour_b", "harbour_c")
SHIPYARDS = ("shipyard_a", "shipyard_b", "shipyard_c")
# Cost to place and what the space pays, by letter A, B, C.
HARBOUR_COST = {"harbour_a": 4, "harbour_b": 3, "harbour_c": 2}
HARBOUR_PAY = {"harbour_a": 6, "harbour_b": 8, "harbour_c": 15}
SHIPYARD_COST = {"shipyard_a": 4, "shipyard_b": 3, "shipyard_c": 2}
SHIPYARD_PAY = {"shipyard_a": 6, "shipyard_b": 8, "shipyard_c": 15}

PIRATE_COST = 5
SMALL_PILOT_COST = 2
LARGE_PILOT_COST = 5
INSURANCE_BONUS = 10

# Spaces other than boat seats, with their cost (insurance is free and pays 10).
SPACE_COST = {
    **HARBOUR_COST,
    **SHIPYARD_COST,
    "pirate": PIRATE_COST,
    "small_pilot": SMALL_PILOT_COST,
    "large_pilot": LARGE_PILOT_COST,
    "insurance": 0,
}
SPACES = (*HARBOURS, *SHIPYARDS, "pirate", "small_pilot", "large_pilot", "insurance")

PRICE_TRACK = (0, 5, 10, 20, 30)
MIN_SHARE_PRICE = 5
START_CASH = 30
MORTGAGE_VALUE = 12
REDEEM_COST = 15
ACCOMPLICES = {3: 4, 4: 3, 5: 3}
SHARES_PER_GOOD = 5
DEALT_POOL_PER_GOOD = 3  # setup shuffles 3 of each good and deals from them
SHARES_DEALT_EACH = 2

LANE_LAST = 13  # a boat moving past 13 docks
PIRATE_SPACE = 13
START_MAX = 5
START_SUM = 9
LOADED_BOATS = 3
