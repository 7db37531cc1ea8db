"""The sandbox itself: pausing, start-up failures, the unsafe development mode."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest

from tests.integration.conftest import needs_bwrap, sandbox_processes
from workers import protocol
from workers.bot_process import BotFault
from workers.limits import Limits
from workers.match import run_match
from workers.pool import pool
from workers.sandbox import SandboxUnavailable, runtime
from workers.staging import BotSource, resolve

pytestmark = [pytest.mark.integration, needs_bwrap]

HOSTILE = Path(__file__).parent / "hostile"
START = protocol.start("test", 0, 2, {}, Limits().wire())


@contextlib.contextmanager
def one_bot(source: BotSource):
    """A bot forked in a leased sandbox slot: (the bot, its slot); killed afterwards."""
    limits = Limits()
    with pool(runtime()).lease(1) as [slot]:
        slot.stage(source)
        bot = slot.spawn(limits)
        try:
            yield bot, slot
        finally:
            bot.kill()


def cpu_seconds(uid: int) -> float:
    """User + system CPU seconds of every live process running as `uid`."""
    ticks = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(status.split("\nUid:", 1)[1].split()[0]) == uid:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / 100


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: sandbox uids are counted")
def test_a_paused_bot_burns_no_cpu_even_in_threads_and_escaped_children():
    with one_bot(resolve(str(HOSTILE / "busy_background.py"))) as (bot, slot):
        uid = slot.uid
        bot.send(START)
        protocol.ready(bot.read_line(5))
        bot.pause()  # the first pause walks the whole tree
        time.sleep(0.1)
        before = cpu_seconds(uid)
        time.sleep(0.5)
        paused = cpu_seconds(uid) - before
        bot.resume()
        time.sleep(0.5)
        running = cpu_seconds(uid) - before - paused
    assert paused < 0.05
    assert running > 0.1  # the same measure sees the spinning when it is let run
    assert sandbox_processes() == []


def test_a_bot_that_cannot_load_crashes_at_start_with_its_reason_in_stderr(tmp_path, game):
    broken = tmp_path / "bot.py"
    broken.write_text("import no_such_module_here\n")
    import engine

    players = engine.get_game(game).min_players
    out = run_match(game, [str(broken)] + [f"{game}/random"] * (players - 1), seed=3).to_dict()
    assert out["statuses"][0] == "crash"
    assert "could not be loaded" in out["errors"][0]
    assert "no_such_module_here" in out["stderr"][0]
    assert out["statuses"][1:] == ["ok"] * (players - 1)


def test_timeout_when_not_ready_within_init_ms(tmp_path, game):
    slow = tmp_path / "bot.py"
    slow.write_text("import time\ntime.sleep(30)\ndef act(view, legal):\n    return legal[0]\n")
    import engine

    players = engine.get_game(game).min_players
    out = run_match(
        game, [str(slow)] + [f"{game}/random"] * (players - 1), seed=3, limits=Limits(init_ms=1000)
    ).to_dict()
    assert out["statuses"][0] == "timeout"
    assert "init_ms=1000" in out["errors"][0]


def test_read_line_times_out_and_kill_is_idempotent():
    with one_bot(resolve(str(HOSTILE / "sleep_forever.py"))) as (bot, _slot):
        with pytest.raises(BotFault) as fault:
            bot.read_line(0.2)  # it is never sent `start`, so it never answers
        assert fault.value.status == "timeout"
        bot.kill()
        bot.kill()
        assert bot.returncode == -signal.SIGKILL


def test_without_bwrap_only_the_unsafe_flag_runs_bots_and_it_warns(game, capsys, monkeypatch):
    import engine

    monkeypatch.setattr("workers.sandbox.shutil.which", lambda name: None)
    players = engine.get_game(game).min_players
    refusal = r"bwrap is not installed.*apt install bubblewrap.*unsafe"
    with pytest.raises(SandboxUnavailable, match=refusal):
        run_match(game, [f"{game}/random"] * players, seed=5)
    out = run_match(game, [f"{game}/random"] * players, seed=5, unsafe=True).to_dict()
    assert out["statuses"] == ["ok"] * players
    assert "WITHOUT a sandbox" in capsys.readouterr().err


def test_ask_handles_messages_larger_than_a_pipe_buffer():
    with one_bot(resolve("manila/random")) as (bot, _slot):
        bot.send(START)
        protocol.ready(bot.read_line(5))
        bot.pause()
        for size in (10, 200_000):  # below and far above the 64 KiB pipe buffer
            message = protocol.act({"padding": "x" * size}, [{"n": size}], 1000)
            line, elapsed = bot.ask(message, 5)
            assert protocol.action(line, [{"n": size}]) == {"n": size}
            assert elapsed > 0
            bot.pause()  # each message goes to a stopped bot


def test_a_bad_upload_raises_before_any_bot_starts(game, tmp_path):
    import zipfile

    import engine

    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../escape.py", "x = 1\n")
        zf.writestr("bot.py", "def act(view, legal):\n    return legal[0]\n")
    players = engine.get_game(game).min_players
    with pytest.raises(ValueError, match="unsafe path"):
        run_match(game, [f"{game}/random"] * (players - 1) + [str(archive)], seed=2)
    assert sandbox_processes() == []


def test_a_zip_bot_imports_its_helpers_and_reads_its_data(game, tmp_path):
    import zipfile

    import engine

    archive = tmp_path / "bot.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(
            "bot.py",
            "import json, os\nimport helper\n"
            "HERE = os.path.dirname(__file__)\n"
            "TABLE = json.load(open(os.path.join(HERE, 'data', 'pick.json')))\n"
            "def act(view, legal):\n    return legal[helper.index(TABLE, len(legal))]\n",
        )
        zf.writestr("helper.py", "def index(table, n):\n    return table['pick'] % n\n")
        zf.writestr("data/pick.json", '{"pick": 0}')
    players = engine.get_game(game).min_players
    out = run_match(game, [str(archive)] + [f"{game}/random"] * (players - 1), seed=6).to_dict()
    assert out["statuses"] == ["ok"] * players, out["stderr"][0]
    assert out["replay"]["seats"][0] == str(archive)


def test_run_job_plays_a_ladder_job_in_seat_order(game):
    import engine
    from workers import Job, JobSeat
    from workers.match import run_job
    from workers.staging import house_file

    players = engine.get_game(game).min_players
    seats = [
        JobSeat(s, f"bot{s}", path=house_file(game, "random")) for s in reversed(range(players))
    ]
    out = run_job(Job(game, 4, tuple(seats), {})).to_dict()
    assert out["replay"]["seats"] == [f"bot{s}" for s in range(players)]
    assert out["statuses"] == ["ok"] * players
    with pytest.raises(ValueError, match="job seats"):
        run_job(Job(game, 4, tuple(seats[:-1])))  # seat 0 missing


def test_a_bot_that_sleeps_through_every_move_runs_out_of_match_time(game, tmp_path):
    """Each move under move_ms, yet the match is bounded: the seat's total is capped.

    The other seats share the match clock's size: 1.5 s leaves random bots room on a
    busy machine (300 ms timed them out at a load of 10), and the sleeper spends it in
    about 8 of its moves."""
    import engine

    slow = tmp_path / "bot.py"
    slow.write_text(
        "import time\ndef act(view, legal):\n    time.sleep(0.2)\n    return legal[0]\n"
    )
    players = engine.get_game(game).min_players
    limits = Limits(move_ms=400, bank_ms=400, match_ms=1500)
    out = run_match(
        game, [str(slow)] + [f"{game}/random"] * (players - 1), seed=3, limits=limits
    ).to_dict()
    assert out["statuses"][0] == "timeout"
    assert "1500 ms of thinking for the match" in out["errors"][0]
    mine = [ms for (seat, _), ms in zip(out["replay"]["actions"], out["replay"]["decision_ms"],
                                        strict=True) if seat == 0 and ms is not None]  # fmt: skip
    assert sum(mine) <= 1500 + 50
    assert out["statuses"][1:] == ["ok"] * (players - 1)
