"""What browser tests do on a page (fixtures and the live site live in conftest.py)."""

from __future__ import annotations

import threading

from playwright.sync_api import expect
from werkzeug.serving import BaseWSGIServer, make_server

from ladder.cli.processes import free_port


def whole_answers(app):
    """`app` with every answer read to its end (and closed) before a byte is sent.

    A browser that moves on mid-answer (a form sent while the favicon loads) drops the
    connection; werkzeug's server then skips closing the answer, and a static file is
    left open for the garbage collector to warn about, which fails whichever test runs.
    """

    def wsgi(environ, start_response):
        answer = app(environ, start_response)
        try:
            return [b"".join(answer)]
        finally:
            if hasattr(answer, "close"):
                answer.close()

    return wsgi


def serve(app) -> tuple[BaseWSGIServer, str]:
    """The site on a free loopback port, in a thread of this process; the server (to
    shut down) and its address."""
    port = free_port(0)
    server = make_server("127.0.0.1", port, whole_answers(app), threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{port}"


def register(page, name: str, password: str = "correct horse battery") -> None:
    """Register through the form; the site logs the new user in at once."""
    page.goto("/register")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_label("Password again").fill(password)
    page.get_by_role("button", name="Register").click()
    expect(page.locator(".flash")).to_contain_text(f"Welcome aboard, {name}")
    # On a phone the button is in the folded menu: its text says who is logged in.
    expect(page.locator(".site-nav button.link")).to_have_text(f"Log out {name}")


def assert_no_sideways_scroll(page, what: str) -> None:
    """Fail when the document is wider than the window, so the page scrolls sideways."""
    wide, screen = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert wide <= screen, f"{what} is {wide}px wide on a {screen}px screen"
