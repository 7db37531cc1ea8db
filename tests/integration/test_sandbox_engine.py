"""The engine and numpy inside the sandbox: a bot's forward model is the referee's own
rules, read-only and unshadowable; numpy runs on one thread inside the limits and
opens no way out."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import threading
import zipfile
from pathlib import Path

import pytest

import engine
from tests.integration.conftest import needs_bwrap, sandbox_processes
from workers.limits import Limits
from workers.match import run_match
from workers.sandbox import BLAS_THREADS, numpy_dir, runtime
from workers.staging import ENGINE_DIR

pytestmark = [pytest.mark.integration, needs_bwrap]

needs_numpy = pytest.mark.skipif(
    numpy_dir(runtime(unsafe=True).python) is None,
    reason="Debian's python3-numpy is not installed (`make sandbox` installs it)",
)

# Searches with the engine: determinizes its view, checks the sampled world against
# what it was told, then tries each of a few actions on a clone and plays on at random.
SEARCH_BOT = """
import json
import random
import sys

import engine

decisions = searched = 0
INFO = {}


def setup(info):
    INFO.update(info)
    INFO["rules"] = engine.get_game(info["game"])


def wire(value):
    return json.loads(json.dumps(value))


def without_events(view):
    return {k: v for k, v in wire(view).items() if k != "events"}


def playout(world, rng, plies):
    for _ in range(plies):
        if world.is_over():
            return world.result()["scores"][INFO["seat"]]
        world.apply(rng.choice(world.legal_actions()))
    return 0


def act(view, legal):
    global decisions, searched
    decisions += 1
    if decisions > 20 and decisions % 7:  # the first twenty, then every seventh
        return legal[0]
    rng = random.Random(decisions)
    world = INFO["rules"].determinize(view, rng.randrange(1 << 30), options=INFO["options"],
                                      legal=legal)
    if world.current_player() != INFO["seat"] or wire(world.legal_actions()) != legal:
        print("MISMATCH legal", file=sys.stderr, flush=True)
    if without_events(world.view(INFO["seat"])) != without_events(view):
        print("MISMATCH view", file=sys.stderr, flush=True)
    if searched == 0:  # once a match: a clone played to the very end
        ended = world.clone()
        playout(ended, rng, 100_000)
        print(f"ENDED {ended.is_over()} {ended.result()['scores']}", file=sys.stderr, flush=True)
    best, value = legal[0], None
    for action in legal[:3]:
        trial = world.clone()
        trial.apply(action)
        score = playout(trial, rng, 20)
        if value is None or score > value:
            best, value = action, score
    searched += 1
    print(f"SEARCHED {searched}", file=sys.stderr, flush=True)
    return best
"""

# Reports what it sees of the engine and tries to change it.
INSPECT_BOT = """
import hashlib
import json
import os
import sys

import engine

top = os.path.dirname(engine.__file__)
files = {}
for folder, dirs, names in os.walk(top):
    dirs[:] = [d for d in dirs if d != "__pycache__"]
    for name in names:
        path = os.path.join(folder, name)
        with open(path, "rb") as handle:
            files[os.path.relpath(path, top)] = hashlib.sha256(handle.read()).hexdigest()
core = os.path.join(top, "core.py")
attempts = {
    "append": lambda: open(core, "a").close(),
    "create": lambda: open(os.path.join(top, "extra.py"), "w").close(),
    "chmod": lambda: os.chmod(core, 0o777),
    "rename": lambda: os.rename(core, core + ".old"),
    "remove": lambda: os.remove(os.path.join(top, "manila", "state.py")),
    "bytecode": lambda: open(os.path.join(top, "__pycache__", "x.pyc"), "wb").close(),
}
refused = []
for what, attempt in attempts.items():
    try:
        attempt()
    except OSError:
        refused.append(what)
report = {
    "file": engine.__file__,
    "versions": {name: engine.get_game(name).version for name in engine.game_names()},
    "files": files,
    "refused": refused,
}
print("ENGINE " + json.dumps(report), file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]
"""

SHADOW_ENGINE = 'import sys\\nprint("SHADOW", file=sys.stderr, flush=True)\\nVALUE = 0\\n'
SHADOWED_BOT = """
import sys

import engine
import helper

print(f"ENGINE {engine.__file__} {hasattr(engine, 'get_game')} HELPER {helper.VALUE}",
      file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]
"""

NUMPY_BOT = """
import os
import sys

import numpy

a = numpy.arange(360_000, dtype=numpy.float64).reshape(600, 600) / 360_000
product = a @ a.T
threads = [line.split()[1] for line in open("/proc/self/status") if line.startswith("Threads")]
blas = {k: v for k, v in os.environ.items() if k.endswith("_NUM_THREADS")}
print(f"NUMPY {numpy.__version__} {numpy.__file__} TRACE {numpy.trace(product):.6f}"
      f" THREADS {threads[0]} BLAS {sorted(blas.items())}", file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]
"""

NUMPY_HOG_BOT = """
import numpy

kept = []


def act(view, legal):
    kept.append(numpy.ones(2 << 30, dtype=numpy.uint8))  # 2 GiB, four times the limit
    return legal[0]
"""


def write(folder: Path, name: str, text: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return str(path)


def play(game: str, bot: str, seed: int = 11, limits: Limits | None = None) -> dict:
    """Seat `bot` first among house random bots; the others' game must finish and replay."""
    players = engine.get_game(game).min_players
    out = run_match(
        game, [bot] + [f"{game}/random"] * (players - 1), seed=seed, limits=limits
    ).to_dict()
    assert out["statuses"][1:] == ["ok"] * (players - 1), out["errors"]
    assert engine.replay(out["replay"]).result()["scores"] == out["scores"]
    assert sandbox_processes() == [], "every process of the match is gone at its end"
    return out


def host_engine_files() -> dict[str, str]:
    """sha256 of every file of the referee's engine package, by path inside it."""
    return {
        str(path.relative_to(ENGINE_DIR)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in ENGINE_DIR.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


@pytest.mark.parametrize("name", engine.game_names())
def test_a_bot_determinizes_its_view_and_plays_forward_on_clones_in_a_real_match(name, tmp_path):
    out = play(name, write(tmp_path, "bot.py", SEARCH_BOT), seed=5)
    log = out["stderr"][0]
    assert out["statuses"][0] == "ok", (out["errors"][0], log[-2000:])
    assert "MISMATCH" not in log, log[-2000:]
    assert "ENDED True [" in log
    mine = sum(1 for seat, _action in out["replay"]["actions"] if seat == 0)
    assert log.count("SEARCHED") == sum(1 for d in range(1, mine + 1) if d <= 20 or d % 7 == 0)


def test_the_engine_inside_is_the_referees_own_files_read_only(game, tmp_path):
    out = play(game, write(tmp_path, "bot.py", INSPECT_BOT))
    assert out["statuses"][0] == "ok", out["stderr"][0]
    report = json.loads(out["stderr"][0].split("ENGINE ", 1)[1].splitlines()[0])
    assert report["file"] == "/sdk/engine/__init__.py"
    assert report["versions"] == {n: engine.get_game(n).version for n in engine.game_names()}
    assert report["files"] == host_engine_files()
    assert report["refused"] == ["append", "create", "chmod", "rename", "remove", "bytecode"]


@pytest.mark.parametrize("shape", ["zip with engine.py", "folder with engine/"])
def test_a_bots_own_engine_module_cannot_shadow_the_real_one(game, tmp_path, shape):
    files = {"bot.py": SHADOWED_BOT, "helper.py": "VALUE = 42\n"}
    if shape == "zip with engine.py":
        bot = tmp_path / "bot.zip"
        with zipfile.ZipFile(bot, "w") as archive:
            for name, text in {**files, "engine.py": SHADOW_ENGINE}.items():
                archive.writestr(name, text)
    else:
        bot = tmp_path / "bot"
        for name, text in {**files, "engine/__init__.py": SHADOW_ENGINE}.items():
            write(bot / Path(name).parent, Path(name).name, text)
    out = play(game, str(bot))
    log = out["stderr"][0]
    assert out["statuses"][0] == "ok", log
    assert "ENGINE /sdk/engine/__init__.py True HELPER 42" in log  # its own helper still loads
    assert "SHADOW" not in log


@needs_numpy
def test_numpy_computes_on_one_thread_and_is_debians(game, tmp_path):
    python = runtime().python
    version = subprocess.run(
        [python, "-c", "import numpy; print(numpy.__version__)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    out = play(game, write(tmp_path, "bot.py", NUMPY_BOT))
    log = out["stderr"][0]
    assert out["statuses"][0] == "ok", log
    line = log.split("NUMPY ", 1)[1].splitlines()[0]
    assert line.startswith(f"{version} /sdk/numpy/__init__.py TRACE ")
    n = 360_000  # trace(A Aᵀ) is the sum of A's squares: sum of (x / n)² for x < n
    assert float(line.split("TRACE ")[1].split()[0]) == pytest.approx((n - 1) * (2 * n - 1) / 6 / n)
    assert "THREADS 1 " in line
    assert f"BLAS {sorted(BLAS_THREADS.items())}" in line


@needs_numpy
def test_a_huge_numpy_allocation_is_a_killed_seat_not_a_host_problem(game, tmp_path):
    out = play(game, write(tmp_path, "bot.py", NUMPY_HOG_BOT))
    assert out["statuses"][0] == "killed"
    assert "memory limit" in out["errors"][0]
    assert out["ranks"][0] > max(out["ranks"][1:])


@needs_numpy
def test_a_hostile_numpy_bot_reaches_no_network_and_writes_nowhere_but_tmp(game, hostile, tmp_path):
    host_dir = tmp_path / "host"
    host_dir.mkdir()
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    accepted, done = [], threading.Event()

    def serve():
        while not done.is_set():
            try:
                accepted.append(server.accept())
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    before = host_engine_files()
    try:
        port = str(server.getsockname()[1])
        out = play(game, hostile("numpy_escape", PORT=port, HOST_DIR=str(host_dir)))
    finally:
        done.set()
        thread.join()
        server.close()
    log = out["stderr"][0]
    assert out["statuses"][0] == "ok", log  # scored like any seat
    assert "ESCAPED" not in log, log
    assert log.count("BLOCKED") == 25, log  # every attempt the bot makes
    assert "TMP-WRITABLE" in log
    assert accepted == []
    assert list(host_dir.iterdir()) == []
    assert host_engine_files() == before
