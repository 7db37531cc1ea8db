"""The bot author's kit on the site: /download/ serves this version's wheel and sdist from
KIT_DIR (a 404 page says how to build a missing one), and the bot guide's commands name the
site at the address its reader came to."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from markupsafe import Markup

from ladder import create_app
from ladder.web import markdown
from ladder.web.pages import kit

GUIDE = Path(__file__).resolve().parents[4] / "bots" / "README.md"


def kit_dir(config) -> Path:
    folder = Path(config["KIT_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_the_wheel_and_the_sdist_are_served_as_downloads(client, config):
    folder = kit_dir(config)
    (folder / kit.wheel_name()).write_bytes(b"PK\x03\x04 a wheel")
    (folder / kit.sdist_name()).write_bytes(b"\x1f\x8b an sdist")
    with client.get(f"/download/{kit.wheel_name()}") as wheel:
        assert wheel.status_code == 200 and wheel.get_data() == b"PK\x03\x04 a wheel"
        assert wheel.mimetype == "application/zip"
        disposition = wheel.headers["Content-Disposition"]
        assert disposition == f"attachment; filename={kit.wheel_name()}"
    with client.get(f"/download/{kit.sdist_name()}") as sdist:
        assert sdist.status_code == 200 and sdist.get_data() == b"\x1f\x8b an sdist"
        # The file itself is gzip: no Content-Encoding, or a client would unpack it on the way.
        assert sdist.mimetype == "application/gzip" and "Content-Encoding" not in sdist.headers


def test_a_kit_not_built_yet_is_a_404_page_that_says_how_to_build_it(client):
    response = client.get(f"/download/{kit.wheel_name()}")
    assert response.status_code == 404
    page = unescape(response.get_data(as_text=True))
    assert "The kit is not built here yet" in page and kit.wheel_name() in page
    assert "make kit" in page and "deploy/build-kit.sh KIT_DIR" in page
    assert 'href="/docs/bots#install-the-kit"' in page


def test_only_this_versions_kit_files_are_served(client, config):
    folder = kit_dir(config)
    (folder / "tradewinds-0.0.1-py3-none-any.whl").write_bytes(b"an old wheel")
    (folder / "notes.txt").write_text("not for download")
    for name in ("tradewinds-0.0.1-py3-none-any.whl", "notes.txt", "..%2Fsecret_key"):
        response = client.get(f"/download/{name}")
        assert response.status_code == 404, name
        assert "not built here" not in response.get_data(as_text=True)  # the plain 404


def guide(client, **request) -> str:
    response = client.get("/docs/bots", **request)
    assert response.status_code == 200
    return unescape(response.get_data(as_text=True))


def test_the_guide_tells_pip_install_from_this_sites_own_address(client):
    page = guide(client, base_url="https://harbour.example.net")
    wheel = f"https://harbour.example.net/download/{kit.wheel_name()}"
    assert f"pip install {wheel}" in page
    assert f"https://harbour.example.net/download/{kit.sdist_name()}" in page
    assert "ladder play manila bot.py manila/greedy manila/random" in page
    assert "curl -o bot.py https://harbour.example.net/games/manila/starter/bot.py" in page
    assert "--server https://harbour.example.net" in page
    assert "-F file=@bot.py https://harbour.example.net/api/v1/versions" in page
    assert markdown.EXAMPLE_SITE not in page and "127.0.0.1:8000" not in page


def test_behind_a_proxy_the_guide_names_the_address_people_use(config):
    app = create_app({**config, "PROXY_HOPS": 1})
    headers = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "ladder.example.com"}
    page = guide(app.test_client(), headers=headers, base_url="http://127.0.0.1:8000")
    assert f"pip install https://ladder.example.com/download/{kit.wheel_name()}" in page
    assert "127.0.0.1" not in page


def test_the_guides_file_names_are_this_versions_kit():
    # The guide names the files literally (it reads well in the repository too): a version
    # bump must bump them, or the site's link would be a 404.
    text = GUIDE.read_text(encoding="utf-8")
    assert set(re.findall(r"tradewinds-[^\s`/]+?(?:\.whl|\.tar\.gz)", text)) == {
        kit.wheel_name(),
        kit.sdist_name(),
    }
    assert "127.0.0.1:8000" not in text


def test_the_site_address_is_escaped_as_text():
    html = Markup(f"<code>pip install {markdown.EXAMPLE_SITE}/download/x.whl</code>")
    out = markdown.at_site(html, 'http://evil"<script>/')
    assert out == "<code>pip install http://evil&#34;&lt;script&gt;/download/x.whl</code>"
