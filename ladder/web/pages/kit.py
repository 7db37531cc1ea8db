"""The names of the bot author's kit files: this very package, as deploy/build-kit.sh builds it.

The site offers only the kit of the version it runs, so `pip install` from its download
link gets the same engine, SDK and sandbox the site's workers use.
"""

from __future__ import annotations

from importlib.metadata import version

DISTRIBUTION = "tradewinds"


def wheel_name() -> str:
    """The wheel's file name (pure Python: one wheel fits every platform)."""
    return f"{DISTRIBUTION}-{version(DISTRIBUTION)}-py3-none-any.whl"


def sdist_name() -> str:
    return f"{DISTRIBUTION}-{version(DISTRIBUTION)}.tar.gz"


def files() -> dict[str, str]:
    """Each kit file's name and the media type it is served as."""
    return {wheel_name(): "application/zip", sdist_name(): "application/gzip"}
