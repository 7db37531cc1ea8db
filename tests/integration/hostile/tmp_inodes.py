"""Hostile: 200,000 empty files and folders in /tmp: no bytes, but kernel memory per inode.

Reports `CREATED n` when done, or `REFUSED after n: why` when a cap stops it.
"""

import os
import sys

COUNT = 200_000


def setup(info):
    made = 0
    try:
        for i in range(COUNT // 2):
            os.mkdir(f"/tmp/d{i}")
            made += 1
            os.close(os.open(f"/tmp/f{i}", os.O_CREAT | os.O_WRONLY, 0o600))
            made += 1
    except OSError as exc:
        print(f"REFUSED after {made}: {exc}", file=sys.stderr, flush=True)
        return
    print(f"CREATED {made}", file=sys.stderr, flush=True)


def act(view, legal):
    return legal[0]
