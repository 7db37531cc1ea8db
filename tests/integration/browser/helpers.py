"""What browser tests do on a page (fixtures and the live site live in conftest.py)."""

from __future__ import annotations

from playwright.sync_api import expect


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
