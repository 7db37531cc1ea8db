"""The zygote's control socket, run bare."""

from __future__ import annotations

import os
import resource
import sys

from workers import sandbox
from workers.staging import install_sdk


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
        socket.send_fds(ours, [b"spawn as=1\0/bot\0/tmp"], ends)
        assert replies.readline() == b"error a spawn request has 4 fields, not 3\n"
        # Its limits changed behind its back (a bot once could): it forks no more.
        soft, hard = resource.prlimit(zygote.pid, resource.RLIMIT_NOFILE)
        resource.prlimit(zygote.pid, resource.RLIMIT_NOFILE, (min(soft, 32), min(hard, 32)))
        socket.send_fds(ours, [b"spawn as=1\0/bot\0/tmp\0"], ends)
        assert replies.readline() == (
            b"error the zygote's limits or scheduling changed: replace me\n"
        )
        assert zygote.poll() is None  # still serving
    finally:
        replies.close()
        ours.close()
        for read, write in pipes:
            os.close(read)
            os.close(write)
    assert zygote.wait(timeout=10) == 0  # the runner hung up: the zygote ends
