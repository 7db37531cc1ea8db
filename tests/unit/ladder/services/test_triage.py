"""Crash triage, fault counts per version, and a bot's replays as one zip."""

from __future__ import annotations

import gzip
import io
import json
import zipfile

import pytest

from ladder.errors import Conflict, Forbidden
from ladder.models import Bot, BotVersion
from ladder.queries import boards as queries
from ladder.queries import candidates, replay_archive
from ladder.services import matches, triage
from tests.unit.ladder.conftest import make_active_bot, make_user
from tests.unit.ladder.helpers import play


@pytest.fixture
def three(session, config, alice, bob):
    carol = make_user(session, "carol")
    return [
        make_active_bot(session, config, u, name=f"{u.username}-bot") for u in (alice, bob, carol)
    ]


def paused(session, version) -> bool:
    session.expire_all()
    return session.get(BotVersion, version.id).paused_at is not None


def test_a_version_whose_last_five_ladder_matches_faulted_is_paused(session, config, three):
    crashing = three[0]
    for status in ("crash", "timeout", "crash", "crash"):
        play(session, config, three, [status, "ok", "ok"])
        assert not paused(session, crashing)
    last = play(session, config, three, ["illegal", "ok", "ok"])
    assert paused(session, crashing) and not paused(session, three[1])
    reason = session.get(BotVersion, crashing.id).paused_reason
    assert reason.startswith("its last 5 ladder matches all faulted (3 crash, 1 ")
    assert "1 timeout" in reason and "1 illegal" in reason
    assert f"match {last}, illegal: illegal on move 3" in reason
    ids = [c.version_id for c in candidates.ladder_candidates(session, config, "toyrace")]
    assert crashing.id not in ids and three[1].id in ids


@pytest.mark.parametrize(
    ("history", "expect"),
    [
        (["crash"] * 4 + ["ok"] + ["crash"] * 4, False),  # an ok match in the window
        (["crash"] * 4, False),  # too few matches yet
        (["crash"] * 6, True),
    ],
)
def test_only_a_full_window_of_faults_pauses(session, config, three, history, expect):
    for status in history:
        play(session, config, three, [status, "ok", "ok"])
    assert paused(session, three[0]) is expect


def test_matches_where_every_seat_faulted_and_challenges_do_not_count(session, config, three):
    for _ in range(5):
        play(session, config, three, ["crash", "crash", "crash"])  # the host, likelier
        play(session, config, three, ["crash", "ok", "ok"], ranked=False)  # a challenge
    assert not paused(session, three[0])


def test_zero_turns_triage_off(session, config, three):
    config["PAUSE_AFTER_FAULTS"] = 0
    for _ in range(6):
        play(session, config, three, ["crash", "ok", "ok"])
    assert not paused(session, three[0])


def test_the_owner_resumes_and_only_later_matches_count(session, config, three, alice, bob):
    for _ in range(5):
        play(session, config, three, ["crash", "ok", "ok"])
    with pytest.raises(Forbidden):
        triage.resume(session, bob, three[0].id)
    triage.resume(session, alice, three[0].id)
    session.commit()
    assert not paused(session, three[0])
    with pytest.raises(Conflict):
        triage.resume(session, alice, three[0].id)
    play(session, config, three, ["crash", "ok", "ok"])
    assert not paused(session, three[0])  # one fault since the resume, not five


def test_fault_counts_and_the_last_fault_per_version(session, config, three):
    play(session, config, three, ["ok", "ok", "ok"])
    play(session, config, three, ["crash", "ok", "timeout"])
    last = play(session, config, three, ["ok", "ok", "killed"])
    faults = queries.version_faults(session, three[0].bot_id, three[2].bot_id)
    mine = faults[three[0].id]
    assert mine["matches"] == 3
    assert mine["counts"] == {
        "ok": 2, "timeout": 0, "crash": 1, "invalid": 0, "illegal": 0, "killed": 0,
    }  # fmt: skip
    assert mine["last_fault"]["status"] == "crash" and mine["last_fault"]["seat"] == 0
    carol = faults[three[2].id]
    assert carol["last_fault"]["match_id"] == last and carol["last_fault"]["status"] == "killed"
    assert three[1].id not in faults


def test_a_bots_replays_zip_holds_each_replay_and_an_index(session, config, three):
    ids = [play(session, config, three, ["ok", "ok", "ok"]) for _ in range(3)]
    found = replay_archive.entries(session, three[0].bot_id, limit=2)
    assert [e.match_id for e in found] == ids[:0:-1]  # newest first, limited

    def load(match_id):
        return matches.replay_bytes(session, config, matches.get_match(session, match_id))

    bot = replay_archive.about(session.get(Bot, three[0].bot_id))
    data = b"".join(replay_archive.stream(found, load, bot))
    archive = zipfile.ZipFile(io.BytesIO(data))
    newest, second = (f"match-{i}.json.gz" for i in (ids[2], ids[1]))
    assert archive.namelist() == [newest, second, "index.json", "manifest.json"]
    record = json.loads(gzip.decompress(archive.read(f"match-{ids[2]}.json.gz")))
    assert record["game"] == "toyrace"
    index = json.loads(archive.read("index.json"))
    assert [m["match"] for m in index["matches"]] == [ids[2], ids[1]]
    assert index["matches"][0]["version"] == 1 and index["matches"][0]["status"] == "ok"
    assert replay_archive.entries(session, three[0].bot_id, version=2) == []
