"""Bot limits: validated once, and the three the wire protocol tells a bot."""

from __future__ import annotations

import pytest

from workers.limits import Limits


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"move_ms": 0}, "move_ms must be a positive integer"),
        ({"bank_ms": -5}, "bank_ms must be a positive integer"),
        ({"memory_mb": 1.5}, "memory_mb must be a positive integer"),
        ({"cpu_s": True}, "cpu_s must be a positive integer"),
        ({"move_sec": 3}, "unknown limit"),
    ],
)
def test_bad_limits_are_refused(values, message):
    with pytest.raises(ValueError, match=message):
        Limits.from_dict(values)


def test_limits_told_to_the_bot_are_the_three_wire_ones():
    assert Limits.from_dict({"move_ms": 7}).wire() == {
        "move_ms": 7,
        "bank_ms": 10_000,
        "init_ms": 5000,
    }
