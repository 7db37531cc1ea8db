"""Markdown documents shown as pages: the games' RULES.md and the bot guide.

Rendered by markdown-it-py (CommonMark plus tables), then sanitized by nh3:
whatever HTML a document holds, only harmless tags and attributes reach the
page (no scripts, no event handlers, no styles, which the CSP would refuse
anyway). A document is read and rendered once per process.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import nh3
from markdown_it import MarkdownIt
from markupsafe import Markup

# Raw HTML is parsed so a document may fold a long part away in <details>;
# the sanitizer below decides what of it survives.
_PARSER = MarkdownIt("commonmark", {"html": True}).enable("table")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# Headings keep an id (their words, hyphenated) so a page can link to a part.
_ATTRIBUTES = {**nh3.ALLOWED_ATTRIBUTES, "details": {"open"}, **{h: {"id"} for h in _HEADINGS}}
_CLASSES = {"th": {"n"}, "td": {"n"}}  # right-aligned (numeric) columns, as the site's tables
_CELLS = ("th_open", "td_open")
# Links that lead somewhere from a web page; a path into the repository does not.
_FOLLOWABLE = ("https://", "http://", "mailto:", "/", "#")
# The address documents use for the site (bots/README.md's commands); a page shows the
# address its reader came to instead (`at_site`).
EXAMPLE_SITE = "https://ladder.example.org"


def _keep_link(tag: str, attribute: str, value: str) -> str | None:
    """Drop an href that is a path into the repository (`../x.md`): it leads nowhere on the site."""
    if tag == "a" and attribute == "href" and not value.startswith(_FOLLOWABLE):
        return None
    return value


def slug(words: str) -> str:
    """A heading's anchor: its words in lower case, joined by hyphens ("Upload" -> "upload")."""
    return "-".join(re.findall(r"\w+", words.lower()))


def render(text: str, shift: int = 0) -> Markup:
    """`text` as safe HTML, headings `shift` levels lower (the page's own <h1> stays alone)."""
    tokens = _PARSER.parse(text)
    for index, token in enumerate(tokens):
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + shift, 6)}"
            if token.type == "heading_open":
                token.attrSet("id", slug(tokens[index + 1].content))
        elif token.type in _CELLS and token.attrGet("style") == "text-align:right":
            token.attrs = {"class": "n"}
    html = nh3.clean(
        _PARSER.renderer.render(tokens, _PARSER.options, {}),
        attributes=_ATTRIBUTES,
        allowed_classes=_CLASSES,
        attribute_filter=_keep_link,
    )
    # Wide tables scroll inside their own box on a phone, never the page.
    html = html.replace("<table>", '<div class="table-scroll"><table>')
    return Markup(html.replace("</table>", "</table></div>"))


def at_site(html: Markup, url_root: str) -> Markup:
    """`html` with the example site's address replaced by `url_root`: a request's, which
    comes from its Host header, so it goes in as text (Markup.replace escapes it)."""
    return html.replace(EXAMPLE_SITE, url_root.rstrip("/"))


@functools.lru_cache(maxsize=32)
def render_file(path: Path, shift: int = 0) -> Markup | None:
    """The Markdown file at `path` rendered (once per process), or None if there is none."""
    if not path.is_file():
        return None
    return render(path.read_text(encoding="utf-8"), shift)
