"""The match runner's parts that need no sandbox: ranks, limits, protocol, fallback, staging."""

from __future__ import annotations

import json
import os
import stat
import sys
import zipfile
from pathlib import Path

import pytest

import engine
from ladder.play import Plan, json_line, save_replay, tally
from workers import protocol, sandbox
from workers.bot_process import BotFault
from workers.fallback import Fallback
from workers.limits import Limits
from workers.match import fault_ranks, run_match
from workers.sandbox import SandboxUnavailable
from workers.staging import BotSource, extract_zip, house_bots, install_sdk, resolve, stage


@pytest.mark.parametrize(
    ("engine_ranks", "statuses", "expected"),
    [
        ([1, 2, 3], ["ok", "ok", "ok"], [1, 2, 3]),
        ([1, 2, 3], ["timeout", "ok", "ok"], [3, 1, 2]),
        ([1, 1, 3, 4], ["ok", "ok", "crash", "ok"], [1, 1, 4, 3]),
        ([4, 3, 2, 1], ["ok", "illegal", "ok", "killed"], [2, 3, 1, 3]),
        ([2, 1, 3], ["crash", "crash", "crash"], [1, 1, 1]),
        ([3, 2, 1], ["invalid", "ok", "ok"], [3, 2, 1]),
    ],
)
def test_faulted_seats_rank_below_every_ok_seat_and_share_a_rank(engine_ranks, statuses, expected):
    assert fault_ranks(engine_ranks, statuses) == expected


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"move_ms": 0}, "move_ms must be a positive integer"),
        ({"bank_ms": -5}, "bank_ms must be a positive integer"),
        ({"memory_mb": 1.5}, "memory_mb must be a positive integer"),
        ({"cpu_s": True}, "cpu_s must be a positive integer"),
        ({"move_sec": 3}, "unknown limit"),
    ],
)
def test_bad_limits_are_refused(values, message):
    with pytest.raises(ValueError, match=message):
        Limits.from_dict(values)


def test_limits_told_to_the_bot_are_the_three_wire_ones():
    assert Limits.from_dict({"move_ms": 7}).wire() == {
        "move_ms": 7,
        "bank_ms": 10_000,
        "init_ms": 5000,
    }


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"not json", "unparsable"),
        (b"\xff\xfe", "unparsable"),
        (b'["action"]', "expected a 'action' message"),
        (b'{"type": "ready"}', "expected a 'action' message"),
        (b'{"type": "action"}', "must be a JSON object"),
        (b'{"type": "action", "action": [1]}', "must be a JSON object"),
        (b'{"type": "action", "action": "a"}', "must be a JSON object"),
    ],
)
def test_replies_that_are_not_actions_are_invalid(raw, reason):
    with pytest.raises(BotFault) as fault:
        protocol.action(raw, [{"x": 1}])
    assert fault.value.status == "invalid"
    assert reason in fault.value.reason


def test_protocol_lines_round_trip():
    legal = [{"x": 1}]
    assert protocol.action(b'{"type":"action","action":{"x":1}}', legal) is legal[0]
    protocol.ready(b'{"type":"ready"}')
    with pytest.raises(BotFault):
        protocol.ready(b'{"type":"action"}')
    message = protocol.act({"v": 1}, [{"a": 1}], 1500)
    assert message.endswith(b"\n") and message.count(b"\n") == 1
    assert json.loads(message) == {
        "type": "act", "view": {"v": 1}, "legal": [{"a": 1}], "time_left_ms": 1500
    }  # fmt: skip
    start = json.loads(protocol.start("manila", 2, 4, {}, {"move_ms": 1}))
    assert start == {"type": "start", "protocol": 1, "game": "manila", "seat": 2, "players": 4,
                     "options": {}, "limits": {"move_ms": 1}}  # fmt: skip


def test_fallback_is_deterministic_per_seed():
    legal = [{"n": i} for i in range(10)]
    picks = [Fallback(7).choose(legal) for _ in range(3)]
    assert picks[0] == picks[1] == picks[2]
    run_a = Fallback(7)
    run_b = Fallback(8)
    seq_a = [run_a.choose(legal) for _ in range(20)]
    seq_b = [run_b.choose(legal) for _ in range(20)]
    assert seq_a != seq_b
    assert all(choice in legal for choice in seq_a)
    with pytest.raises(ValueError, match="no legal action"):
        Fallback(1).choose([])


def test_house_bots_resolve_by_name_and_unknown_names_list_them():
    assert {f"{g}/random" for g in ("manila", "meuterer", "caravelas")} <= set(house_bots())
    assert resolve("manila/random").label == "manila/random"
    with pytest.raises(ValueError, match="manila/random"):
        resolve("manila/nonesuch")


def test_resolve_refuses_what_is_not_a_bot(tmp_path):
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(ValueError, match=r"a \.py file, a \.zip or a directory"):
        resolve(str(tmp_path / "notes.txt"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"has no bot\.py"):
        resolve(str(tmp_path / "empty"))


def make_zip(path, entries: dict) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in entries.items():
            zf.writestr(name, text)


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"../evil.py": "x", "bot.py": ""}, "unsafe path"),
        ({"/etc/evil": "x", "bot.py": ""}, "unsafe path"),
        ({"helper.py": ""}, "no bot.py at its root"),
    ],
)
def test_unsafe_or_incomplete_zips_are_refused(tmp_path, entries, message):
    archive = tmp_path / "bot.zip"
    make_zip(archive, entries)
    dest = tmp_path / "out"
    dest.mkdir()
    with pytest.raises(ValueError, match=message):
        extract_zip(archive, dest)
    assert not (tmp_path / "evil.py").exists()


def test_a_corrupt_zip_is_refused(tmp_path):
    archive = tmp_path / "bot.zip"
    archive.write_bytes(b"PK not really")
    with pytest.raises(ValueError, match="not a valid zip"):
        extract_zip(archive, tmp_path)


def test_staging_replaces_a_slots_folder_with_a_private_copy(tmp_path):
    archive = tmp_path / "bot.zip"
    make_zip(archive, {"bot.py": "def act(v, legal): return legal[0]\n", "data/table.json": "{}"})
    slot = tmp_path / "slot0"
    slot.mkdir()
    stage(BotSource("zip", archive), slot, None)
    assert sorted(os.listdir(slot)) == ["bot.py", "data"]
    stage(resolve("manila/random"), slot, None)  # the next match: nothing of the last bot left
    assert os.listdir(slot) == ["bot.py"]
    assert "random" in (slot / "bot.py").read_text()
    assert not stat.S_IMODE(os.stat(slot).st_mode) & 0o022  # nobody else may write
    bad = tmp_path / "bad.zip"
    make_zip(bad, {"helper.py": "x = 1\n"})
    with pytest.raises(ValueError, match=r"no bot\.py"):
        stage(BotSource("bad", bad), slot, None)


def test_the_sdk_folder_holds_the_sdk_and_the_zygote_with_bytecode(tmp_path):
    install_sdk(tmp_path / "sdk")
    names = sorted(p.name for p in (tmp_path / "sdk").iterdir())
    assert names == ["__pycache__", "tradewinds_sdk.py", "tradewinds_zygote.py"]
    assert len(list((tmp_path / "sdk" / "__pycache__").iterdir())) == 2


def test_without_bwrap_the_runtime_refuses_unless_unsafe(monkeypatch, capsys):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        sandbox.runtime()
    assert sandbox.runtime(unsafe=True).bwrap is None
    assert "WITHOUT a sandbox" in capsys.readouterr().err


@pytest.mark.skipif(not engine.game_names(), reason="no game registered")
def test_run_match_refuses_bad_arguments_before_starting_any_bot():
    game = engine.game_names()[0]
    spec = engine.get_game(game)
    with pytest.raises(ValueError, match="unknown game"):
        run_match("chess", ["manila/random"] * 3, seed=1)
    with pytest.raises(ValueError, match="players"):
        run_match(game, [f"{game}/random"] * (spec.max_players + 1), seed=1)
    with pytest.raises(ValueError, match="no bot"):
        run_match(game, ["nowhere/bot"] * spec.min_players, seed=1)


def outcome(seed: int, labels: list[str], ranks: list[int], statuses: list[str]) -> dict:
    scores = [10 * (len(ranks) - r) for r in ranks]
    return {
        "seed": seed,
        "ranks": ranks,
        "scores": scores,
        "statuses": statuses,
        "replay": {"seats": labels, "seed": seed},
        "stderr": ["secret"] * len(ranks),
    }


def test_tally_sums_per_bot_label():
    outcomes = [
        outcome(1, ["a", "b", "b"], [1, 2, 3], ["ok", "ok", "ok"]),
        outcome(2, ["b", "b", "a"], [1, 1, 3], ["ok", "ok", "timeout"]),
    ]
    totals = tally(outcomes)
    assert (totals["a"].games, totals["a"].wins, totals["a"].rank_sum) == (2, 1, 4)
    assert (totals["b"].games, totals["b"].wins, totals["b"].rank_sum) == (4, 2, 7)
    assert totals["a"].faults == {"timeout": 1} and totals["b"].faults == {}


def test_json_line_has_exactly_the_fixed_keys():
    line = json.loads(json_line(outcome(3, ["a", "b"], [1, 2], ["ok", "ok"])))
    assert set(line) == {"seed", "ranks", "scores", "statuses", "replay"}
    assert "secret" not in json.dumps(line)


def test_seats_rotate_from_game_to_game():
    bots = tuple(BotSource(x, None) for x in "abc")
    plan = Plan("g", bots, seed=1, games=3, limits=Limits())
    assert [[b.label for b in plan.seating(k)] for k in range(4)] == [
        ["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"],
    ]  # fmt: skip


def test_save_replay_one_file_or_a_directory(tmp_path):
    save_replay(tmp_path / "r.json", outcome(4, ["a"], [1], ["ok"]), several=False)
    assert json.loads((tmp_path / "r.json").read_text())["seed"] == 4
    save_replay(tmp_path / "many", outcome(5, ["a"], [1], ["ok"]), several=True)
    assert json.loads((tmp_path / "many" / "seed-5.json").read_text())["seed"] == 5


def test_a_bwrap_that_cannot_make_namespaces_is_refused_with_its_reason(monkeypatch, tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: str(fake))
    sandbox._probe.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="No permissions to create new namespace"):
            sandbox.runtime()
    finally:
        sandbox._probe.cache_clear()


def test_a_shared_house_bot_serves_every_game_and_a_games_own_comes_first():
    from workers.staging import HOUSE_DIR, house_file

    for game in engine.game_names():
        assert house_file(game, "random") == HOUSE_DIR / "random.py"
        assert house_file(game, "greedy") == HOUSE_DIR / game / "greedy.py"
    assert house_file("chess", "random") is None
    assert house_file("manila", "no-such-bot") is None
    with pytest.raises(ValueError, match="nor a house bot"):
        resolve("chess/random")


def test_a_sandbox_that_cannot_start_is_an_infrastructure_error_with_its_reason(monkeypatch):
    from workers import pool as pools
    from workers import slots

    complain = "import sys; sys.stderr.write('no namespaces here'); sys.exit(1)"
    failing = [sys.executable, "-c", complain]
    monkeypatch.setattr(slots, "bare_command", lambda *args: failing)
    rt = sandbox.Runtime(sys.executable, None, False)
    pool = pools.SlotPool(rt)
    try:
        with (
            pytest.raises(SandboxUnavailable, match="did not start: no namespaces here"),
            pool.lease(1),
        ):
            pass
        assert pool.pids() == set()
    finally:
        pool.close()
    assert not pool.root.exists()


def test_sandbox_folders_go_where_other_uids_can_reach_them():
    import shutil
    import tempfile

    from workers.pool import reachable_temp_dir

    top = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        top.chmod(0o711)
        (top / "open").mkdir(mode=0o711)
        (top / "private").mkdir(mode=0o700)
        (top / "private" / "inner").mkdir(mode=0o711)
        assert reachable_temp_dir(str(top / "open")) == str(top / "open")
        assert reachable_temp_dir(str(top / "private" / "inner")) == "/tmp"
        assert reachable_temp_dir(str(top / "missing")) == "/tmp"
    finally:
        shutil.rmtree(top)


def test_folders_of_dead_pools_are_swept_and_live_ones_kept(tmp_path):
    from workers.pool import OWNER_FILE, ROOT_PREFIX, remove_stale_roots

    dead = next(p for p in range(4_000_000, 4_100_000) if not Path(f"/proc/{p}").exists())
    stale = tmp_path / f"{ROOT_PREFIX}abc"
    live = tmp_path / f"{ROOT_PREFIX}def"
    other = tmp_path / "unrelated-123-x"
    for folder, owner in ((stale, dead), (live, os.getpid()), (other, dead)):
        (folder / "sdk").mkdir(parents=True)
        (folder / OWNER_FILE).write_text(str(owner))
    remove_stale_roots(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name])


def test_the_zygote_answers_a_bad_request_with_an_error_and_serves_on(tmp_path):
    import socket
    import subprocess

    install_sdk(tmp_path / "sdk")
    ours, theirs = socket.socketpair()
    command = sandbox.bare_command(sandbox.Runtime(sys.executable, None, False),
                                   str(tmp_path / "sdk"), theirs.fileno())  # fmt: skip
    zygote = subprocess.Popen(command, pass_fds=(theirs.fileno(),))
    theirs.close()
    replies = ours.makefile("rb")
    try:
        assert replies.readline() == b"ready\n"
        pipes = [os.pipe() for _ in range(3)]
        ends = [r for r, _ in pipes]
        socket.send_fds(ours, [b"spawn as=1\0/bot\0/tmp"], ends[:2])
        assert replies.readline() == b"error expected 3 descriptors, got 2\n"
        socket.send_fds(ours, [b"fork please"], ends)
        assert replies.readline() == b"error unknown request b'fork'\n"
        assert zygote.poll() is None  # still serving
    finally:
        replies.close()
        ours.close()
        for read, write in pipes:
            os.close(read)
            os.close(write)
    assert zygote.wait(timeout=10) == 0  # the runner hung up: the zygote ends


@pytest.mark.parametrize(
    ("raw", "status", "reason"),
    [
        (b'{"type":"action","action":{"n":41.0}}', "illegal", "types"),
        (b'{"type":"action","action":{"n":true}}', "illegal", "not a legal action"),
        (b'{"type":"action","action":{"n":"41"}}', "illegal", "not a legal action"),
        (b'{"type":"action","action":{"n":41,"x":1}}', "illegal", "not a legal action"),
        (b'{"type":"action","action":{"a":' + b"[" * 5000 + b"]" * 5000 + b"}}", "invalid",
         "nested deeper"),
        (b'{"type":"action","action":{"a":' + b"[" * 40 + b"]" * 40 + b"}}", "invalid", "nested"),
        (b"[" * 100_000, "invalid", "nested deeper"),
    ],
)  # fmt: skip
def test_a_reply_is_legal_only_as_json_writes_a_legal_action(raw, status, reason):
    with pytest.raises(BotFault) as fault:
        protocol.action(raw, [{"n": 1}, {"n": 41}])
    assert (fault.value.status, reason in fault.value.reason) == (status, True)


def test_the_legal_dict_itself_is_returned_and_brackets_inside_strings_do_not_count():
    legal = [{"say": "[[[[" * 50}]
    raw = json.dumps({"type": "action", "action": {"say": "[[[[" * 50}}).encode()
    assert protocol.action(raw, legal) is legal[0]
    assert protocol.depth(b'{"a":[[1]],"b":"]]]]"}') == 0
    assert protocol.depth(b'{"a":' + b"[" * 40 + b"]" * 40 + b',"b":"[[[["}') == 41


def test_any_failure_to_decode_a_reply_is_the_bots_fault(monkeypatch):
    def explode(raw):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(protocol.json, "loads", explode)
    with pytest.raises(BotFault) as fault:
        protocol.ready(b'{"type":"ready"}')
    assert fault.value.status == "invalid"
