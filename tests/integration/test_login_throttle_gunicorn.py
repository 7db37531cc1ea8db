"""The login throttle holds under real concurrency: 30 wrong passwords sent at once
from one address to gunicorn with four worker processes check at most the limit's
number of passwords (each checked one is stored as a failure first)."""

from __future__ import annotations

import http.cookiejar
import os
import re
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from ladder.cli import db as schema
from ladder.cli.processes import free_port, stop, web_command
from ladder.models import LoginFailure
from ladder.services import accounts
from tests.integration.live import wait_until

pytestmark = pytest.mark.integration
ATTEMPTS = 30


@pytest.fixture
def site(tmp_path):
    url = f"sqlite:///{tmp_path / 'ladder.sqlite3'}"
    schema.upgrade(url)
    eng = create_engine(url)
    with Session(eng) as s:
        accounts.register(s, "alice", "correct horse")
    port = free_port(0)
    env = {**os.environ, "LADDER_VAR": str(tmp_path), "DATABASE_URL": url, "SECRET_KEY": "k"}
    env.pop("REDIS_URL", None)
    with open(tmp_path / "web.log", "ab") as log:
        proc = subprocess.Popen(
            web_command(f"127.0.0.1:{port}", 4), env=env, stdout=log, stderr=log,
            start_new_session=True,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: _up(base), 30, "gunicorn to answer")
        yield base, eng
    finally:
        stop({"web": proc}, wait_s=1)  # the test is over: no answer need end
        eng.dispose()


def _up(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/login", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


class Browser:
    """One client with its own cookies, holding the login form's CSRF token."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        page = self.opener.open(base + "/login", timeout=10).read().decode()
        self.token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)[1]

    def log_in(self, username: str, password: str) -> int:
        data = urllib.parse.urlencode(
            {"username": username, "password": password, "csrf_token": self.token}
        ).encode()
        try:
            with self.opener.open(self.base + "/login", data=data, timeout=60) as response:
                return response.status
        except urllib.error.HTTPError as refused:
            refused.close()
            return refused.code


def test_thirty_simultaneous_wrong_passwords_check_at_most_the_limit(site):
    base, eng = site
    limit = 5  # LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS's default
    browsers = [Browser(base) for _ in range(ATTEMPTS)]
    start = threading.Barrier(ATTEMPTS)

    def attempt(i: int) -> int:
        start.wait()
        return browsers[i].log_in("alice", f"wrong pony {i}")

    with ThreadPoolExecutor(ATTEMPTS) as pool:
        statuses = list(pool.map(attempt, range(ATTEMPTS)))
    with Session(eng) as s:
        checked = s.scalar(select(func.count(LoginFailure.id)))
    assert checked <= limit, f"{checked} passwords were checked"
    assert statuses.count(400) == checked and statuses.count(429) == ATTEMPTS - checked
