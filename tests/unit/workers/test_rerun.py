"""The pure parts of `workers.rerun`: where a seat decided, and where it faulted."""

from __future__ import annotations

import random

import pytest

import engine
from workers.rerun import check_record, recorded_fault, seat_decisions


def played(game: str = "manila", players: int = 3, seed: int = 5) -> dict:
    state = engine.get_game(game).new_game(players, seed=seed)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    return state.record()


@pytest.mark.parametrize("game", engine.game_names())
def test_seat_decisions_are_exactly_that_seats_turns_with_their_views(game):
    record = played(game, engine.get_game(game).min_players)
    for seat in range(record["players"]):
        steps = [i for i, (who, _) in enumerate(record["actions"]) if who == seat]
        seen = []
        for i, state in seat_decisions(record, seat):  # one live state, moved on after each
            assert state.current_player() == seat
            assert record["actions"][i][1] in state.legal_actions()
            seen.append(i)
        assert seen == steps
        later = steps[len(steps) // 2]
        assert [i for i, _ in seat_decisions(record, seat, later)] == [
            i for i in steps if i >= later
        ]


def test_a_record_whose_seats_do_not_follow_the_game_is_refused():
    record = played()
    seat, action = record["actions"][0]
    record["actions"][0] = [(seat + 1) % 3, action]
    with pytest.raises(ValueError, match="recorded for seat"):
        list(seat_decisions(record, 0))


def test_the_recorded_fault_is_the_seats_first_move_without_a_decision_time():
    record = played()
    steps = [i for i, (who, _) in enumerate(record["actions"]) if who == 1]
    times = [1.0] * len(record["actions"])
    for i in steps[4:]:
        times[i] = None  # played by the fallback from its fifth decision on
    record.update(statuses=["ok", "timeout", "ok"], errors=[None, "too slow", None],
                  decision_ms=times)  # fmt: skip
    assert recorded_fault(record, 1) == (steps[4], "timeout", "too slow")
    assert recorded_fault(record, 0) is None
    assert recorded_fault(played(), 1) is None  # a local record without statuses


@pytest.mark.parametrize(
    ("change", "seat", "step", "message"),
    [
        ({}, 3, 0, "--seat must be 0 to 2"),
        ({}, -1, 0, "--seat must be"),
        ({}, 0, 10**6, "--from-step must be"),
        ({"actions": None}, 0, 0, "no 'actions'"),
    ],
)
def test_check_record_says_what_is_wrong(change, seat, step, message):
    record = {**played(), **change}
    if change.get("actions", 1) is None:
        del record["actions"]
    with pytest.raises(ValueError, match=message):
        check_record(record, seat, step)


def test_the_rerun_bot_gets_the_recorded_info_and_limits_unless_overridden():
    from workers.info import match_infos, seat
    from workers.limits import Limits
    from workers.rerun import seat_info

    record = played()
    who = [seat("a", "alice", 1), seat("random", "demo", 4), seat("b", "bob", 2)]
    limits = Limits(move_ms=400, bank_ms=3000, init_ms=2000)
    infos = match_infos("manila", 3, record["options"], limits, record["seed"], who)
    record["bot_infos"] = infos
    info, used = seat_info(record, 1)
    assert info == infos[1]  # unchanged
    assert used.wire() == limits.wire() and used.memory_mb == Limits().memory_mb
    info, used = seat_info(record, 1, {"move_ms": 900})
    assert used.move_ms == 900 and used.bank_ms == 3000
    assert info == {**infos[1], "limits": {"move_ms": 900, "bank_ms": 3000, "init_ms": 2000}}
    record["bot_limits"] = Limits(memory_mb=256, move_ms=1).as_dict()  # info's times win
    info, used = seat_info(record, 1)
    assert used.memory_mb == 256 and used.wire() == limits.wire() and info == infos[1]
    with pytest.raises(ValueError, match="no info for seat 2"):
        seat_info({**record, "bot_infos": infos[:2]}, 2)
