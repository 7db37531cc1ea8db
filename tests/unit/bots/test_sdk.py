"""The bot SDK: loading a bot, the protocol loop, and stdout kept clean for the protocol."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from types import SimpleNamespace

import pytest

from bots import sdk

START = {"type": "start", "protocol": 1, "game": "g", "seat": 1, "players": 3,
         "options": {"x": True}, "limits": {"move_ms": 1, "bank_ms": 2, "init_ms": 3}}  # fmt: skip
ACT = {"type": "act", "view": {"me": 1}, "legal": [{"a": 1}, {"a": 2}], "time_left_ms": 900}
END = {"type": "end", "result": {"scores": [1, 2, 3], "ranks": [3, 2, 1]}}


@pytest.fixture(autouse=True)
def clean_imports():
    """load_bot changes sys.path and sys.modules['bot']; put them back after each test."""
    path, module = list(sys.path), sys.modules.get("bot")
    yield
    sys.path[:] = path
    sys.modules.pop("bot", None)
    if module is not None:
        sys.modules["bot"] = module


def lines(*messages) -> io.StringIO:
    return io.StringIO("".join(json.dumps(m) + "\n" for m in messages))


def test_load_a_file_a_directory_with_helpers_and_a_zip(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "helper.py").write_text("CHOICE = 1\n")
    (tmp_path / "d" / "bot.py").write_text(
        "import helper\ndef act(view, legal):\n    return legal[helper.CHOICE]\n"
    )
    assert sdk.load_bot(str(tmp_path / "d")).act({}, [0, 1]) == 1
    archive = tmp_path / "b.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("bot.py", "import zhelper\ndef act(view, legal):\n    return zhelper.PICK\n")
        zf.writestr("zhelper.py", "PICK = 'zipped'\n")
    sys.modules.pop("bot", None)
    assert sdk.load_bot(str(archive)).act({}, []) == "zipped"
    single = tmp_path / "single.py"
    single.write_text("def act(view, legal):\n    return 'single'\n")
    sys.modules.pop("bot", None)
    assert sdk.load_bot(str(single)).act({}, []) == "single"


@pytest.mark.parametrize(
    ("files", "target", "message"),
    [
        ({}, "missing.py", "no such bot file"),
        ({"d/other.py": ""}, "d", "no bot.py in directory"),
        ({"bot.py": "X = 1\n"}, "bot.py", "defines no act"),
        ({"bot.py": "act = 5\n"}, "bot.py", "defines no act"),
        ({"bot.py": "def act(v, l): pass\nsetup = 3\n"}, "bot.py", "setup is not a function"),
        ({"bot.py": "raise RuntimeError('boom at import')\n"}, "bot.py", "boom at import"),
        ({"bot.py": "def act(:\n"}, "bot.py", "SyntaxError"),
        ({"b.zip": "not a zip"}, "b.zip", "not a readable zip"),
    ],
)
def test_load_errors_say_what_is_wrong(tmp_path, files, target, message):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    with pytest.raises(sdk.LoadError, match=message):
        sdk.load_bot(str(tmp_path / target))


def test_zip_without_bot_py_at_its_root(tmp_path):
    archive = tmp_path / "b.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("sub/bot.py", "def act(v, l): pass\n")
    with pytest.raises(sdk.LoadError, match=r"no bot\.py at the root"):
        sdk.load_bot(str(archive))


def test_serve_calls_setup_once_answers_each_act_and_stops_at_end():
    seen = []
    bot = SimpleNamespace(
        setup=seen.append, act=lambda view, legal: {"picked": legal[-1], "view": view}
    )
    out = io.StringIO()
    code = sdk.serve(bot, lines(START, ACT, ACT, END, ACT), out)
    assert code == 0
    assert seen == [{k: START.get(k) for k in sdk.INFO_KEYS}]
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    assert replies[0] == {"type": "ready"}
    assert (
        replies[1:] == [{"type": "action", "action": {"picked": {"a": 2}, "view": {"me": 1}}}] * 2
    )


def test_setup_is_optional():
    out = io.StringIO()
    assert sdk.serve(SimpleNamespace(act=lambda view, legal: legal[0]), lines(START, END), out) == 0
    assert out.getvalue() == '{"type":"ready"}\n'


@pytest.mark.parametrize("bad", ['{"type": "dance"}\n', "not json\n", '["start"]\n', "{}\n"])
def test_serve_refuses_messages_it_does_not_understand(bad, capsys):
    code = sdk.serve(
        SimpleNamespace(act=lambda view, legal: legal[0]), io.StringIO(bad), io.StringIO()
    )
    assert code == sdk.EXIT_PROTOCOL
    assert "tradewinds sdk" in capsys.readouterr().err


def run_sdk(tmp_path, source: str, *messages) -> subprocess.CompletedProcess:
    bot = tmp_path / "bot.py"
    bot.write_text(source)
    stdin = "".join(json.dumps(m) + "\n" for m in messages)
    return subprocess.run(
        [sys.executable, "-m", "bots.sdk", str(bot)],
        input=stdin, capture_output=True, text=True, timeout=30,
    )  # fmt: skip


def test_print_goes_to_stderr_and_stdout_carries_only_the_protocol(tmp_path):
    source = (
        "import os, sys\n"
        "print('hello from import')\n"
        "def act(view, legal):\n"
        "    print('thinking', view)\n"
        "    sys.stdout.write('more\\n')\n"
        "    os.write(1, b'raw fd 1\\n')\n"
        "    return legal[0]\n"
    )
    done = run_sdk(tmp_path, source, START, ACT, END)
    assert done.returncode == 0, done.stderr
    assert [json.loads(x) for x in done.stdout.splitlines()] == [
        {"type": "ready"},
        {"type": "action", "action": {"a": 1}},
    ]
    for text in ("hello from import", "thinking", "more", "raw fd 1"):
        assert text in done.stderr


@pytest.mark.parametrize(
    ("source", "code", "message"),
    [
        ("X = 1\n", sdk.EXIT_LOAD, "defines no act"),
        ("def act(view, legal):\n    raise ValueError('bad move')\n", 1, "bad move"),
        ("def act(view, legal):\n    raise MemoryError\n", sdk.EXIT_MEMORY, "out of memory"),
        (
            "import errno\ndef act(view, legal):\n    raise OSError(errno.EFBIG, 'too big')\n",
            sdk.EXIT_FILE_LIMIT,
            "too big",
        ),
    ],
)
def test_failures_exit_non_zero_with_a_reason_on_stderr(tmp_path, source, code, message):
    done = run_sdk(tmp_path, source, START, ACT)
    assert done.returncode == code
    assert message in done.stderr
    assert "action" not in done.stdout


def test_usage_without_a_bot(capsys):
    assert sdk.main([]) == sdk.EXIT_LOAD
    assert "usage" in capsys.readouterr().err


def test_rlimits_are_set_before_the_bot_loads(tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text(
        "import resource, sys\n"
        "print('NOFILE', resource.getrlimit(resource.RLIMIT_NOFILE), file=sys.stderr)\n"
        "def act(view, legal):\n    return legal[0]\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "bots.sdk", "--rlimits", "nofile=40,core=0", str(bot)],
        input=json.dumps(END) + "\n", capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "NOFILE (40, 40)" in done.stderr


@pytest.mark.parametrize("spec", ["bogus=1", "as=lots", "nofile"])
def test_bad_rlimits_are_refused_before_loading(tmp_path, spec, capsys):
    assert sdk.main(["--rlimits", spec, str(tmp_path / "bot.py")]) == sdk.EXIT_LOAD
    assert "bad --rlimits" in capsys.readouterr().err


SEEDED_BOT = (
    "import random, sys\n"
    "AT_IMPORT = random.random()\n"
    "def setup(info):\n"
    "    print('INFO', sorted(info), info['seed'], info['seats'], file=sys.stderr)\n"
    "def act(view, legal):\n"
    "    print('DRAWS', AT_IMPORT, random.random(), file=sys.stderr)\n"
    "    return random.choice(legal)\n"
)


def draws(tmp_path, seed) -> str:
    start = {**START, "seed": seed, "seats": [{"name": "me", "owner": None, "version": 1}]}
    done = run_sdk(tmp_path, SEEDED_BOT, start, ACT, END)
    assert done.returncode == 0, done.stderr
    return next(line for line in done.stderr.splitlines() if line.startswith("DRAWS"))


def test_the_match_seed_seeds_random_before_the_bot_is_imported(tmp_path):
    assert draws(tmp_path, 41) == draws(tmp_path, 41)
    assert draws(tmp_path, 41) != draws(tmp_path, 42)


def test_setup_receives_the_seed_and_the_seats(tmp_path):
    start = {**START, "seed": 7, "seats": [{"name": "a", "owner": "ann", "version": 3}]}
    done = run_sdk(tmp_path, SEEDED_BOT, start, ACT, END)
    assert "INFO ['game', 'limits', 'options', 'players', 'seat', 'seats', 'seed'] 7" in done.stderr
    assert "'owner': 'ann'" in done.stderr


@pytest.mark.parametrize("first", ["[1, 2]", "not json", '{"type": "start", "seed": true}'])
def test_an_odd_first_line_seeds_nothing_and_is_reported_by_serve(first):
    sdk.seed_random(first)  # must not raise
