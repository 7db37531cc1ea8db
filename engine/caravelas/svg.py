"""The house map drawn as SVG, and the static data the replay viewer draws it with.

SVG text lets the data be looked at and checked; `drawing` is the game's
`Game.drawing` hook. Pure functions of the house data (`data.py`): no files,
no dependencies. Every circle is a `<g id="circle-<id>">` holding its circle,
its name and a `<title>`.
"""

from __future__ import annotations

from engine.caravelas import data


def escape(text: str) -> str:
    """`text` safe inside SVG markup. Written here: `xml.sax.saxutils` would pull in
    urllib, http and ssl, which every bot's sandbox preloads with the engine."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


SCALE = 9.0  # pixels per degree
MARGIN = 40.0
FILL = {
    data.LISBOA: "#c0392b",
    data.CALECUTE: "#c0392b",
    data.CAPE: "#2c3e50",
    data.PLACE: "#f5e6b3",
    data.SEA: "#ffffff",
    data.DASHED: "#d6eaf8",
}
CUBE_FILL = {
    "red": "#d62728",
    "brown": "#8c564b",
    "yellow": "#f1c40f",
    "blue": "#1f77b4",
    "white": "#fdfefe",
    "pink": "#f78fb3",
    "black": "#111111",
    "green": "#2ca02c",
}


def _bounds() -> tuple[float, float, float, float]:
    lons = [c[2] for c in data.CIRCLES]
    lats = [c[3] for c in data.CIRCLES]
    return min(lons), max(lons), min(lats), max(lats)


def _centres() -> dict[str, tuple[float, float]]:
    """Each circle's centre in the map's pixels, north up."""
    west, _east, _south, north = _bounds()
    return {
        cid: (MARGIN + (lon - west) * SCALE, MARGIN + (north - lat) * SCALE)
        for cid, _name, lon, lat, _kind in data.CIRCLES
    }


def drawing() -> dict:
    """The static data the replay viewer draws Caravelas with (`Game.drawing`).

    The map as SVG, each circle's centre in its pixels (to 0.1), each circle's
    name, the cube colours and the place holding each colour's cubes.
    """
    return {
        "svg": render_map(),
        "where": {cid: [round(x, 1), round(y, 1)] for cid, (x, y) in _centres().items()},
        "names": {cid: name for cid, name, _lon, _lat, _kind in data.CIRCLES},
        "cube_fill": dict(CUBE_FILL),
        "cube_places": dict(data.CUBE_PLACES),
    }


def render_map() -> str:
    """The whole house map as one SVG document (a string)."""
    west, east, south, north = _bounds()
    width = (east - west) * SCALE + 2 * MARGIN
    height = (north - south) * SCALE + 2 * MARGIN
    where = _centres()
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}"'
        f' viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="9">',
        '<defs><marker id="arrowhead" markerWidth="8" markerHeight="8" refX="7" refY="4"'
        ' orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="#2471a3"/></marker></defs>',
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="#aed6f1"/>',
    ]
    for a, b in data.LINES:
        (x1, y1), (x2, y2) = where[a], where[b]
        out.append(
            f'<line class="line" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"'
            ' stroke="#ffffff" stroke-width="2"/>'
        )
    for start, end, skipped in data.ARROWS:
        points = " ".join(f"{where[c][0]:.1f},{where[c][1]:.1f}" for c in (start, *skipped, end))
        out.append(
            f'<polyline class="arrow" points="{points}" fill="none" stroke="#2471a3"'
            ' stroke-width="1.5" marker-end="url(#arrowhead)"/>'
        )
    cube_at = {place: colour for colour, place in data.CUBE_PLACES.items()}
    for cid, name, _lon, _lat, kind in data.CIRCLES:
        x, y = where[cid]
        dash = ' stroke-dasharray="3,2"' if kind == data.DASHED else ""
        title = name
        if cid in data.DISCOVERIES:
            colour, worth = data.DISCOVERIES[cid]
            title += f" ({colour} discovery, {worth} points)"
        out.append(f'<g id="circle-{cid}" class="{kind}"><title>{escape(title)}</title>')
        out.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="7" fill="{FILL[kind]}" stroke="#1b4f72"{dash}/>'
        )
        if cid in cube_at:
            out.append(
                f'<rect class="cubes" x="{x + 5:.1f}" y="{y - 12:.1f}" width="6" height="6"'
                f' fill="{CUBE_FILL[cube_at[cid]]}" stroke="#000000"/>'
            )
        out.append(f'<text x="{x + 9:.1f}" y="{y + 3:.1f}">{escape(name)}</text></g>')
    out.append("</svg>")
    return "\n".join(out)
