"""`workers.info`: one shape of a bot's `setup(info)`, whoever starts the match."""

from __future__ import annotations

import random

import pytest

import engine
from bots.sdk import INFO_KEYS
from ladder.services import accounts
from workers import protocol
from workers.info import (
    HOUSE_OWNER,
    LOCAL_OWNER,
    LOCAL_VERSION,
    bot_seed,
    label_seat,
    local_name,
    match_infos,
    record_infos,
    seat,
)
from workers.limits import Limits
from workers.staging import BotSource, resolve

SEAT_TYPES = {"name": str, "owner": str, "version": int}


def shape(who: dict) -> dict:
    return {key: type(value) for key, value in who.items()}


@pytest.mark.parametrize(
    ("name", "owner", "version"),
    [(None, "demo", 1), ("", "demo", 1), ("x", None, 1), ("x", "demo", None), ("x", "demo", True),
     ("x", "demo", "1")],
)  # fmt: skip
def test_a_seat_with_a_field_missing_or_of_another_type_is_refused(name, owner, version):
    with pytest.raises(TypeError):
        seat(name, owner, version)


@pytest.mark.parametrize(
    ("path", "name"),
    [("greedy.py", "greedy"), ("x/greedy.zip", "greedy"), ("/a/b/mine/bot.py", "mine"),
     ("/a/b/mine", "mine"), ("bot.py", "bot"), ("/", "bot"), ("a/" + "n" * 80 + ".py", "n" * 60)],
)  # fmt: skip
def test_a_local_file_is_named_after_its_file_or_folder(path, name):
    assert local_name(path) == name


def test_every_kind_of_bot_gets_the_same_seat_shape(tmp_path):
    mine = tmp_path / "mine.py"
    mine.write_text("def act(view, legal):\n    return legal[0]\n")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "bot.py").write_text("def act(view, legal):\n    return legal[0]\n")
    seats = {
        "file": resolve(str(mine)).seat_info(),
        "folder": resolve(str(folder)).seat_info(),
        "house": resolve("manila/random").seat_info(),
        "house elsewhere": resolve("manila/greedy", "tradewinds").seat_info(),
        "stored": BotSource("alice/mine v3", mine, "mine", "alice", 3).seat_info(),
        "bare source": BotSource("label", mine).seat_info(),
    }
    assert all(shape(s) == SEAT_TYPES for s in seats.values())
    assert seats["file"] == {"name": "mine", "owner": LOCAL_OWNER, "version": LOCAL_VERSION}
    assert seats["folder"]["name"] == "folder"
    assert seats["house"] == {"name": "random", "owner": HOUSE_OWNER, "version": 1}
    assert seats["house elsewhere"] == {"name": "greedy", "owner": "tradewinds", "version": 1}
    assert seats["stored"] == {"name": "mine", "owner": "alice", "version": 3}


def test_the_house_owner_is_the_services_default_house_account():
    assert HOUSE_OWNER == accounts.HOUSE_USER


def test_match_infos_are_what_the_sdk_hands_setup():
    state = engine.get_game("manila").new_game(3, seed=4)
    who = [seat("a", "alice", 1), seat("random", "demo", 1), seat("b", "bob", 2)]
    limits = Limits(move_ms=700)
    infos = match_infos(state.game_name, 3, state.options, limits, state.seed, who)
    for i, info in enumerate(infos):
        assert tuple(info) == INFO_KEYS
        assert info == {
            "game": "manila",
            "seat": i,
            "players": 3,
            "options": dict(state.options),
            "limits": {"move_ms": 700, "bank_ms": 10_000, "init_ms": 5000},
            "seed": bot_seed(4, i),
            "seats": who,
        }
        # The start message carries the same fields: the SDK copies them into info.
        message = protocol.line({"type": "start", "protocol": 1, **info})
        assert protocol.start_from(info) == message
    assert len({info["seed"] for info in infos}) == 3
    with pytest.raises(ValueError, match="3 players but 2 seats"):
        match_infos("manila", 3, {}, limits, 4, who[:2])


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("demo/starter v1", ("starter", "demo", 1)),
        ("alice/my bot v12", ("my bot", "alice", 12)),
        ("manila/random", ("random", HOUSE_OWNER, 1)),
        ("/home/me/bots/mine.py", ("mine", LOCAL_OWNER, LOCAL_VERSION)),
        ("mine.zip", ("mine", LOCAL_OWNER, LOCAL_VERSION)),
        ("seat 2", ("seat 2", LOCAL_OWNER, LOCAL_VERSION)),
    ],
)
def test_an_old_records_labels_become_seats_of_the_one_shape(label, expected):
    assert label_seat(label) == dict(zip(("name", "owner", "version"), expected, strict=True))


def played(seed: int = 3) -> dict:
    state = engine.get_game("manila").new_game(3, seed=seed)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    return state.record()


def test_a_record_keeps_its_infos_and_an_old_one_gets_them_rebuilt():
    record = played()
    who = [label_seat(label) for label in ("demo/a v1", "manila/random", "bob/b v2")]
    infos = match_infos("manila", 3, record["options"], Limits(), record["seed"], who)
    new = {**record, "bot_infos": infos, "seats": ["x", "y", "z"]}
    assert record_infos(new) == infos  # as stored, whatever the labels say
    old = {**record, "seats": ["demo/a v1", "manila/random", "bob/b v2"]}
    assert record_infos(old) == infos
    odd = {**old, "bot_seeds": [7, 8, 9]}  # the seeds the record says win
    assert [info["seed"] for info in record_infos(odd)] == [7, 8, 9]
    assert engine.replay(new).result() == engine.replay(record).result()  # the engine ignores it
