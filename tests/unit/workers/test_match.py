"""The match runner's pure parts: ranks after faults, refusing bad arguments."""

from __future__ import annotations

import pytest

import engine
from workers.match import fault_ranks, run_match


@pytest.mark.parametrize(
    ("engine_ranks", "statuses", "expected"),
    [
        ([1, 2, 3], ["ok", "ok", "ok"], [1, 2, 3]),
        ([1, 2, 3], ["timeout", "ok", "ok"], [3, 1, 2]),
        ([1, 1, 3, 4], ["ok", "ok", "crash", "ok"], [1, 1, 4, 3]),
        ([4, 3, 2, 1], ["ok", "illegal", "ok", "killed"], [2, 3, 1, 3]),
        ([2, 1, 3], ["crash", "crash", "crash"], [1, 1, 1]),
        ([3, 2, 1], ["invalid", "ok", "ok"], [3, 2, 1]),
    ],
)
def test_faulted_seats_rank_below_every_ok_seat_and_share_a_rank(engine_ranks, statuses, expected):
    assert fault_ranks(engine_ranks, statuses) == expected


@pytest.mark.skipif(not engine.game_names(), reason="no game registered")
def test_run_match_refuses_bad_arguments_before_starting_any_bot():
    game = engine.game_names()[0]
    spec = engine.get_game(game)
    with pytest.raises(ValueError, match="unknown game"):
        run_match("chess", ["manila/random"] * 3, seed=1)
    with pytest.raises(ValueError, match="players"):
        run_match(game, [f"{game}/random"] * (spec.max_players + 1), seed=1)
    with pytest.raises(ValueError, match="no bot"):
        run_match(game, ["nowhere/bot"] * spec.min_players, seed=1)
