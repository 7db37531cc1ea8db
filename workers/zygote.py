"""The zygote: a warm interpreter inside one bot sandbox that forks a fresh bot per match.

Starting Python costs a bot about 7 ms of CPU and bubblewrap about 4 ms more,
several times what a whole match of decisions costs. So each sandbox lives on
between matches (`workers.sandbox.Slot`) and runs this module as its pid 1:
it imports the SDK and a few common standard modules once, then forks one bot
process per match. Only the forked child ever runs bot code.

Standard library only: this file is copied into the sandbox next to the SDK
and run there by the system python3. It talks to the runner over a Unix
socket (its descriptor number is argv[1]), one request at a time:

- runner → zygote: `spawn` with three descriptors (the bot's stdin, stdout and
  stderr) attached, payload `rlimits NUL bot-path NUL working-dir`;
- zygote → runner: `pid N` once the bot is forked (N as the sandbox sees it),
  then `exit CODE` when it has ended (CODE negative for a signal), or
  `error TEXT` when the request could not be served.

Between bots the zygote empties the scratch directory (argv[2], `-` for none),
so nothing a bot leaves there reaches the next one. As the namespace's pid 1
it cannot be signalled by bots (the kernel drops their signals to it), and as
a non-dumpable process it cannot be traced or read through /proc by them.
"""

import contextlib
import os
import signal
import socket
import sys

sdk = None  # the SDK module (tradewinds_sdk), imported by main() from /sdk

# Standard modules many bots import, loaded once here so forked bots start warm.
# A bot cannot shadow these names with modules of its own.
PRELOAD = (
    "collections", "functools", "heapq", "itertools", "json", "math", "random", "time",
)  # fmt: skip
PR_SET_DUMPABLE = 4  # non-dumpable: same-uid processes may not ptrace us or read our /proc
PR_SET_CHILD_SUBREAPER = 36  # orphans come to us (we are pid 1 in a sandbox anyway)
MAX_FDS = 3


def _prctl(option: int, value: int) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def wipe(top: str) -> None:
    """Delete everything below `top`, including directories a bot made unreadable."""
    for entry in os.scandir(top):
        if entry.is_dir(follow_symlinks=False):
            os.chmod(entry.path, 0o700)
            wipe(entry.path)
            os.rmdir(entry.path)
        else:
            os.unlink(entry.path)


def reap() -> None:
    """Collect every child that has already ended (orphans of past bots come to pid 1)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def wait_for(pid: int) -> int:
    """Block until child `pid` ends, reaping orphans meanwhile; its exit code (-N: signal N)."""
    while True:
        done, status = os.waitpid(-1, 0)
        if done == pid:
            return os.waitstatus_to_exitcode(status)


def run_bot(control: socket.socket, fds: list[int], rlimits: str, bot: str, cwd: str) -> None:
    """In the forked child: become the bot process and never return."""
    code = 1
    try:
        control.close()
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in any Python process
        os.setsid()  # its own process group: the runner pauses the bot by group
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        _prctl(PR_SET_DUMPABLE, 1)
        os.chdir(cwd)
        code = sdk.main(["--rlimits", rlimits, bot])
    except BaseException as exc:  # report anything, then exit
        print(f"tradewinds zygote: the bot process failed to start: {exc!r}", file=sys.stderr)
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)


def serve(control: socket.socket, scratch: str | None) -> None:
    """Answer spawn requests until the runner closes the socket."""
    while True:
        try:
            message, fds, _flags, _addr = socket.recv_fds(control, 8192, MAX_FDS)
        except OSError:
            return
        if not message:
            return
        try:
            if len(fds) != MAX_FDS:
                raise ValueError(f"expected {MAX_FDS} descriptors, got {len(fds)}")
            kind, _, payload = message.partition(b" ")
            if kind != b"spawn":
                raise ValueError(f"unknown request {kind!r}")
            rlimits, bot, cwd = payload.decode().split("\0")
            reap()
            if scratch is not None:
                wipe(scratch)
            sys.stderr.flush()
            pid = os.fork()
        except (OSError, ValueError) as exc:
            for fd in fds:
                os.close(fd)
            control.sendall(f"error {exc}\n".encode())
            continue
        if pid == 0:
            run_bot(control, fds, rlimits, bot, cwd)
        for fd in fds:
            os.close(fd)
        control.sendall(f"pid {pid}\n".encode())
        control.sendall(f"exit {wait_for(pid)}\n".encode())


def main() -> None:
    global sdk
    control = socket.socket(fileno=int(sys.argv[1]))
    scratch = None if sys.argv[2] == "-" else sys.argv[2]
    _prctl(PR_SET_DUMPABLE, 0)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    # The kernel drops bots' signals to pid 1 only where it has no handler; Python
    # handles SIGINT, so ignore it (the rest keep their default: dropped).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import tradewinds_sdk

    sdk = tradewinds_sdk
    for name in PRELOAD:
        __import__(name)
    control.sendall(b"ready\n")
    serve(control, scratch)
