"""House bot `meuterer/greedy`: plays the card that gains the most sale points now.

Offer: a good goes where it makes this seat a leader at an active island
(worth the most points), otherwise it passes; as captain it passes as soon
as no card gains anything. Characters are chosen by a rough points estimate,
and in a mutiny it throws in every conflict card it holds. One step deep.
"""


def _counts(view, island):
    counts = [0] * view["players"]
    for card in view["table"]:
        if card["island"] == island and card["stage"] == "offer":
            counts[card["seat"]] += 1
    return counts


def _sale(view, island, counts, seat):
    best = max(counts)
    if best == 0 or counts[seat] != best:
        return 0
    sole, two, more = view["islands"][island]["sale"]
    leaders = sum(1 for c in counts if c == best)
    return sole if leaders == 1 else two if leaders == 2 else more


def _gain(view, action):
    """Sale points this seat gains at the island of a `play` action."""
    island = action.get("island")
    if island is None:
        return 0
    seat = view["seat"]
    counts = _counts(view, island)
    before = _sale(view, island, counts, seat)
    counts[seat] += 1
    return _sale(view, island, counts, seat) - before


def _navigation(view, steps):
    return view["islands"][(view["ship"] + steps) % len(view["islands"])]["navigation"]


def _character_value(view, name):
    seat = view["seat"]
    promise = view["promise"] or 0
    reserved = len(view["hand"])
    if name == "boatswain":
        return promise + 1
    if name == "mutineer":
        return 0.6 * _navigation(view, reserved) + 0.3 * view["hand"].count("conflict")
    if name == "cabin_boy":
        return 1.0
    if name == "merchant":
        bonus = 0
        for island in range(len(view["islands"])):
            counts = _counts(view, island)
            if counts[seat] and counts[seat] == max(counts):
                sole = view["islands"][island]["sale"][0]
                bonus += sole - _sale(view, island, counts, seat)
        return bonus + 0.5
    return 0.5  # stevedore: a better hand next round


def act(view, legal):
    phase = view["phase"]
    if phase == "promise":
        return next((a for a in legal if a.get("points") == 1), legal[0])
    if phase == "offer":
        plays = [a for a in legal if a["type"] == "play" and a.get("island") is not None]
        passing = next((a for a in legal if a["type"] == "pass"), legal[0])
        if not plays:
            return passing
        best = max(plays, key=lambda a: _gain(view, a))
        return best if _gain(view, best) > 0 else passing
    if phase == "character":
        return max(legal, key=lambda a: _character_value(view, a["name"]))
    if phase == "mutiny":
        return max(legal, key=lambda a: a["conflicts"])
    if phase == "discard":
        # Keep the goods most islands buy; drop conflicts and doubles first.
        hand = view["hand"]

        def kept_value(a):
            kept = list(hand)
            for card in a["cards"]:
                kept.remove(card)
            return len(set(kept)) - 0.5 * kept.count("conflict")

        return max(legal, key=kept_value)
    return legal[0]
