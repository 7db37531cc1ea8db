"""The bot author's kit as someone outside the checkout gets it: the sdist and wheel that
`deploy/build-kit.sh` builds, served by the site, pip-installed into a fresh virtualenv from
the link the site's bot guide gives, then used from a folder outside the checkout: the schema
by `ladder db upgrade`, and one match of each game through the sandbox by `ladder play` (a
path bot copied from the installed starter, and house bots).

One test, kept lean for CI's budget: the build takes about two seconds, the install's
dependencies come from pip's cache after the first run, the three matches run side by side.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import urllib.request
from html import unescape
from pathlib import Path

import pytest
from werkzeug.serving import BaseWSGIServer

import engine
from ladder import create_app
from ladder.cli.db import upgrade
from tests.integration.browser.helpers import serve
from tests.integration.conftest import needs_bwrap

pytestmark = [pytest.mark.integration, needs_bwrap]

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "bots", "workers", "ladder")


def run(*args: str | Path, cwd: Path, env: dict, timeout: int = 300) -> str:
    """Run a command to its end, failing the test with its output if it fails."""
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def outside_env(venv: Path) -> dict:
    """The environment of someone who installed the kit: the venv's bin first, nothing that
    would import the checkout's code (no PYTHONPATH, no other virtualenv)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}:/usr/bin:/bin"
    return env


def guide_link(tmp_path: Path, kit: Path) -> tuple[BaseWSGIServer, str]:
    """The site (serving `kit`) started in this process, and the wheel's address its bot
    guide tells readers to `pip install`."""
    database = f"sqlite:///{tmp_path / 'site.sqlite3'}"
    upgrade(database)
    app = create_app({"SECRET_KEY": "kit", "DATABASE_URL": database, "KIT_DIR": str(kit)})
    server, address = serve(app)
    with urllib.request.urlopen(f"{address}/docs/bots", timeout=30) as answer:
        guide = unescape(answer.read().decode())
    (link,) = set(re.findall(r"pip install (\S+\.whl)", guide))
    assert link.startswith(f"{address}/download/")  # the site's own address, as served
    return server, link


def test_the_wheel_installs_elsewhere_migrates_and_plays_every_game(tmp_path):
    kit, venv, home = tmp_path / "kit", tmp_path / "venv", tmp_path / "home"
    home.mkdir()
    env = outside_env(venv)
    run(ROOT / "deploy" / "build-kit.sh", kit, sys.executable, cwd=home, env=env)
    (wheel,) = kit.glob("tradewinds-*-py3-none-any.whl")
    assert len(list(kit.glob("tradewinds-*.tar.gz"))) == 1  # the sdist the wheel came from

    server, link = guide_link(tmp_path, kit)
    assert link.endswith(f"/download/{wheel.name}")
    # A venv without pip of its own: the project's pip installs into it (saves ensurepip), and
    # compiles nothing ahead (what runs compiles itself): 3 s from pip's cache, not 9.
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=home, env=env)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-compile"]
    try:
        run(*pip, "--disable-pip-version-check", link, cwd=home, env=env, timeout=600)
    finally:
        server.shutdown()

    where = json.loads(
        run(
            python, "-c",
            "import json, importlib; print(json.dumps({n: importlib.import_module(n).__file__"
            f" for n in {PACKAGES!r}}}))",
            cwd=home, env=env,
        )
    )  # fmt: skip
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))",
                    cwd=home, env=env).strip())  # fmt: skip
    for name, file in where.items():
        assert Path(file).is_relative_to(site), f"{name} imported from {file}, not the venv"
    ladder = venv / "bin" / "ladder"

    database = tmp_path / "db" / "ladder.sqlite3"
    db_env = {**env, "DATABASE_URL": f"sqlite:///{database}"}
    assert "is at revision head" in run(ladder, "db", "upgrade", cwd=home, env=db_env)
    with sqlite3.connect(database) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert {"alembic_version", "users", "bots", "matches"} <= tables
    assert not (site / "var").exists()  # nothing written inside the installed package

    # A bot author's own file: the installed starter, copied out as theirs.
    plays = {}
    for game in engine.game_names():
        mine = home / f"{game}_bot.py"
        shutil.copy(site / "bots" / "starter" / game / "bot.py", mine)
        others = [f"{game}/greedy", f"{game}/random", f"{game}/random"]
        seats = [str(mine), *others[: engine.get_game(game).min_players - 1]]
        plays[game, tuple(seats)] = subprocess.Popen(
            [ladder, "play", game, *seats, "--seed", "3", "--json"],
            cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
    for (game, seats), proc in plays.items():
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, f"{game}: {err}"
        (line,) = out.splitlines()
        match = json.loads(line)
        assert match["bots"] == list(seats)
        assert match["statuses"] == ["ok"] * len(seats), (game, match["errors"], match["stderr"])
        assert sorted(match["ranks"])[0] == 1 and len(match["scores"]) == len(seats)
        assert engine.replay(match["replay"]).result()["ranks"] == match["ranks"]
