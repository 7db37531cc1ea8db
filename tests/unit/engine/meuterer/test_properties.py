"""Properties over random games: the 36 cards are never lost, copied or invented."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import get_game
from engine.meuterer.data import DECK


def _all_cards(state):
    """Deck, hands (reserved cards included), the face-up table and the discards."""
    hands = [card for hand in state.hands for card in hand]
    table = [card for _seat, card, _island, _stage in state.table]
    return Counter(state.deck + hands + table + state.discards)


@settings(max_examples=25, deadline=None)
@given(
    players=st.sampled_from([3, 4]),
    seed=st.integers(0, 2**32 - 1),
    chooser=st.randoms(use_true_random=False),
)
def test_all_36_cards_are_always_somewhere(players, seed, chooser):
    state = get_game("meuterer").new_game(players, seed=seed)
    assert _all_cards(state) == DECK
    step = 0
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
        assert _all_cards(state) == DECK
        for seat in range(players):
            assert len(state.hands[seat]) <= 8
        step += 1
        if step % 17 == 0:
            # A resampled world keeps every card too, and looks the same to its seat.
            seat = step % players
            variant = state.hidden_variant(seat, seed + step)
            assert _all_cards(variant) == DECK
            assert variant.view(seat) == state.view(seat)
    assert sum(1 for e in state.log if e["event"] == "round") == {3: 9, 4: 8}[players]
