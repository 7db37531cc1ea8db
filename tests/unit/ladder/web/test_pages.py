"""Pages a first-time visitor reads: rules as HTML, the bot guide, titles, icon, short addresses."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest

import engine
from ladder.web import markdown
from tests.unit.ladder.conftest import csrf_token, login

ROOT = Path(__file__).resolve().parents[4]
REAL_GAMES = ("manila", "meuterer", "caravelas")


def title(page: str) -> str:
    return re.search(r"<title>(.*?)</title>", page, re.S).group(1)


# -- Markdown, rendered and sanitized ----------------------------------------
def test_markdown_drops_scripts_handlers_and_dangerous_links():
    html = markdown.render(
        "Hi <script>alert('x')</script> there\n\n"
        '<img src="/a.png" onerror="alert(1)">\n\n'
        '<a href="javascript:alert(2)">raw</a> <a href="/ok" onclick="steal()">ok</a>\n'
    )
    assert "<script" not in html and "alert('x')" not in html
    assert "onerror" not in html and "onclick" not in html and "javascript:" not in html
    assert '<img src="/a.png">' in html and '<a href="/ok"' in html
    assert "Hi" in html and "there" in html and ">raw</a>" in html


def test_markdown_tables_render_as_tables_in_a_scroll_box():
    html = markdown.render("| place | points |\n|---|--:|\n| Goa | 6 |\n")
    assert '<div class="table-scroll"><table>' in html and "</table></div>" in html
    assert "<th>place</th>" in html and '<td class="n">6</td>' in html
    assert "style=" not in html  # the site's CSP refuses inline styles


def test_markdown_headings_shift_under_the_page_heading_and_get_anchors():
    html = markdown.render("# Manila — rules\n\n## A voyage, step by step\n", shift=1)
    assert '<h2 id="manila-rules">Manila — rules</h2>' in html
    assert '<h3 id="a-voyage-step-by-step">' in html and "<h1" not in html


def test_markdown_keeps_folds_and_unlinks_repository_paths():
    html = markdown.render(
        '<details><summary>The view</summary>\n\n```json\n{"a": 1}\n```\n\n</details>\n\n'
        "See [the digest](../shared/rules/manila.md) and [the site](https://example.org/).\n"
    )
    assert "<details><summary>The view</summary>" in html and "<pre><code>" in html
    # A path into a repository leads nowhere from a web page: its words stay, the link goes.
    assert "the digest" in html and "../shared" not in html
    assert 'href="https://example.org/"' in html


# -- game pages ---------------------------------------------------------------
@pytest.mark.parametrize("game", REAL_GAMES)
def test_game_page_shows_its_rules_as_html(client, game):
    page = client.get(f"/games/{game}").get_data(as_text=True)
    rules = page[page.index('<section id="rules"') :]
    assert "<table>" in rules and "<h2 id=" in rules and "<h3 id=" in rules
    assert "| --- |" not in rules and "|---|" not in rules  # no Markdown left as text
    assert "<code>legal_actions()</code>" in page or "<code>view(seat)</code>" in page
    assert "shared/" not in page
    # The example view is folded away; its summary says what is inside.
    assert re.search(r'<details class="fold"><summary><code>view</code>: what seat \d', page)
    assert title(page) == f"{game.capitalize()} · Tradewinds"


@pytest.mark.parametrize("game", REAL_GAMES)
def test_rules_name_no_file_outside_the_repository(game):
    """Every file a RULES.md names exists in the repository: from the root, or by its bare
    name beside the RULES.md or among the game's tests."""
    path = ROOT / "engine" / game / "RULES.md"
    folders = (path.parent, ROOT / "tests" / "unit" / "engine" / game, ROOT)
    text = path.read_text(encoding="utf-8")
    spans = re.findall(r"`([^`\n]+)`", text)
    named = [s for s in spans if re.fullmatch(r"(?:[\w<>.-]+/)*[\w<>-]+\.(?:md|py|txt|json)", s)]
    assert named, "expected RULES.md to name its modules"
    for name in named:
        if "<" in name:  # a pattern such as engine/<game>/RULES.md
            continue
        assert any((folder / name).exists() for folder in folders), name
    assert "../" not in text and "shared/" not in text


# -- the bot guide, shortcuts, icon, titles -----------------------------------
def test_bot_guide_page_renders_the_repositorys_guide(client):
    page = client.get("/docs/bots").get_data(as_text=True)
    assert '<h1 id="writing-a-tradewinds-bot">Writing a Tradewinds bot</h1>' in page
    assert "def act(view: dict, legal: list[dict]) -&gt; dict:" in page
    curl = re.search(r'curl -H "Authorization: Bearer \$TOKEN" -F game=manila[^<]*', unescape(page))
    assert curl and "-F name=my-bot" in curl.group(0) and "-F file=@bot.py" in curl.group(0)
    assert "/api/v1/versions" in curl.group(0)
    assert title(page) == "Writing a bot · Tradewinds"
    for game in REAL_GAMES:
        assert f'href="/games/{game}"' in page


def test_bot_guide_is_linked_from_home_and_upload_pages(client, alice):
    assert 'href="/docs/bots"' in client.get("/").get_data(as_text=True).split("</nav>", 1)[1]
    login(client)
    upload = client.get("/bots/upload").get_data(as_text=True).split("</nav>", 1)[1]
    assert 'href="/docs/bots"' in upload


def test_upload_shortcut_redirects_to_the_upload_page(client):
    response = client.get("/upload")
    assert response.status_code == 301 and response.headers["Location"] == "/bots/upload"


def test_pages_name_the_favicon_and_the_old_address_finds_it(client):
    page = client.get("/docs/bots").get_data(as_text=True)
    assert '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">' in page
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    with client.get(response.headers["Location"]) as icon:
        assert icon.status_code == 200 and icon.mimetype == "image/svg+xml"
        assert b"<svg" in icon.get_data()


def test_titles_name_the_site_once(client):
    assert title(client.get("/").get_data(as_text=True)) == "Tradewinds"
    for path in ("/matches", "/leaderboard/toyrace", "/login", "/games/toyrace", "/nowhere"):
        found = title(client.get(path).get_data(as_text=True))
        assert found.count("Tradewinds") == 1 and found.endswith(" · Tradewinds"), (path, found)


def test_token_form_is_blank_after_a_token_is_made(client, alice):
    login(client)
    token = csrf_token(client, "/account/tokens")
    page = client.post("/account/tokens", data={"name": "laptop", "csrf_token": token})
    text = page.get_data(as_text=True)
    plain = re.search(r"shown only now\): <code>([^<]+)</code>", text).group(1)
    field = re.search(r'<input[^>]*name="name"[^>]*>', text).group(0)
    assert 'value=""' in field or "value=" not in field, field
    assert "laptop" in text  # listed among the tokens
    # The command-line example carries the new token and this site's upload address.
    assert f'Authorization: Bearer {plain}"' in unescape(text)
    assert "http://localhost/api/v1/versions" in text


def test_a_refused_token_name_stays_in_the_form(client, alice):
    login(client)
    token = csrf_token(client, "/account/tokens")
    long_name = "x" * 61
    page = client.post("/account/tokens", data={"name": long_name, "csrf_token": token})
    assert page.status_code == 400 and f'value="{long_name}"' in page.get_data(as_text=True)


def test_every_game_registered_has_rules_or_says_so(client):
    for name in engine.game_names():
        page = client.get(f"/games/{name}").get_data(as_text=True)
        assert '<section id="rules"' in page, name
