"""deploy/nginx/tradewinds.conf: accepted by `nginx -t`, and in front of the real app it
passes what PROXY_HOPS=1 trusts (client address, scheme, host) and nothing a client made up.

The site goes into a temporary nginx.conf with its certificate (made here), logs,
pid and temporary files all in a temporary folder; `-p` and `-e` keep nginx from
touching its compiled-in paths. `nginx -t` binds no port; the live tests listen
on free ports of 127.0.0.1 only.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path

import pytest
from flask import jsonify, request
from werkzeug.serving import make_server

from ladder import create_app
from tests.unit.deploy.reading import ROOT, SITE, install_paths, tool

HOST = "ladder.example.org"


def nginx_folder(tmp_path: Path, upstream: str, ports: tuple[int, int] | None = None) -> Path:
    """The site under a temporary nginx.conf, everything nginx writes inside the folder.

    With `ports` (http, https) it listens on 127.0.0.1 there instead of 80 and 443.
    """
    base = tmp_path / "nginx"
    base.mkdir()
    make_certificate = [
        tool("openssl", "openssl"), "req", "-x509", "-newkey", "ec",
        "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
        "-subj", f"/CN={HOST}",
        "-keyout", str(base / "privkey.pem"), "-out", str(base / "fullchain.pem"),
    ]  # fmt: skip
    subprocess.run(make_certificate, capture_output=True, check=True)
    site = install_paths(SITE.read_text())
    site = site.replace(f"/etc/letsencrypt/live/{HOST}", str(base))
    site = site.replace("/var/log/nginx", str(base)).replace("/var/www/html", str(base / "www"))
    site = re.sub(r"server 127\.0\.0\.1:8000\b", f"server {upstream}", site)
    if ports:
        site = re.sub(r"\n\s*listen \[::\]:\d+[^;]*;", "", site)
        site = site.replace("listen 80;", f"listen 127.0.0.1:{ports[0]};")
        site = site.replace("listen 443 ssl;", f"listen 127.0.0.1:{ports[1]} ssl;")
    for written_by_nginx in ("/var/", "/run/", "/etc/letsencrypt"):
        assert written_by_nginx not in site, f"{written_by_nginx} left in the site"
    (base / "tradewinds.conf").write_text(site)
    mime = "include /etc/nginx/mime.types;" if Path("/etc/nginx/mime.types").exists() else ""
    temp = "\n".join(
        f"    {kind}_temp_path {base / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    (base / "nginx.conf").write_text(
        f"pid {base / 'nginx.pid'};\nerror_log {base / 'error.log'};\n"
        "daemon off;\nmaster_process off;\nevents {}\n"
        f"http {{\n    {mime}\n{temp}\n    access_log {base / 'access.log'};\n"
        f"    include {base / 'tradewinds.conf'};\n}}\n"
    )
    return base


def nginx_command(base: Path) -> list[str]:
    nginx = tool("/usr/sbin/nginx", "nginx")
    return [nginx, "-p", str(base), "-e", str(base / "error.log"), "-c", str(base / "nginx.conf")]


def test_nginx_accepts_the_site(tmp_path):
    base = nginx_folder(tmp_path, "127.0.0.1:8000")
    done = subprocess.run(
        [*nginx_command(base), "-t", "-q"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def test_nginx_lets_through_every_upload_the_app_accepts():
    app = create_app({"SECRET_KEY": "stand-in", "DATABASE_URL": "sqlite://"})
    size = re.search(r"client_max_body_size (\d+)([km]?);", SITE.read_text())
    assert size
    scale = {"": 1, "k": 1024, "m": 1024 * 1024}[size.group(2)]
    assert int(size.group(1)) * scale >= app.config["MAX_CONTENT_LENGTH"]


# -- the site live, in front of the app --------------------------------------------------
def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def echo():
    """What the app believes about the request it is answering."""
    return jsonify(remote_addr=request.remote_addr, scheme=request.scheme, host=request.host)


@pytest.fixture
def proxied(tmp_path):
    """nginx with the site before the real app (PROXY_HOPS=1) and a route that echoes what
    the app believes; yields nginx's (http, https) ports."""
    app = create_app(
        {
            "SECRET_KEY": "stand-in",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'ladder.sqlite3'}",
            "PROXY_HOPS": 1,
            # The upload form without an account (its page needs no database then).
            "LOGIN_DISABLED": True,
        }
    )
    app.add_url_rule("/test-echo", "test_echo", echo, methods=["GET", "POST"])
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    ports = (free_port(), free_port())
    base = nginx_folder(tmp_path, f"127.0.0.1:{server.server_port}", ports)
    nginx = subprocess.Popen(nginx_command(base), stderr=subprocess.PIPE)
    try:
        wait_for_port(ports[1], nginx)
        yield ports
    finally:
        nginx.terminate()
        nginx.wait(timeout=30)
        nginx.stderr.close()
        server.shutdown()
        server.server_close()
        thread.join()


def wait_for_port(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"nginx exited: {proc.stderr.read().decode()}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise AssertionError(f"nginx did not listen on port {port}")


def https(port: int, method: str, url: str, headers: dict | None = None):
    """(status, headers, body) of one request to nginx over TLS, with Host set to the site's."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=30, context=context)
    try:
        connection.putrequest(method, url, skip_host=True, skip_accept_encoding=True)
        for name, value in {"Host": HOST, **(headers or {})}.items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_the_app_sees_the_real_client_scheme_and_host(proxied):
    _, secure = proxied
    # A client's own X-Forwarded-* claims are not believed: only what nginx adds.
    made_up = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Host": "elsewhere.example"}
    status, _, body = https(secure, "GET", "/test-echo", made_up)
    assert status == 200
    assert json.loads(body) == {"remote_addr": "127.0.0.1", "scheme": "https", "host": HOST}


def test_static_files_come_from_the_package(proxied):
    _, secure = proxied
    status, headers, body = https(secure, "GET", "/static/css/site.css")
    assert status == 200
    assert body == (ROOT / "ladder" / "static" / "css" / "site.css").read_bytes()
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_plain_http_is_sent_to_https(proxied):
    plain, _ = proxied
    connection = http.client.HTTPConnection("127.0.0.1", plain, timeout=30)
    try:
        connection.request("GET", "/boards/manila?page=2", headers={"Host": HOST})
        response = connection.getresponse()
        assert response.status == 301
        assert response.getheader("Location") == f"https://{HOST}/boards/manila?page=2"
    finally:
        connection.close()


def test_an_oversized_body_stops_at_nginx(proxied):
    _, secure = proxied
    # Refused on its Content-Length alone, before a byte of it is read or passed on.
    status, _, _ = https(secure, "POST", "/test-echo", {"Content-Length": str(2 << 20)})
    assert status == 413


def test_an_upload_form_over_nginxs_limit_comes_back_with_the_size_and_the_limit(proxied):
    _, secure = proxied
    headers = {"Content-Length": str(3 << 20), "Content-Type": "multipart/form-data; boundary=zz"}
    status, answered, body = https(secure, "POST", "/bots/upload", headers)
    assert status == 413 and answered["Content-Type"].startswith("text/html")
    page = body.decode()
    assert '<div class="error">the upload is about 3 MiB; the limit is 512 KiB</div>' in page
    assert "<h1>Upload a bot</h1>" in page


def test_an_api_upload_over_nginxs_limit_gets_the_apis_json_413(proxied):
    _, secure = proxied
    headers = {"Content-Length": str(3 << 20), "Content-Type": "multipart/form-data; boundary=zz"}
    status, answered, body = https(secure, "POST", "/api/v1/versions", headers)
    assert status == 413 and answered["Content-Type"] == "application/json"
    assert json.loads(body) == {
        "error": "the upload is about 3 MiB; the limit is 512 KiB",
        "field": "file",
    }
