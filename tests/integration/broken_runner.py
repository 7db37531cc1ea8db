"""A Celery worker whose match runner always raises, for the bounded-attempts tests.

The one fake in those tests is the failure itself: `ladder.services.bot_files.run_job`
(what plays validations and matches) raises the error named by BROKEN_RUNNER;
everything else (Redis, Celery, retries, leases, the scheduler) is real.

    python -m tests.integration.broken_runner -A ladder.jobs.worker_app worker ...
"""

from __future__ import annotations

import os
import sys

FAILURES = {
    "oserror": lambda: OSError(5, "Input/output error (made up by the test)"),
    "runtime": lambda: RuntimeError("the runner tripped over a reply (made up by the test)"),
}


def broken_run_job(job, limits, unsafe):
    raise FAILURES[os.environ["BROKEN_RUNNER"]]()


if __name__ == "__main__":
    from celery.__main__ import main

    from ladder.services import bot_files

    bot_files.run_job = broken_run_job  # pool processes fork from this one and inherit it
    sys.argv = ["celery", *sys.argv[1:]]
    sys.exit(main())
