"""A root worker's log: no advice against root for a JSON-only worker, a refusal for pickle.

Celery checks privileges when a worker starts; the check runs here in a fresh
interpreter with every warning an error, after the worker app is imported as
`celery -A ladder.jobs.worker_app worker` imports it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ladder import create_app

CHECK = """
import sys
import ladder.jobs.worker_app as worker_app
from celery.exceptions import SecurityError
from celery.platforms import check_privileges

accept = worker_app.celery.conf.accept_content if sys.argv[1] == "app" else ["pickle"]
try:
    check_privileges(accept)
except SecurityError as refused:
    sys.exit("refused: " + str(refused).splitlines()[0])
"""


def _check(accept: str, tmp_path) -> subprocess.CompletedProcess:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"REDIS_URL", "C_FORCE_ROOT", "PYTHONWARNINGS"}
    }
    env.update(LADDER_VAR=str(tmp_path), DATABASE_URL=f"sqlite:///{tmp_path / 'ladder.sqlite3'}")
    return subprocess.run(
        [sys.executable, "-W", "error", "-c", CHECK, accept],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_messages_are_json_only(tmp_path):
    database = f"sqlite:///{tmp_path / 'ladder.sqlite3'}"
    app = create_app({"TESTING": True, "SECRET_KEY": "test-secret", "DATABASE_URL": database})
    conf = app.extensions["celery"].conf
    assert list(conf.accept_content) == ["json"]
    assert conf.task_serializer == "json"


@pytest.mark.skipif(os.geteuid() != 0, reason="Celery checks privileges only for root")
def test_a_root_worker_accepting_json_starts_without_a_warning(tmp_path):
    done = _check("app", tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="Celery checks privileges only for root")
def test_a_root_worker_accepting_pickle_is_still_refused(tmp_path):
    done = _check("pickle", tmp_path)
    assert done.returncode == 1
    assert "refused:" in done.stderr
