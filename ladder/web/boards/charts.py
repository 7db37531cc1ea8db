"""Data for the site's charts, shaped for the page's JSON island.

The pages draw charts with uPlot when `make charts` has put it under
static/vendor/; without it they still show the same numbers as tables.
"""

from __future__ import annotations

import math
from pathlib import Path

from sqlalchemy import and_, select
from sqlalchemy.orm import Session

from ladder.models import BotVersion, Rating, VersionState

STATIC = Path(__file__).resolve().parents[2] / "static"
CHART_LIBRARY = "vendor/uplot/uPlot.iife.min.js"
CHART_STYLES = "vendor/uplot/uPlot.min.css"
MAX_BINS = 12


def library_ready() -> bool:
    """Whether the charting library was installed (pages then load it)."""
    return (STATIC / CHART_LIBRARY).is_file()


def bin_width(low: float, high: float, max_bins: int = MAX_BINS) -> float:
    """The smallest round width (1, 2 or 5 times a power of ten) giving at most `max_bins` bins."""
    if max_bins < 1:
        raise ValueError(f"max_bins must be at least 1, not {max_bins}")
    if not (math.isfinite(low) and math.isfinite(high)) or high < low:
        raise ValueError(f"bad range {low!r}..{high!r}")
    spread = high - low
    if spread == 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(spread / max_bins))
    for step in (1, 2, 5, 10, 20):
        width = step * power
        if math.floor(high / width) - math.floor(low / width) + 1 <= max_bins:
            return width
    return 50 * power  # unreachable for max_bins >= 1; kept as a safe bound


def histogram(values: list[float], max_bins: int = MAX_BINS) -> list[dict]:
    """Counts of `values` in round-width bins [lo, hi), lowest first, empty bins included."""
    if not values:
        return []
    low, high = min(values), max(values)
    width = bin_width(low, high, max_bins)
    first = math.floor(low / width)
    counts = [0] * (math.floor(high / width) - first + 1)
    for value in values:
        counts[math.floor(value / width) - first] += 1
    return [
        {"lo": round((first + i) * width, 6), "hi": round((first + i + 1) * width, 6), "count": n}
        for i, n in enumerate(counts)
    ]


def skill_distribution(session: Session, game: str) -> dict:
    """How the skill (μ − 3σ) of every active version of `game` is spread, as histogram bins."""
    skills = session.scalars(
        select(Rating.skill)
        .join(BotVersion, Rating.version_id == BotVersion.id)
        .where(and_(Rating.game == game, BotVersion.state == VersionState.ACTIVE))
    ).all()
    return {"game": game, "bots": len(skills), "bins": histogram([float(s) for s in skills])}


def rating_series(history: list[dict], curves: dict[int, list[dict]] | None = None) -> dict:
    """The bot page's rating history as parallel columns, the shape uPlot draws; with
    `curves` (re-solved points by version number), `resolved` and `resolved_day` too."""
    series = {
        "match": [h["match_id"] for h in history],
        "version": [h["version"] for h in history],
        "skill": [h["skill"] for h in history],
        "mu": [h["mu"] for h in history],
    }
    if curves:
        series.update(resolved_column(history, curves))
    return series


def resolved_column(history: list[dict], curves: dict[int, list[dict]]) -> dict:
    """The re-solved curve on the rating history's axis (rated matches): each day's point
    of a version at that version's last match recorded on or before that day, None
    between them. A day before the history shown (it keeps the newest matches) has no
    place and is left out."""
    skill: list[float | None] = [None] * len(history)
    day: list[str | None] = [None] * len(history)
    for number, points in curves.items():
        places = [(h["at"] or "")[:10] for h in history]
        mine = [i for i, h in enumerate(history) if h["version"] == number]
        for point in points:  # oldest first: a later day at the same match wins
            before = [i for i in mine if places[i] <= point["day"]]
            if before:
                skill[before[-1]], day[before[-1]] = point["skill"], point["day"]
    return {"resolved": skill, "resolved_day": day}


def sparkline_points(history: list[dict], width: int = 600, height: int = 120) -> str:
    """The SVG polyline of skill after each rated match, oldest on the left, drawn on the
    server for pages without scripts (5 px of margin above and below, skill rising up)."""
    if not history:
        return ""
    skills = [h["skill"] for h in history]
    low, high = min(skills), max(skills)
    span = (high - low) or 1
    step = width / max(len(skills) - 1, 1)
    inner = height - 10
    return " ".join(
        f"{round(i * step, 1)},{round(height - 5 - (skill - low) * inner / span, 1)}"
        for i, skill in enumerate(skills)
    )


def llr_chart(history: list[dict], bounds: list[float], width: int = 600, height: int = 160):
    """The test page's chart, drawn on the server: the LLR after each set as a polyline
    between the two bounds (the band the test runs in), set 0 at LLR 0 on the left.

    Returns the points, the y of each bound and of zero, and the scale's ends."""
    lower, upper = bounds
    values = [0.0, *(h["llr"] for h in history)]
    low, high = min(lower, *values), max(upper, *values)
    span = (high - low) or 1.0
    inner = height - 10

    def y(value: float) -> float:
        return round(height - 5 - (value - low) * inner / span, 1)

    step = width / max(len(values) - 1, 1)
    points = " ".join(f"{round(i * step, 1)},{y(v)}" for i, v in enumerate(values))
    return {
        "points": points,
        "upper": y(upper),
        "lower": y(lower),
        "zero": y(0.0),
        "width": width,
        "height": height,
    }
