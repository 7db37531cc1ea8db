"""The zygote: a warm interpreter inside one bot sandbox that forks a fresh bot per match.

Starting Python costs a bot about 7 ms of CPU and bubblewrap about 4 ms more,
several times what a whole match of decisions costs. So each sandbox lives on
between matches (`workers.sandbox.Slot`) and runs this module as its pid 1:
it imports the SDK, a few common standard modules and the engine once, then
forks one bot process per match. Only the forked child ever runs bot code.

Standard library only: this file is copied into the sandbox next to the SDK
and run there by the system python3. It talks to the runner over a Unix
socket (its descriptor number is argv[1]), one request at a time:

- runner → zygote: `spawn` with three descriptors (the bot's stdin, stdout and
  stderr) attached, payload `rlimits NUL bot-path NUL working-dir NUL tmpfs`,
  tmpfs being the mount options of the bot's own /tmp (empty: none);
- zygote → runner: `pid N` once the bot is forked (N as the sandbox sees it),
  then `exit CODE` when it has ended (CODE negative for a signal), or
  `error TEXT` when the request could not be served.

Nothing a bot does may reach the next bot of the sandbox:
- In a sandbox the zygote holds CAP_SYS_ADMIN in the sandbox's own user
  namespace, for one use: each forked bot gets a mount and an IPC namespace
  of its own, with a fresh /tmp (a tmpfs capped in bytes and in inodes);
  /tmp and /bot are `noexec` for it.
  When the bot's last process ends, the kernel drops that /tmp and every SysV
  IPC object with it: no wipe, and nothing for the next bot to find. The bot
  then drops every capability before any of its code runs.
- Each bot runs under the seccomp filter `workers.seccomp` writes next to the
  SDK (`seccomp.bpf`), an allow list: it cannot lower the zygote's limits,
  change its priority or scheduling, make keyring keys, or use any of the
  channels between seats `workers/SANDBOX.md` lists. Before the filter,
  Landlock limits its writes to /tmp (closing /proc/self/mem), and an audit
  hook names the refused calls Python makes.
- The zygote notes its own limits and scheduling at start and refuses to fork
  (`error`, and the runner replaces the sandbox) if they ever changed.
- As the namespace's pid 1 it cannot be signalled by bots (the kernel drops
  their signals to it), and as a non-dumpable process it cannot be traced or
  read through /proc by them.

Bare (no sandbox, development only), the scratch directory (argv[2], `-` for
none) is emptied between bots instead.
"""

import contextlib
import ctypes
import os
import resource
import signal
import socket
import struct
import sys
import types  # loaded already (by enum, through socket): no module more to start

sdk: types.ModuleType | None = None  # the SDK (tradewinds_sdk), imported by main() from /sdk

# Standard modules many bots import, loaded once here so forked bots start warm.
# A bot cannot shadow these names with modules of its own.
PRELOAD = (
    "collections", "functools", "heapq", "itertools", "json", "math", "random", "time",
)  # fmt: skip
PR_SET_DUMPABLE = 4  # non-dumpable: same-uid processes may not ptrace us or read our /proc
PR_SET_CHILD_SUBREAPER = 36  # orphans come to us (we are pid 1 in a sandbox anyway)
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
CAPABILITY_VERSION_3 = 0x20080522
CLONE_NEWNS, CLONE_NEWIPC = 0x00020000, 0x08000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND = 32, 4096
# Landlock (linux/landlock.h): the same numbers on x86_64 and aarch64.
SYS_LANDLOCK_CREATE_RULESET, SYS_LANDLOCK_ADD_RULE, SYS_LANDLOCK_RESTRICT_SELF = 444, 445, 446
LANDLOCK_CREATE_RULESET_VERSION, LANDLOCK_RULE_PATH_BENEATH = 1, 1
LANDLOCK_WRITE_FILES = 1 << 1 | 1 << 14  # WRITE_FILE, TRUNCATE
LANDLOCK_WRITES = 1 << 1 | sum(1 << bit for bit in range(4, 13))  # WRITE_FILE, REMOVE_*, MAKE_*
LANDLOCK_REFER, LANDLOCK_TRUNCATE = 1 << 13, 1 << 14
MAX_FDS = 3
FILTER_NAME = "seccomp.bpf"  # beside this file: the bots' filter (workers.seccomp)

libc = ctypes.CDLL(None, use_errno=True)
seccomp_filter = None  # the filter's bytes, read once at start


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what} failed: {os.strerror(err)}")


def _prctl(option: int, value: int, arg3: int = 0) -> None:
    _check(libc.prctl(option, value, arg3, 0, 0), f"prctl({option})")


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def own_tmp(options: str) -> None:
    """A mount and IPC namespace of the bot's own (needs CAP_SYS_ADMIN), with a fresh /tmp;
    /tmp and /bot are `noexec`, so what a bot writes or uploads never runs as machine code."""
    _check(libc.unshare(CLONE_NEWNS | CLONE_NEWIPC), "unshare")
    hidden = MS_NOSUID | MS_NODEV | MS_NOEXEC
    _check(libc.mount(b"tmpfs", b"/tmp", b"tmpfs", hidden, options.encode()), "mount /tmp")
    remount = MS_REMOUNT | MS_BIND | MS_RDONLY | hidden
    _check(libc.mount(None, b"/bot", None, remount, None), "remount /bot")


def drop_capabilities() -> None:
    """Give up every capability (the zygote's CAP_SYS_ADMIN) for good."""
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    header = struct.pack("=Ii", CAPABILITY_VERSION_3, 0)
    _check(libc.capset(header, bytes(24)), "capset")


def write_only_in_tmp() -> bool:
    """Landlock: from here on the bot may create, change or remove files under /tmp only
    (and write to /dev's null and friends); False where the kernel has no Landlock.

    Every other place is on a read-only mount already, but for one: /proc/self/mem,
    through which a process may write even to its own code pages, and so run machine
    code of its own (see workers/SANDBOX.md). Landlock refuses opening it to write.
    """
    abi = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0, LANDLOCK_CREATE_RULESET_VERSION)
    if abi < 1:
        return False
    handled = LANDLOCK_WRITES | (LANDLOCK_REFER if abi >= 2 else 0)
    handled |= LANDLOCK_TRUNCATE if abi >= 3 else 0
    ruleset = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, struct.pack("=Q", handled), 8, 0)
    _check(0 if ruleset >= 0 else -1, "landlock_create_ruleset")
    try:
        for path, rights in (("/tmp", handled), ("/dev", handled & LANDLOCK_WRITE_FILES)):
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = struct.pack("=Qi", rights, fd)
                done = libc.syscall(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH,
                                    rule, 0)  # fmt: skip
                _check(0 if done == 0 else -1, f"landlock_add_rule {path}")
            finally:
                os.close(fd)
        _check(libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return True


def confine() -> None:
    """No new privileges, writes only to /tmp, then the seccomp filter: from here on bot
    code may run."""
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    if seccomp_filter:
        write_only_in_tmp()
        if sdk is not None:  # a PermissionError naming the call, for what the filter refuses
            sys.addaudithook(sdk.refuse_what_the_sandbox_refuses)
        program = _SockFprog(len(seccomp_filter) // 8, seccomp_filter)
        _check(
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0), "seccomp"
        )


def first_to_go_when_memory_runs_out() -> None:
    """Offer the bot, not the zygote, to the kernel's OOM killer (raising is always allowed)."""
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as handle:
        handle.write("1000")


def preload() -> None:
    """Import once what forked bots share: the PRELOAD modules and the engine with every
    game's rules (the copy beside the SDK). A name in `sys.modules` is never looked up on
    the path again, so a bot's own `engine.py` or `engine/` cannot stand in for it.

    numpy is not preloaded: it would add ~9 MiB private (~15 MiB resident) to every
    zygote, 26 MiB to every bot's address space and a tenth of a second or more to
    every sandbox's start, for the few bots that import it (bench/protocol.py)."""
    for name in PRELOAD:
        __import__(name)
    import engine

    for name in engine.game_names():
        engine.get_game(name)


def fingerprint() -> tuple:
    """What every forked bot inherits from the zygote: its limits and its scheduling."""
    limits = tuple(
        resource.getrlimit(getattr(resource, name))
        for name in sorted(dir(resource))
        if name.startswith("RLIMIT_")
    )
    return limits, os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0)


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


def run_bot(control: socket.socket, fds: list[int], request: tuple[str, ...]) -> None:
    """In the forked child: become the bot process and never return."""
    rlimits, bot, cwd, tmpfs = request
    code = 1
    try:
        control.close()
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in any Python process
        os.setsid()  # its own process group: the runner pauses the bot by group
        if tmpfs:
            own_tmp(tmpfs)
            drop_capabilities()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        _prctl(PR_SET_DUMPABLE, 1)  # its own /proc files become its own to write
        first_to_go_when_memory_runs_out()
        os.chdir(cwd)
        confine()
        if sdk is None:
            raise RuntimeError("the SDK was not imported")
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
    born = fingerprint()
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
            request = tuple(payload.decode().split("\0"))
            if len(request) != 4:
                raise ValueError(f"a spawn request has 4 fields, not {len(request)}")
            if fingerprint() != born:
                raise ValueError("the zygote's limits or scheduling changed: replace me")
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
            run_bot(control, fds, request)
        for fd in fds:
            os.close(fd)
        control.sendall(f"pid {pid}\n".encode())
        control.sendall(f"exit {wait_for(pid)}\n".encode())


def main() -> None:
    global sdk, seccomp_filter
    control = socket.socket(fileno=int(sys.argv[1]))
    scratch = None if sys.argv[2] == "-" else sys.argv[2]
    _prctl(PR_SET_DUMPABLE, 0)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    # The kernel drops bots' signals to pid 1 only where it has no handler; Python
    # handles SIGINT, so ignore it (the rest keep their default: dropped).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import tradewinds_sdk  # type: ignore[import-not-found]  # only in the sandbox, at /sdk

    sdk = tradewinds_sdk
    path = os.path.join(os.path.dirname(tradewinds_sdk.__file__), FILTER_NAME)
    if os.path.exists(path):  # absent only where workers.seccomp knows no syscall table
        with open(path, "rb") as handle:
            seccomp_filter = handle.read()
    preload()
    control.sendall(b"ready\n")
    serve(control, scratch)
