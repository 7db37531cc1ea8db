"""The fallback policy that plays a faulted seat out."""

from __future__ import annotations

import pytest

from workers.fallback import Fallback


def test_fallback_is_deterministic_per_seed():
    legal = [{"n": i} for i in range(10)]
    picks = [Fallback(7).choose(legal) for _ in range(3)]
    assert picks[0] == picks[1] == picks[2]
    run_a = Fallback(7)
    run_b = Fallback(8)
    seq_a = [run_a.choose(legal) for _ in range(20)]
    seq_b = [run_b.choose(legal) for _ in range(20)]
    assert seq_a != seq_b
    assert all(choice in legal for choice in seq_a)
    with pytest.raises(ValueError, match="no legal action"):
        Fallback(1).choose([])
