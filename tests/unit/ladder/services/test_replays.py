"""services.replays: records rebuilt by the engine, checked, and cut into frames."""

from __future__ import annotations

import gzip
import json
import random

import pytest

import engine
from ladder.queries import replays
from ladder.queries.replays import ReplayError


def played(name: str, n: int, seed: int = 4) -> dict:
    """The record of a random game played to the end, with the ladder's extra fields."""
    state = engine.get_game(name).new_game(n, seed=seed)
    chooser = random.Random(seed)
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
    record = state.record()
    record.update(seats=[f"bot{i} v1" for i in range(n)], statuses=["ok"] * n)
    return record


@pytest.fixture(scope="module")
def manila():
    return played("manila", 3)


def states_along(record: dict):
    """Every state of a record, step 0 to the end (a fresh engine, not the service)."""
    state = engine.get_game(record["game"]).new_game(record["players"], seed=record["seed"])
    yield state
    for _seat, action in record["actions"]:
        state.apply(action)
        yield state


@pytest.mark.parametrize("name", engine.game_names())
def test_frames_are_what_the_engine_shows(name):
    record = played(name, engine.get_game(name).min_players)
    replay = replays.load(record)
    assert replay.finished and replay.steps == len(record["actions"])
    spectator = replays.frames(replay, "spectator", 0, replays.MAX_CHUNK)
    seat1 = replays.frames(replay, 1, 0, replays.MAX_CHUNK)
    for step, state in enumerate(states_along(record)):
        if step >= replays.MAX_CHUNK:
            break
        assert spectator["frames"][step]["state"] == state.spectate()
        assert seat1["frames"][step]["state"] == state.view(1)
        assert spectator["frames"][step]["to_move"] == state.current_player()
    first, second = spectator["frames"][0], spectator["frames"][1]
    assert (first["step"], first["seat"], first["action"]) == (0, None, None)
    assert [second["seat"], second["action"]] == record["actions"][0]


def test_chunks_join_up_and_stop_at_the_end(manila):
    replay = replays.load(manila)
    whole = replays.frames(replay, 0, 0, replays.MAX_CHUNK)["frames"]
    assert len(whole) == replay.steps + 1  # a Manila game is shorter than a chunk
    parts = []
    for start in range(0, replay.steps + 1, 40):
        chunk = replays.frames(replay, 0, start, 40)
        assert chunk["start"] == start and chunk["steps"] == replay.steps
        parts += chunk["frames"]
    assert parts == whole
    last = replays.frames(replay, 0, replay.steps, 40)["frames"]
    assert [f["step"] for f in last] == [replay.steps]


def test_frame_events_are_what_each_move_logged(manila):
    replay = replays.load(manila)
    frames = replays.frames(replay, "spectator", 0, replays.MAX_CHUNK)["frames"]
    setup = len(next(states_along(manila)).log)
    assert frames[0]["events"] == []
    assert [e for f in frames for e in f["events"]] == replay.final.log[setup:]
    assert all(f["events"] for f in frames[1:] if f["action"]["type"] == "bid")


def test_summary_lists_moves_seats_and_perspectives(manila):
    summary = replays.summary(replays.load(manila))
    assert summary["perspectives"] == ["spectator", "0", "1", "2"]
    assert summary["seats"] == ["bot0 v1", "bot1 v1", "bot2 v1"]
    assert len(summary["moves"]) == summary["steps"] == len(manila["actions"])
    move = summary["moves"][0]
    assert [move["seat"], move["action"]] == manila["actions"][0] and move["step"] == 1
    assert summary["result"] == manila["result"] and summary["board"] is None
    json.dumps(summary)


def test_summary_gives_each_moves_wall_and_cpu_time(manila):
    steps = len(manila["actions"])
    record = dict(manila)
    record["decision_ms"] = [None, *[1.25] * (steps - 1)]  # the first move: the fallback's
    record["decision_cpu_ms"] = [None, 0.5, True, -1, *[0.75] * (steps - 4)]
    summary = replays.summary(replays.load(record))
    assert summary["timed"] is True
    moves = summary["moves"]
    assert (moves[0]["ms"], moves[0]["cpu_ms"]) == (None, None)
    assert (moves[1]["ms"], moves[1]["cpu_ms"]) == (1.25, 0.5)
    # Anything but a plain non-negative number is unknown (an uploaded file may hold anything).
    assert moves[2]["cpu_ms"] is None and moves[3]["cpu_ms"] is None
    assert moves[4]["cpu_ms"] == 0.75
    json.dumps(summary)


def test_an_older_replay_without_times_still_loads(manila):
    record = {k: v for k, v in manila.items() if k not in ("decision_ms", "decision_cpu_ms")}
    summary = replays.summary(replays.load(record))
    assert summary["timed"] is False
    assert all(m["ms"] is None and m["cpu_ms"] is None for m in summary["moves"])
    # Wall times without CPU times (replays from before CPU was measured).
    record["decision_ms"] = [2.0] * len(record["actions"])
    record["decision_cpu_ms"] = [1.0]  # the wrong length: ignored
    summary = replays.summary(replays.load(record))
    assert summary["timed"] is True
    assert {(m["ms"], m["cpu_ms"]) for m in summary["moves"]} == {(2.0, None)}


def test_caravelas_summary_carries_the_map():
    board = replays.board_for("caravelas")
    assert board["svg"].startswith("<svg") and "lisboa" in board["where"]
    x, y = board["where"]["lisboa"]
    assert f'cx="{x:.1f}" cy="{y:.1f}"' in board["svg"]


def test_an_unfinished_record_has_no_spectator(manila):
    cut = {**manila, "actions": manila["actions"][:10], "result": None}
    replay = replays.load(cut)
    assert not replay.finished and replay.perspectives() == ["0", "1", "2"]
    with pytest.raises(ReplayError, match="finished games only"):
        replays.parse_perspective("spectator", replay)
    assert replays.parse_perspective("2", replay) == 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: [], "JSON object"),
        (lambda r: {**r, "game": "chess"}, "unknown game"),
        (lambda r: {k: v for k, v in r.items() if k != "seed"}, "no 'seed'"),
        (lambda r: {**r, "engine_version": "manila-0"}, "engine 'manila-0'"),
        (lambda r: {**r, "players": 9}, "cannot start"),
        (lambda r: {**r, "options": {"speed": 1}}, "cannot start"),
        (lambda r: {**r, "options": []}, "'options' must be"),
        (lambda r: {**r, "actions": "all of them"}, "'actions' must be"),
        (lambda r: {**r, "actions": [[0], *r["actions"][1:]]}, "move 0 is not"),
        (lambda r: {**r, "actions": [[1, r["actions"][0][1]]]}, "move 0 is recorded for seat 1"),
        (lambda r: {**r, "actions": [[r["actions"][0][0], {"type": "fly"}]]}, "move 0 is illegal"),
        (lambda r: {**r, "result": {"scores": [1, 2, 3], "ranks": [3, 2, 1]}}, "result is not"),
    ],
)
def test_bad_records_are_refused_with_the_reason(manila, change, message):
    with pytest.raises(ReplayError, match=message):
        replays.load(change(json.loads(json.dumps(manila))))


def test_a_record_of_another_game_is_refused_where_a_game_is_expected(manila):
    with pytest.raises(ReplayError, match="not 'caravelas'"):
        replays.load(manila, game="caravelas")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"\x89PNG\r\n", "not JSON"),
        (b'{"game": ', "not JSON"),
        (b"\x1f\x8b\x08\x00garbage", "does not unzip"),
        (b"x" * (replays.MAX_FILE_BYTES + 1), "at most 512 KB"),
        (gzip.compress(b" " * (replays.MAX_JSON_BYTES + 10)), "too big once unzipped"),
    ],
    ids=["empty", "binary", "cut", "bad-gzip", "too-big", "zip-bomb"],
)
def test_bad_files_are_refused(data, message):
    with pytest.raises(ReplayError, match=message):
        replays.parse_file(data)


def test_plain_and_gzipped_files_read_the_same(manila):
    plain = json.dumps(manila, indent=1).encode()
    assert replays.parse_file(plain) == replays.parse_file(gzip.compress(plain)) == manila


@pytest.mark.parametrize(
    ("start", "count", "message"),
    [
        ("-1", "5", "start from 0"),
        ("x", "5", "whole numbers"),
        ("0", "0", "count must"),
        ("0", str(replays.MAX_CHUNK + 1), "count must"),
        ("100000", "5", "start must"),
    ],
)
def test_bad_windows_are_refused(manila, start, count, message):
    with pytest.raises(ReplayError, match=message):
        replays.parse_window(start, count, replays.load(manila))


@pytest.mark.parametrize("raw", ["3", "-1", "seat", "1.0"])
def test_bad_perspectives_are_refused(manila, raw):
    with pytest.raises(ReplayError, match="view must be"):
        replays.parse_perspective(raw, replays.load(manila))


def test_action_text_reads_type_then_fields():
    assert replays.action_text({"type": "bid", "amount": 5}) == "bid amount=5"
    assert replays.action_text({"type": "load", "goods": ["jade"]}) == 'load goods=["jade"]'
    assert replays.action_text({"add": 2}) == "add=2"


def test_action_text_has_one_field_order_whatever_the_records():
    """A bot may send its keys in any order; the move list reads them one way."""
    engine_order = {"type": "place", "space": "boat", "good": "jade"}
    bot_order = {"good": "jade", "space": "boat", "type": "place"}
    assert replays.action_text(engine_order) == replays.action_text(bot_order)
    assert replays.action_text(bot_order) == "place good=jade space=boat"
    start = {"type": "start", "positions": {"silk": 4, "jade": 3}}
    assert replays.action_text(start) == 'start positions={"jade": 3, "silk": 4}'


PAUSES = [("manila", "prices", 4), ("meuterer", "sail", 3)]


@pytest.mark.parametrize(("name", "ended", "players"), PAUSES)
def test_a_move_that_ends_a_voyage_or_round_shows_the_board_before_it_is_cleared(
    name, ended, players
):
    record = played(name, players)
    replay = replays.load(record)
    shown = replays.frames(replay, "spectator", 0, replays.MAX_CHUNK)["frames"]
    paused = [f for f in shown if "pause" in f]
    assert [f["step"] for f in paused] == replays.summary(replay)["pauses"] == replay.pauses
    assert len(paused) >= 2  # several voyages or rounds, each ends once
    for frame in paused:
        pause = frame["pause"]
        # The pause stops right after the event that settles the voyage or round...
        assert frame["events"][pause["events"] - 1]["event"] == ended
        assert ended not in [e["event"] for e in frame["events"][pause["events"] :]]
        # ...and its board is not the one the move leaves behind.
        before, after = pause["state"], frame["state"]
        assert before != after
        json.dumps(pause)
        if name == "manila":
            assert before["boats"] and all(boat["berth"] for boat in before["boats"])
            assert after["voyage"] == before["voyage"] + 1 or frame["step"] == replay.steps
        else:
            assert before["characters"] is not None  # revealed at the round's end
            # The next round, or the stevedore discarding before it, or the end.
            assert after["round"] == before["round"] + 1 or after["phase"] in ("discard", "over")
            assert after["table"] == []  # the cards of the round are discarded
    # A seat's frames pause at the same steps, each from its own view.
    seat = replays.frames(replay, 1, 0, replays.MAX_CHUNK)["frames"]
    assert [f["step"] for f in seat if "pause" in f] == replay.pauses
    assert all(f["pause"]["state"]["seat"] == 1 for f in seat if "pause" in f)


def test_no_pause_at_the_end_when_the_final_board_is_the_settled_one():
    """Manila ends with a voyage's settlement: the last board is already that one."""
    replay = replays.load(played("manila", 3))
    last = replays.frames(replay, "spectator", replay.steps, 1)["frames"][-1]
    assert "pause" not in last and replay.steps not in replay.pauses
    assert [e["event"] for e in last["events"]][-2:] == ["prices", "game_over"]


def test_a_chunk_pauses_only_inside_its_own_steps(manila):
    replay = replays.load(manila)
    first = replay.pauses[0]
    chunk = replays.frames(replay, "spectator", first + 1, 40)["frames"]
    assert all(f["step"] > first for f in chunk)
    assert [f["step"] for f in chunk if "pause" in f] == [
        s for s in replay.pauses if first < s <= first + 40
    ]


def test_caravelas_has_no_pauses():
    replay = replays.load(played("caravelas", 2))
    assert replay.pauses == [] and replays.summary(replay)["pauses"] == []


def test_summary_ranks_are_the_ladders_when_recorded(manila):
    engine_ranks = manila["result"]["ranks"]
    assert replays.summary(replays.load(manila))["ranks"] == engine_ranks
    # A faulted seat ranks last, whatever it scored: the ladder's ranks win.
    faulted = {**manila, "ranks": [3, 1, 2], "statuses": ["crash", "ok", "ok"]}
    summary = replays.summary(replays.load(faulted))
    assert summary["ranks"] == [3, 1, 2] and summary["statuses"] == ["crash", "ok", "ok"]
    assert summary["result"]["scores"] == manila["result"]["scores"]
    assert all(type(score) is int for score in summary["result"]["scores"])
    # Ranks or statuses a file got wrong are not shown.
    odd = {**manila, "ranks": [1, "2", 9], "statuses": ["ok", 5, "ok"]}
    summary = replays.summary(replays.load(odd))
    assert summary["ranks"] == engine_ranks and summary["statuses"] is None
    cut = replays.load({**manila, "actions": manila["actions"][:10], "result": None})
    assert replays.summary(cut)["ranks"] is None


@pytest.mark.parametrize(("game", "old"), [("caravelas", "caravelas-1"), ("manila", "manila-1")])
def test_a_record_of_an_older_engine_version_loads_and_plays_under_its_own_rules(game, old):
    """Old match pages keep working: the record replays, and its frames, by its own rules."""
    state = engine.get_game(game).new_game(2 if game == "caravelas" else 3, seed=4, version=old)
    chooser = random.Random(4)
    while not state.is_over():
        state.apply(chooser.choice(state.legal_actions()))
    record = state.record()
    assert record["engine_version"] == old
    loaded = replays.load(record)
    assert loaded.final.result() == state.result()
    shown = replays.frames(loaded, "spectator", 0, loaded.steps + 1)
    assert len(shown["frames"]) == loaded.steps + 1
