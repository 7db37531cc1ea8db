"""The contract between the ladder and the runner: jobs, outcomes and seat statuses."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from workers import BadJob, BadOutcome, Job, JobSeat, Outcome, SeatStatus, run_job
from workers.bot_process import BotFault

SHA = "ab" * 32


def outcome_dict(**change) -> dict:
    """An outcome as the runner gives it: three seats, the last one timed out."""
    whole = {
        "rated": True,
        "unrated_reason": None,
        "game": "manila",
        "seed": 7,
        "players": 3,
        "options": {},
        "statuses": ["ok", "ok", "timeout"],
        "scores": [30, 12.5, 40],
        "ranks": [1, 2, 3],
        "errors": [None, None, "no move within 1000 ms"],
        "stderr": ["", "a warning\n", ""],
        "replay": {"game": "manila", "seed": 7, "seats": ["a", "b", "c"]},
    }
    return whole | change


def test_an_outcome_gives_back_exactly_the_dict_it_was_made_from():
    data = outcome_dict()
    outcome = Outcome.from_dict(data)
    assert outcome.to_dict() == data
    assert list(outcome.to_dict()) == list(data)  # the same keys in the same order
    assert json.dumps(outcome.to_dict()) == json.dumps(data)
    assert all(type(s) is str for s in outcome.to_dict()["statuses"])
    assert Outcome.from_dict(outcome.to_dict()) == outcome
    assert pickle.loads(pickle.dumps(outcome)) == outcome  # `ladder play --jobs` sends it


def test_an_outcome_holds_typed_fields_per_seat():
    outcome = Outcome.from_dict(outcome_dict())
    assert outcome.statuses == (SeatStatus.OK, SeatStatus.OK, SeatStatus.TIMEOUT)
    assert [s.faulted for s in outcome.statuses] == [False, False, True]
    assert outcome.ranks == (1, 2, 3) and outcome.labels == ("a", "b", "c")
    with pytest.raises(AttributeError):
        outcome.seed = 8  # frozen


def test_errors_and_stderr_may_be_left_out_of_a_stored_outcome():
    data = outcome_dict()
    del data["errors"], data["stderr"], data["rated"], data["options"]
    outcome = Outcome.from_dict(data)
    assert outcome.errors == outcome.stderr == (None, None, None)
    assert outcome.rated is True and outcome.options == {}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"players": 0}, "'players' is a positive integer"),
        ({"players": 2}, "has 2 players; its 'statuses' is not a list of 2"),
        ({"ranks": [1, 2]}, "'ranks' is not a list of 3"),
        ({"errors": None}, "'errors' is not a list of 3"),
        ({"statuses": ["ok", "ok", "asleep"]}, "unknown seat status 'asleep'"),
        ({"ranks": [1, 2, 4]}, "integers from 1 to 3"),
        ({"ranks": [True, 2, 3]}, "integers from 1 to 3"),
        ({"statuses": ["timeout", "ok", "ok"]}, "faulted seat must rank below every ok seat"),
        ({"stderr": ["", b"bytes", ""]}, "'stderr' holds something not a string"),
        ({"seed": "7"}, "'seed' is an integer"),
        ({"options": [1]}, "'options' is not a dict"),
        ({"replay": None}, "replay is not a dict"),
        ({"rated": "no"}, "'rated' is not a bool"),
        ({"rated": False, "unrated_reason": 7}, "'unrated_reason' is not a string"),
    ],
)
def test_a_malformed_outcome_is_refused_with_what_is_wrong(change, message):
    with pytest.raises(BadOutcome, match=message):
        Outcome.from_dict(outcome_dict(**change))


def test_an_outcome_missing_a_key_or_not_a_dict_is_refused():
    data = outcome_dict()
    del data["ranks"]
    with pytest.raises(BadOutcome, match="no 'ranks'"):
        Outcome.from_dict(data)
    with pytest.raises(BadOutcome, match="an outcome is a dict"):
        Outcome.from_dict([1, 2])


def test_a_bad_outcome_is_a_value_error_but_not_every_value_error_is_one():
    assert issubclass(BadOutcome, ValueError)
    assert not isinstance(ValueError("x"), BadOutcome)


def test_a_seat_status_is_its_string_everywhere():
    assert SeatStatus.CRASH == "crash" and f"{SeatStatus.CRASH}" == "crash"
    assert json.dumps({SeatStatus.OK: [SeatStatus.KILLED]}) == '{"ok": ["killed"]}'
    assert {"ok": 1}[SeatStatus.OK] == 1
    assert [s.value for s in SeatStatus] == [
        "ok", "timeout", "crash", "invalid", "illegal", "killed",
    ]  # fmt: skip
    assert BotFault("timeout", "slow").status is SeatStatus.TIMEOUT
    with pytest.raises(ValueError):
        BotFault("asleep", "?")


def test_a_job_holds_its_seats_in_seat_order():
    job = Job(
        "manila",
        4,
        (
            JobSeat(1, "house", path="/bots/random.py"),
            JobSeat(0, "alice/a v1", key="bots/a.py", sha256=SHA, kind="py"),
        ),
    )
    assert [s.seat for s in job.seats] == [0, 1] and job.players == 2
    assert job.seats[0].stored and not job.seats[1].stored
    assert job.seats[1].path == Path("/bots/random.py")
    here = job.with_seats([s.located("/cache/a.py") if s.stored else s for s in job.seats])
    assert here.seats[0].path == Path("/cache/a.py") and job.seats[0].path is None
    assert here.options == {} and here.seed == 4


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        ([JobSeat(1, "b", path="b.py")], r"job seats must be 0..0, not \[1\]"),
        ([JobSeat(0, "a", path="a.py"), JobSeat(0, "b", path="b.py")], "must be 0..1"),
    ],
)
def test_a_job_with_seats_missing_or_doubled_is_refused(seats, message):
    with pytest.raises(BadJob, match=message):
        Job("manila", 1, tuple(seats))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"seat": -1, "label": "a", "path": "a.py"}, "integer from 0"),
        ({"seat": 0, "label": "", "path": "a.py"}, "label is a non-empty string"),
        ({"seat": 0, "label": "a"}, "neither a path nor a stored bot's key"),
        ({"seat": 0, "label": "a", "key": "k", "sha256": SHA, "kind": "exe"}, "sha256 and a kind"),
        ({"seat": 0, "label": "a", "key": "k", "kind": "py"}, "sha256 and a kind"),
    ],
)
def test_a_seat_that_cannot_be_played_is_refused(fields, message):
    with pytest.raises(BadJob, match=message):
        JobSeat(**fields)


def test_run_job_refuses_a_seat_that_is_only_a_key_before_starting_anything():
    job = Job(
        "manila", 1, tuple(JobSeat(i, f"s{i}", key="k", sha256=SHA, kind="py") for i in range(3))
    )
    with pytest.raises(BadJob, match=r"seat 0 \(s0\) has no file on this host"):
        run_job(job)
