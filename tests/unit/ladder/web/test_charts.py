"""Chart data: round histogram bins and the rating series the bot page draws."""

from __future__ import annotations

import itertools
import math

import pytest

from ladder.web.boards.charts import bin_width, histogram, rating_series


@pytest.mark.parametrize(
    ("low", "high", "max_bins", "width"),
    [
        (0.0, 25.0, 12, 5.0),  # 1 and 2 give 26 and 13 bins; 5 gives 6
        (-0.74, 20.99, 12, 2.0),  # -1..20 in 2s is 12 bins
        (3.0, 3.0, 12, 1.0),  # one value: one bin of width 1
        (0.0, 0.3, 12, 0.05),  # small spreads get small widths
        (0.0, 1000.0, 12, 100.0),
        (10.0, 11.0, 1, 2.0),  # one bin must hold both ends: 10..12
    ],
)
def test_bin_width_is_round_and_within_the_bin_limit(low, high, max_bins, width):
    got = bin_width(low, high, max_bins)
    assert got == pytest.approx(width)
    assert math.floor(high / got) - math.floor(low / got) + 1 <= max_bins


@pytest.mark.parametrize(
    ("low", "high", "max_bins", "message"),
    [
        (2.0, 1.0, 12, "bad range"),
        (0.0, math.inf, 12, "bad range"),
        (math.nan, 1.0, 12, "bad range"),
        (0.0, 1.0, 0, "max_bins must be at least 1"),
    ],
)
def test_bin_width_refuses_bad_input(low, high, max_bins, message):
    with pytest.raises(ValueError, match=message):
        bin_width(low, high, max_bins)


def test_histogram_counts_every_value_once_with_empty_bins_kept():
    values = [-0.74, 20.3, 20.99, 7.0, 7.5]
    bins = histogram(values)
    assert sum(b["count"] for b in bins) == len(values)
    assert bins[0]["lo"] <= min(values) and bins[-1]["hi"] > max(values)
    assert all(a["hi"] == pytest.approx(b["lo"]) for a, b in itertools.pairwise(bins))
    assert any(b["count"] == 0 for b in bins)
    assert len(bins) <= 12


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([], []),
        ([4.2], [{"lo": 4.0, "hi": 5.0, "count": 1}]),
        (
            [0.0, 5.0, 25.0],
            [
                {"lo": 5.0 * i, "hi": 5.0 * (i + 1), "count": c}
                for i, c in enumerate([1, 1, 0, 0, 0, 1])
            ],
        ),
    ],
)
def test_histogram_bins(values, expected):
    assert histogram(values) == expected


def test_rating_series_turns_rows_into_columns_oldest_first():
    history = [
        {"match_id": 5, "version": 1, "mu": 25.0, "sigma": 6.2, "skill": 6.4, "at": None},
        {"match_id": 9, "version": 2, "mu": 27.0, "sigma": 5.0, "skill": 12.0, "at": None},
    ]
    assert rating_series(history) == {
        "match": [5, 9],
        "version": [1, 2],
        "skill": [6.4, 12.0],
        "mu": [25.0, 27.0],
    }
