"""The floor for bench/web.py: a Flask app answering every GET with the same 2 KB page.

Served by the same gunicorn settings as the site, it measures what gunicorn, Flask
and the loopback cost on this machine, so a page's speed can be read as a ratio to it.
"""

from __future__ import annotations

from flask import Flask

# About 2 KB of HTML, made once: the floor does no work per request beyond answering.
PAGE = (
    "<!doctype html><html><head><title>floor</title></head><body>"
    + "<p>" + "tradewinds " * 180 + "</p></body></html>\n"
)  # fmt: skip

app = Flask(__name__)


@app.get("/", defaults={"path": ""})
@app.get("/<path:path>")
def page(path: str) -> str:
    return PAGE
