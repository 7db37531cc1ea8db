"""`ladder replay`: a seat's recorded match re-run in the real sandbox, step by step."""

from __future__ import annotations

import gzip
import http.server
import json
import threading
from pathlib import Path

import pytest

from tests.integration.conftest import needs_bwrap
from tests.integration.helpers import ladder

pytestmark = [pytest.mark.integration, needs_bwrap]

# Draws from `random` at every decision: it replays only if it gets the same seed.
DRAWER = """
import random

def act(view, legal):
    return random.choice(legal)
"""

# Crashes at its third decision, after drawing (so the crash depends on the seed too).
CRASH_THIRD = """
import random
seen = 0

def act(view, legal):
    global seen
    seen += 1
    pick = random.choice(legal)
    if seen == 3:
        raise KeyError("third decision " + str(len(legal)))
    return pick
"""


def write(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / name
    path.write_text(source)
    return str(path)


def record_match(tmp_path: Path, bot: str, seed: int = 11) -> tuple[Path, dict]:
    replay = tmp_path / f"match-{seed}.json"
    done = ladder("play", "manila", bot, "manila/random", "manila/greedy", "--seed", str(seed),
                  "--replay", str(replay))  # fmt: skip
    assert done.returncode == 0, done.stderr
    return replay, json.loads(replay.read_text())


@pytest.fixture(scope="module")
def drawn(tmp_path_factory) -> tuple[str, Path, dict]:
    """The drawer bot and one match it played, recorded once for every test that only
    reads it (each recording is a whole `ladder play` in the sandbox)."""
    folder = tmp_path_factory.mktemp("drawn")
    bot = write(folder, "drawer.py", DRAWER)
    return (bot, *record_match(folder, bot))


def test_the_same_bot_and_seed_make_every_decision_again(drawn):
    bot, replay, record = drawn
    decisions = sum(1 for seat, _ in record["actions"] if seat == 0)
    done = ladder("replay", str(replay), bot, "--seat", "0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("  same: ") == decisions
    assert f"All {decisions} decisions matched the recorded match." in done.stdout


def test_a_crash_on_the_server_crashes_at_the_same_step_locally(tmp_path):
    bot = write(tmp_path, "crash.py", CRASH_THIRD)
    replay, record = record_match(tmp_path, bot)
    assert record["statuses"][0] == "crash"
    gz = tmp_path / "match.json.gz"
    gz.write_bytes(gzip.compress(replay.read_bytes()))  # as the site serves it
    done = ladder("replay", str(gz), bot, "--seat", "0")
    assert done.returncode == 1
    third = [i for i, (seat, _) in enumerate(record["actions"]) if seat == 0][2]
    assert f"Stopped at step {third}: crash: exited with code 1." in done.stdout
    assert f"In the recorded match this seat faulted at step {third}: crash" in done.stdout
    assert "KeyError: 'third decision" in done.stdout
    assert "Legal actions (" in done.stdout and '"phase":' in done.stdout


def test_another_bot_stops_at_the_first_divergence_with_both_answers(drawn):
    _, replay, _ = drawn
    done = ladder("replay", str(replay), "manila/greedy", "--seat", "0")
    assert done.returncode == 1
    assert "DIFFERS: " in done.stdout
    assert "its answer differs from the recorded one" in done.stdout
    assert "Recorded: {" in done.stdout and "The bot:  {" in done.stdout


def test_from_step_skips_the_earlier_views(drawn):
    _, replay, record = drawn
    later = [i for i, (seat, _) in enumerate(record["actions"]) if seat == 1][5]
    done = ladder("replay", str(replay), "manila/greedy", "--seat", "1", "--from-step", str(later))
    first_step = next(line for line in done.stdout.splitlines() if line.startswith("step"))
    assert first_step.split()[1] == str(later)


class _Replays(http.server.BaseHTTPRequestHandler):
    body = b""

    def do_GET(self):
        if self.path == "/api/v1/matches/42/replay" and self.headers["Authorization"] == "Bearer t":
            self.send_response(200)
            self.send_header("Content-Type", "application/gzip")
            self.end_headers()
            self.wfile.write(self.body)
        else:
            self.send_error(404, "no such match")

    def log_message(self, *args):
        pass


def test_a_match_id_is_fetched_from_the_server(drawn):
    bot, replay, _ = drawn
    _Replays.body = gzip.compress(replay.read_bytes())
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Replays)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        done = ladder("replay", "42", bot, "--seat", "0", "--server", url, "--token", "t")
        assert done.returncode == 0, done.stdout + done.stderr
        missing = ladder("replay", "43", bot, "--seat", "0", "--server", url, "--token", "t")
        assert missing.returncode == 1
        assert "answered 404" in missing.stderr
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{missing}", "manila/random", "--seat", "0"], "no such file"),
        (["{garbage}", "manila/random", "--seat", "0"], "is not a replay"),
        (["{replay}", "manila/random", "--seat", "9"], "--seat must be 0 to 2"),
        (["{replay}", "no/such", "--seat", "0"], "no bot 'no/such'"),
        (["abc", "manila/random", "--seat", "0", "--server", "http://x"], "a match id"),
    ],
)
def test_bad_input_gets_a_clear_error(tmp_path, drawn, args, message):
    replay = drawn[1]
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    names = {"missing": tmp_path / "nope.json", "garbage": garbage, "replay": replay}
    done = ladder("replay", *(a.format(**names) for a in args))
    assert done.returncode in (1, 2)
    assert message in done.stderr
