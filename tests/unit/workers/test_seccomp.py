"""The bots' seccomp filter, installed in a forked child exactly as the zygote installs it."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import mmap
import os
import platform
import resource
import shutil
import socket
import struct
import tempfile

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


SHARED = "/usr/lib/python3.11/os.py" if os.path.exists("/usr/lib/python3.11/os.py") else __file__


def on_shared_file(use):
    """Open a file every sandbox binds read-only and hand its descriptor to `use`."""

    def attempt():
        fd = os.open(SHARED, os.O_RDONLY)
        try:
            use(fd)
        finally:
            os.close(fd)

    return attempt


def lock_record(command: int):
    return lambda fd: fcntl.fcntl(fd, command, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))


def map_anonymous_executable():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    address = libc.mmap(None, 4096, 0x7, 0x22, -1, 0)  # RWX, MAP_PRIVATE | MAP_ANONYMOUS
    if address == ctypes.c_void_p(-1).value:
        raise OSError(ctypes.get_errno(), "mmap")


def make_executable():
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = mmap.mmap(-1, 4096)
    address = ctypes.addressof(ctypes.c_char.from_buffer(buffer))
    if libc.mprotect(ctypes.c_void_p(address), 4096, 0x5) != 0:  # READ | EXEC
        raise OSError(ctypes.get_errno(), "mprotect")


def evict_shared_pages():
    buffer = mmap.mmap(os.open(SHARED, os.O_RDONLY), 4096, prot=mmap.PROT_READ)
    buffer.madvise(21)  # MADV_PAGEOUT


def page_residency():
    libc = ctypes.CDLL(None, use_errno=True)
    buffer = mmap.mmap(-1, 4096)
    address = ctypes.addressof(ctypes.c_char.from_buffer(buffer))
    if libc.mincore(ctypes.c_void_p(address), 4096, ctypes.create_string_buffer(1)) != 0:
        raise OSError(ctypes.get_errno(), "mincore")


def machine_counters():
    if ctypes.CDLL(None, use_errno=True).sysinfo(ctypes.create_string_buffer(256)) != 0:
        raise OSError(ctypes.get_errno(), "sysinfo")


def watch_shared_file():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.inotify_init1(0) < 0:
        raise OSError(ctypes.get_errno(), "inotify_init1")


# One case per channel class between seats (see workers/SANDBOX.md): each is refused.
@pytest.mark.parametrize(
    ("what", "attempt"),
    [
        ("flock a shared file", on_shared_file(lambda fd: fcntl.flock(fd, fcntl.LOCK_SH))),
        ("a POSIX record lock", on_shared_file(lock_record(fcntl.F_SETLK))),
        ("ask for POSIX record locks", on_shared_file(lock_record(fcntl.F_GETLK))),
        ("an OFD lock", on_shared_file(lock_record(37))),
        ("ask for OFD locks", on_shared_file(lock_record(36))),
        ("a lease", on_shared_file(lambda fd: fcntl.fcntl(fd, 1024, fcntl.F_RDLCK))),
        ("dnotify a shared folder", lambda: fcntl.fcntl(
            os.open(os.path.dirname(SHARED), os.O_RDONLY), 1026, 0x1)),
        ("inotify", watch_shared_file),
        ("fanotify", lambda: raw_syscall(NUMBERS["fanotify_init"], 0, 0)),
        ("drop shared pages from the cache",
         on_shared_file(lambda fd: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED))),
        ("page them out", evict_shared_pages),
        ("ask which pages are cached", page_residency),
        ("read the machine's counters", machine_counters),
        ("a memfd", lambda: os.memfd_create("x")),
        ("anonymous executable memory", map_anonymous_executable),
        ("make memory executable", make_executable),
        ("an internet socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
        ("a netlink socket", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)),
        ("a POSIX message queue", lambda: raw_syscall(NUMBERS["mq_open"], b"q", 0o100, 0o600,
                                                      None)),
        ("sync everything", lambda: raw_syscall(NUMBERS["sync"])),
    ],
)  # fmt: skip
def test_the_filter_refuses_every_channel_between_seats(what, attempt):
    assert in_filtered_child(attempt) == errno.EPERM, what


@pytest.mark.parametrize(
    ("what", "attempt"),
    [
        ("a Unix socket pair", socket.socketpair),
        ("a Unix socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close()),
        ("anonymous memory", lambda: mmap.mmap(-1, 1 << 20).close()),
        ("descriptor flags", on_shared_file(lambda fd: fcntl.fcntl(fd, fcntl.F_GETFL))),
        ("non-blocking input", on_shared_file(
            lambda fd: fcntl.fcntl(fd, fcntl.F_SETFL, os.O_NONBLOCK))),
        ("isatty", on_shared_file(os.isatty)),
        ("free memory", lambda: mmap.mmap(-1, 1 << 20).madvise(mmap.MADV_DONTNEED)),
    ],
)  # fmt: skip
def test_the_filter_leaves_what_python_needs(what, attempt):
    assert in_filtered_child(attempt) == 0, what


def test_an_ioctl_it_does_not_know_answers_not_a_terminal():
    attempt = on_shared_file(lambda fd: fcntl.ioctl(fd, 0x80086601, b"\0" * 8))  # FS_IOC_GETFLAGS
    assert in_filtered_child(attempt) == errno.ENOTTY


def test_a_call_it_does_not_know_says_not_implemented():
    # landlock_create_ruleset (in no list), and a number no kernel has given out yet
    for number in (444, 499):
        assert in_filtered_child(lambda n=number: raw_syscall(n, 0, 0, 0)) == errno.ENOSYS


def test_every_named_call_has_a_number_and_no_call_is_both_allowed_and_refused():
    for machine, numbers in seccomp.SYSCALLS.items():
        allowed = set(seccomp.ALLOWED) | set(seccomp.ARGUMENT_RULES)
        assert not allowed & set(seccomp.REFUSED), machine
        missing = [n for n in seccomp.ARGUMENT_RULES if n not in numbers]
        assert missing == [], (machine, missing)
        assert len(set(numbers.values())) == len(numbers), f"{machine}: a number twice"


def test_clone3_says_not_implemented_so_the_c_library_falls_back():
    assert in_filtered_child(lambda: raw_syscall(NUMBERS["clone3"], None, 0)) == errno.ENOSYS


def test_unknown_machines_get_no_filter():
    assert seccomp.program("sparc64") is None
    assert len(seccomp.program("x86_64")) % 8 == 0
    assert seccomp.program("aarch64") != seccomp.program("x86_64")


def landlock_abi() -> int:
    return ctypes.CDLL(None, use_errno=True).syscall(zygote.SYS_LANDLOCK_CREATE_RULESET, None, 0, 1)


def write_own_code():
    """Through /proc/self/mem a process may write even its read-only code pages."""
    address = ctypes.cast(ctypes.CDLL(None).getpid, ctypes.c_void_p).value
    with open("/proc/self/mem", "r+b", buffering=0) as handle:
        handle.seek(address)
        byte = handle.read(1)
        handle.seek(address)
        handle.write(byte)


def write_under(folder):
    def attempt():
        with open(os.path.join(folder, f"tw-{os.getpid()}"), "w") as handle:
            handle.write("x")
        os.unlink(handle.name)

    return attempt


@pytest.mark.skipif(landlock_abi() < 1, reason="this kernel has no Landlock")
def test_a_confined_bot_cannot_write_its_own_code_or_outside_tmp():
    assert in_filtered_child(write_own_code) == errno.EACCES
    outside = tempfile.mkdtemp(dir="/var/tmp" if os.path.isdir("/var/tmp") else os.getcwd())
    assert not os.path.realpath(outside).startswith("/tmp/"), outside
    try:
        assert in_filtered_child(write_under(outside)) == errno.EACCES
    finally:
        shutil.rmtree(outside, ignore_errors=True)
    assert in_filtered_child(write_under("/tmp")) == 0
    assert in_filtered_child(write_to_null) == 0


def write_to_null():
    with open("/dev/null", "w") as handle:
        handle.write("x")
