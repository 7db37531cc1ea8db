"""The zygote's control socket, run bare."""

from __future__ import annotations

import os
import resource
import sys

import engine
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


def test_a_forked_bot_imports_the_engine_beside_the_sdk_not_its_own_engine_py(tmp_path):
    import socket
    import subprocess

    from workers.protocol import start

    install_sdk(tmp_path / "sdk")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "engine.py").write_text("raise SystemExit('the bot shadowed the engine')\n")
    (bot / "bot.py").write_text(
        "import sys\nimport engine\n"
        "print('ENGINE', engine.__file__, engine.get_game('manila').version, file=sys.stderr)\n"
        "def act(view, legal):\n    return legal[0]\n"
    )
    ours, theirs = socket.socketpair()
    command = sandbox.bare_command(sandbox.Runtime(sys.executable, None, False),
                                   str(tmp_path / "sdk"), theirs.fileno())  # fmt: skip
    zygote = subprocess.Popen(command, pass_fds=(theirs.fileno(),))
    theirs.close()
    replies = ours.makefile("rb")
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    try:
        assert replies.readline() == b"ready\n"
        socket.send_fds(ours, [f"spawn core=0\0{bot}\0{bot}\0".encode()],
                        [stdin_r, stdout_w, stderr_w])  # fmt: skip
        for fd in (stdin_r, stdout_w, stderr_w):
            os.close(fd)
        assert replies.readline().startswith(b"pid ")
        os.write(stdin_w, start("manila", 0, 3, {}, {}) + b'{"type":"end","result":{}}\n')
        os.close(stdin_w)
        assert replies.readline() == b"exit 0\n"
        with os.fdopen(stdout_r, "rb") as out, os.fdopen(stderr_r, "rb") as err:
            assert out.read() == b'{"type":"ready"}\n'
            version = engine.get_game("manila").version
            expected = f"ENGINE {tmp_path}/sdk/engine/__init__.py {version}\n"
            assert err.read().decode() == expected
    finally:
        replies.close()
        ours.close()
    assert zygote.wait(timeout=10) == 0
