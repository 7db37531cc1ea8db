"""The bots' seccomp filter, installed in a forked child exactly as the zygote installs it."""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource

import pytest

from workers import seccomp, zygote

pytestmark = pytest.mark.skipif(
    platform.machine() not in seccomp.SYSCALLS, reason="no syscall table for this machine"
)


def in_filtered_child(attempt) -> int:
    """Run `attempt()` in a forked child under the filter; the errno it failed with, or 0."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the forked child
        code = 255
        try:
            zygote.seccomp_filter = seccomp.program()
            zygote.confine()
            try:
                attempt()
                code = 0
            except OSError as exc:
                code = exc.errno or 254
        finally:
            os.write(write, bytes([code]))
            os._exit(0)
    os.waitpid(child, 0)
    code = os.read(read, 1)[0]
    os.close(read)
    os.close(write)
    return code


def fork_and_reap() -> None:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the grandchild exits at once
        os._exit(0)
    os.waitpid(pid, 0)


def libc_call(name: str, *args) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if getattr(libc, name)(*args) == -1:
        raise OSError(ctypes.get_errno(), name)


def raw_syscall(number: int, *args) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(number, *args) == -1:
        raise OSError(ctypes.get_errno(), str(number))


NUMBERS = seccomp.SYSCALLS.get(platform.machine(), {})


@pytest.mark.parametrize(
    ("what", "attempt"),
    [
        ("lower pid 1's limits", lambda: resource.prlimit(1, resource.RLIMIT_NOFILE, (32, 32))),
        ("lower the parent's limits",
         lambda: resource.prlimit(os.getppid(), resource.RLIMIT_STACK, (1 << 20, 1 << 20))),
        ("renice pid 1", lambda: os.setpriority(os.PRIO_PROCESS, 1, 19)),
        ("renice itself", lambda: os.nice(5)),
        ("idle pid 1", lambda: os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0))),
        ("widen its affinity", lambda: os.sched_setaffinity(0, range(os.cpu_count() or 1))),
        ("make a SysV shm segment", lambda: libc_call("shmget", 0, 1 << 20, 0o1666)),
        ("make a message queue", lambda: libc_call("msgget", 0, 0o1666)),
        ("make a semaphore set", lambda: libc_call("semget", 0, 1, 0o1666)),
        ("add a keyring key", lambda: raw_syscall(NUMBERS.get("add_key", 0), b"user", b"k",
                                                  b"v", 1, ctypes.c_int(-4))),
        ("a new user namespace", lambda: libc_call("unshare", 0x10000000)),
        ("mount", lambda: libc_call("mount", b"none", b"/tmp", b"tmpfs", 0, None)),
        ("ptrace", lambda: libc_call("ptrace", 16, os.getppid(), None, None)),
    ],
)  # fmt: skip
def test_the_filter_refuses_what_a_later_bot_would_inherit(what, attempt):
    assert in_filtered_child(attempt) == errno.EPERM, what


@pytest.mark.parametrize(
    ("what", "attempt"),
    [
        ("set its own limits", lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))),
        ("read its own limits", lambda: resource.prlimit(0, resource.RLIMIT_NOFILE)),
        ("fork", fork_and_reap),
        ("read its affinity", lambda: os.sched_getaffinity(0)),
        ("a thread", lambda: __import__("threading").Thread(target=lambda: None).start()),
    ],
)
def test_the_filter_leaves_what_bots_need(what, attempt):
    assert in_filtered_child(attempt) == 0, what


def test_clone3_says_not_implemented_so_the_c_library_falls_back():
    assert in_filtered_child(lambda: raw_syscall(NUMBERS["clone3"], None, 0)) == errno.ENOSYS


def test_unknown_machines_get_no_filter():
    assert seccomp.program("sparc64") is None
    assert len(seccomp.program("x86_64")) % 8 == 0
    assert seccomp.program("aarch64") != seccomp.program("x86_64")
