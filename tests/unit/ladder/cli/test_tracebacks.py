"""A seat's traceback in the user's paths, not the sandbox's `/bot`."""

from __future__ import annotations

import zipfile

from ladder.cli.tracebacks import as_given, outcome_as_given
from workers import Outcome, resolve
from workers.staging import BotSource

TRACE = (
    "Traceback (most recent call last):\n"
    '  File "/bot/bot.py", line 6, in act\n'
    '  File "/bot/helpers/moves.py", line 2, in pick\n'
    "RuntimeError: my bug\n"
)


def test_a_one_file_bot_is_named_as_the_user_typed_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text("")
    shown = as_given(TRACE, resolve("mine.py"))
    assert 'File "mine.py", line 6, in act' in shown
    assert "/bot/" not in shown


def test_a_folder_or_zip_bot_names_each_file_inside_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot" / "bot.py").write_text("")
    shown = as_given(TRACE, resolve("mybot"))
    assert 'File "mybot/bot.py"' in shown and 'File "mybot/helpers/moves.py"' in shown
    with zipfile.ZipFile(tmp_path / "b.zip", "w") as zf:
        zf.writestr("bot.py", "")
    assert 'File "b.zip/helpers/moves.py"' in as_given(TRACE, resolve("b.zip"))


def test_a_house_bot_is_named_by_its_file_and_unsandboxed_slots_too():
    house = resolve("manila/starter")
    unsafe = TRACE.replace("/bot/", "/tmp/sbx-a1b2/b3/")
    shown = as_given(unsafe, house)
    assert f'File "{house.path}", line 6' in shown
    assert "sbx-" not in shown


def test_other_paths_and_words_are_left_alone(tmp_path):
    text = 'File "/usr/lib/python3/bot/x.py"; the /bots/ folder; robot /bot.py\n'
    assert as_given(text, BotSource("x.py", tmp_path / "x.py")) == text


def test_the_outcome_gets_each_seats_own_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("")
    match = Outcome(
        game="manila",
        seed=1,
        players=2,
        options={},
        ranks=[1, 2],
        scores=[1, 0],
        statuses=["ok", "crash"],
        replay={"seats": ["a.py", "b.py"]},
        errors=[None, "importing /bot/bot.py failed"],
        stderr=[TRACE, TRACE],
    )
    match = outcome_as_given(match, [resolve("a.py"), resolve("b.py")])
    assert 'File "a.py"' in match.stderr[0] and 'File "b.py"' in match.stderr[1]
    assert match.errors == (None, "importing b.py failed")


def test_a_bots_own_words_about_its_files_are_left_as_printed(tmp_path, monkeypatch):
    """Only a traceback's frames are rewritten in a stderr: what else a bot prints (its
    own `__file__`, a listing of /bot) reads the same as on the server."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text("")
    printed = "I am /bot/bot.py; /bot holds ['bot.py']\n" + TRACE
    match = Outcome(
        game="manila",
        seed=1,
        players=1,
        options={},
        ranks=[1],
        scores=[1],
        statuses=["crash"],
        replay={"seats": ["mine.py"]},
        errors=["importing /bot/bot.py failed"],
        stderr=[printed],
    )
    shown = outcome_as_given(match, [resolve("mine.py")])
    assert shown.stderr[0].startswith("I am /bot/bot.py; /bot holds ['bot.py']\n")
    assert 'File "mine.py", line 6, in act' in shown.stderr[0]
    assert shown.errors == ("importing mine.py failed",)
