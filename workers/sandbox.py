"""How a bot sandbox is started: the runtime found on this machine and bwrap's command line.

Each sandbox is long-lived (a `workers.slots.Slot`): its pid 1 is a zygote
that forks one fresh bot process per match, so a bot starts in about a
millisecond instead of paying for bwrap and a new interpreter every time.
The sandbox has no network, its own user/pid/ipc/uts namespaces, a non-root
uid, a read-only runtime and bot directory, an empty environment and
rlimits; each bot gets its own size- and inode-capped /tmp as the only
writable place (see `workers.zygote`). When the runner runs as root, bwrap
itself is started as an unprivileged uid of its own, because the kernel never
applies RLIMIT_NPROC to root (a fork bomb would go unchecked).

Bots may import the engine and numpy: /sdk holds a copy of the referee's
engine package (preloaded by the zygote) and, where Debian's numpy matches
the sandbox's python, a link to it; BLAS runs one thread. Nothing else of
the machine is there: the runtime is the interpreter, its library, numpy
and the libraries they load (`workers.runtime_files`), in folders of the
slot's own, and /proc shows the bot's own processes, every machine-wide
entry covered (`proc_masks`). Why: `workers/SANDBOX.md`.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workers.limits import Limits
from workers.runtime_files import visible

SDK_NAME = "tradewinds_sdk.py"
ZYGOTE_NAME = "tradewinds_zygote.py"
# Debian's numpy (package python3-numpy), built for Debian's /usr/bin/python3 only.
DEBIAN_PYTHON = "/usr/bin/python3"
DEBIAN_NUMPY = "/usr/lib/python3/dist-packages/numpy"
# Every BLAS numpy may load starts one thread: a match runs on one CPU, where more
# threads only contend (and each counts against the bot's process limit).
BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# The whole environment of a sandbox: nothing of the runner's (no secrets).
ENVIRONMENT = {"HOME": "/tmp", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", **BLAS_THREADS}


def zygote_entry(sdk_dir: str) -> str:
    """`python -c` code that starts the zygote from `sdk_dir`, so cached bytecode is used."""
    module = ZYGOTE_NAME.removesuffix(".py")
    return f"import sys; sys.path.insert(0, {sdk_dir!r}); import {module}; {module}.main()"


# Outer uids for sandboxes when the runner is root: one per process and slot,
# so one bot's fork bomb cannot use up another's process budget.
UID_BASE = 200_000
INNER_UID = 1000
# Drops the outer bwrap to a slot's own uid when the runner is root (util-linux, always there).
SETPRIV = shutil.which("setpriv") or "/usr/bin/setpriv"


class SandboxUnavailable(RuntimeError):
    """bwrap is missing or cannot create namespaces here."""


@dataclass(frozen=True)
class Runtime:
    """How to start bot processes: bwrap or (unsafe, development only) bare."""

    python: str
    bwrap: str | None  # None: unsafe development mode, no sandbox
    unprivileged: bool  # bwrap started as a non-root uid of its own


# What to install where a part of the sandbox is missing (Debian and Ubuntu package names).
INSTALL_BWRAP = "apt install bubblewrap"
INSTALL_PYTHON = "apt install python3 python3-numpy"


def sandbox_python() -> str:
    """The interpreter bots run on: the system python3 (readable by any uid) when present."""
    for candidate in (DEBIAN_PYTHON, os.path.realpath(sys.executable)):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise SandboxUnavailable(
        f"no python3 to run bots with: bots run on the system's {DEBIAN_PYTHON}, with numpy"
        f" for the bots that import it; install them with `{INSTALL_PYTHON}` (as root)."
    )


def numpy_dir(python: str) -> str | None:
    """The numpy package bots of `python` may import: Debian's, for Debian's python3 only
    (its compiled parts match no other interpreter); None when it is not installed."""
    if os.path.realpath(python) != os.path.realpath(DEBIAN_PYTHON):
        return None
    return DEBIAN_NUMPY if os.path.isfile(f"{DEBIAN_NUMPY}/__init__.py") else None


def runtime(unsafe: bool = False) -> Runtime:
    """The runtime to use; refuses without bwrap unless `unsafe` (which warns)."""
    python = sandbox_python()
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        if not unsafe:
            raise SandboxUnavailable(
                "bwrap is not installed: bots run only inside its sandbox. Install Debian's"
                f" package bubblewrap with `{INSTALL_BWRAP}` (as root), or pass the unsafe"
                " development flag to run them without one."
            )
        print(
            "WARNING: running bots WITHOUT a sandbox (unsafe development mode):"
            " a bot can read and change anything this user can.",
            file=sys.stderr,
        )
        return Runtime(python, None, False)
    if os.geteuid() == 0 and _probe(bwrap, python, UID_BASE - 1) is None:
        return Runtime(python, bwrap, True)
    # Not root, or root where unprivileged user namespaces are off: bwrap runs as
    # we are (as root RLIMIT_NPROC cannot bind, the other limits still do).
    error = _probe(bwrap, python, None)
    if error is not None:
        raise SandboxUnavailable(f"bwrap cannot start a sandbox on this machine: {error}")
    return Runtime(python, bwrap, os.geteuid() != 0)


@functools.cache
def _probe(bwrap: str, python: str, uid: int | None) -> str | None:
    """Start an empty sandbox as `uid` (None: as we are); None if it works, else why not."""
    probe = [
        bwrap, *_namespace_args(), *_capabilities(uid is not None or os.geteuid() != 0),
        *_runtime_binds(python), "--", python, "-S", "-c", "",
    ]  # fmt: skip
    ids: dict[str, Any] = {"user": uid, "group": uid, "extra_groups": []} if uid is not None else {}
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=10, **ids)
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    return None if done.returncode == 0 else done.stderr.strip() or f"exit {done.returncode}"


def _namespace_args() -> list[str]:
    return [
        "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
        "--unshare-cgroup-try", "--uid", str(INNER_UID), "--gid", str(INNER_UID),
        "--hostname", "bot", "--die-with-parent", "--new-session", "--clearenv",
    ]  # fmt: skip


def _capabilities(unprivileged: bool) -> list[str]:
    """The zygote keeps CAP_SYS_ADMIN, in the sandbox's own user namespace only, to give
    each bot its own /tmp and IPC namespace; every bot drops it before its code runs."""
    return [*([] if unprivileged else ["--cap-drop", "ALL"]), "--cap-add", "CAP_SYS_ADMIN"]


def _runtime_binds(python: str, tree: str | None = None) -> list[str]:
    """Read-only binds of what bots can use and nothing more (`workers.runtime_files`): the
    interpreter, its standard library, numpy where it matches, and the libraries they load.

    With `tree` (a slot's own copy of that runtime, `runtime_files.build_tree`), its top
    folders are bound whole; without, each file and folder is bound from where it lies.
    """
    args: list[str] = []
    for top in ("/bin", "/lib", "/lib64", "/lib32", "/sbin"):
        if os.path.islink(top):  # a merged /usr: the loader looks in /lib/<arch> through it
            args += ["--symlink", os.readlink(top), top]
    if tree is not None:
        for entry in sorted(os.listdir(tree)):
            args += ["--ro-bind", f"{tree}/{entry}", f"/{entry}"]
        return args
    for source, place in runtime_binds(python):
        args += ["--ro-bind", source, place]
    return args


def runtime_binds(python: str) -> tuple[tuple[str, str], ...]:
    """(host path, sandbox path) of everything a sandbox of `python` shows."""
    return visible(python, numpy_dir(python))


# Beside the SDK: an empty folder and an empty file, bound over what /proc must not show.
MASK_DIR, MASK_FILE = "masks/empty", "masks/empty-file"
# What a bot's /proc keeps: its own processes and the links to them.
PROC_KEPT = ("self", "thread-self")


def install_masks(sdk_dir: str) -> None:
    """Make the empty folder and file that `proc_masks` binds (read-only for every uid)."""
    folder = Path(sdk_dir, MASK_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    Path(sdk_dir, MASK_FILE).write_bytes(b"")
    for path in (folder, folder.parent):
        os.chmod(path, 0o755)
    os.chmod(Path(sdk_dir, MASK_FILE), 0o444)


@functools.cache
def proc_entries(proc: str = "/proc") -> tuple[tuple[str, bool], ...]:
    """The machine-wide entries of /proc on this kernel: (name, is a folder), no symlinks.

    Read from the kernel itself, so an entry a newer kernel adds is hidden too.
    """
    found = []
    with os.scandir(proc) as entries:
        for entry in entries:
            if entry.name.isdigit() or entry.name in PROC_KEPT or entry.is_symlink():
                continue
            found.append((entry.name, entry.is_dir(follow_symlinks=False)))
    return tuple(sorted(found))


def proc_masks(sdk_dir: str) -> list[str]:
    """bwrap arguments that cover every machine-wide entry of the sandbox's /proc.

    A bot's /proc shows its own processes (`self`, the pid folders) and
    nothing else: loadavg, stat, meminfo, locks, vmstat, sys/ and the rest
    are counters and tables of the whole machine, through which one seat
    could read what another seat changed (threads started, memory taken,
    locks held). Each is covered by an empty file or folder, read-only.
    """
    args: list[str] = []
    for name, is_dir in proc_entries():
        mask = MASK_DIR if is_dir else MASK_FILE
        args += ["--ro-bind", f"{sdk_dir}/{mask}", f"/proc/{name}"]
    return args


def bwrap_command(
    rt: Runtime, sdk_dir: str, bot_dir: str, control_fd: int, tree: str | None = None
) -> list[str]:
    """The bwrap command line of one slot's sandbox, whose pid 1 is the zygote; `tree` is
    the slot's own runtime folders (None: bind the machine's own, shared between slots)."""
    if rt.bwrap is None:
        raise ValueError("an unsafe runtime has no bwrap, so no sandbox command line")
    return [
        rt.bwrap,
        *_namespace_args(),
        *_capabilities(rt.unprivileged),
        # The zygote is the namespace's init: the kernel then drops every signal a
        # bot sends it, so no bot can take the sandbox down for the next one.
        "--as-pid-1",
        *(arg for name, value in ENVIRONMENT.items() for arg in ("--setenv", name, value)),
        *_runtime_binds(rt.python, tree),
        "--proc", "/proc", *proc_masks(sdk_dir), "--dev", "/dev",
        "--dir", "/tmp",
        "--ro-bind", sdk_dir, "/sdk",
        "--ro-bind", bot_dir, "/bot",
        # The root is bwrap's own tmpfs and /dev another: both read-only. Each bot
        # gets a /tmp of its own from the zygote (`tmp_mount_options`), its only
        # writable place, gone with the bot's last process.
        "--remount-ro", "/dev",
        "--remount-ro", "/",
        "--chdir", "/",
        "--", rt.python, "-I", "-S", "-B", "-c", zygote_entry("/sdk"), str(control_fd), "-",
    ]  # fmt: skip


def tmp_mount_options(limits: Limits) -> str:
    """Mount options of a bot's own /tmp: capped in bytes and in inodes, so that what a
    bot can leave there (and what its end costs the kernel to free) is bounded."""
    return f"size={limits.tmpfs_mb << 20},nr_inodes={limits.tmp_inodes},mode=1777"


def bare_command(rt: Runtime, sdk_dir: str, control_fd: int) -> list[str]:
    """The zygote without a sandbox (unsafe development mode)."""
    return [rt.python, "-I", "-S", "-B", "-c", zygote_entry(sdk_dir), str(control_fd), "-"]


def rlimits(limits: Limits) -> str:
    """The rlimits the SDK sets on itself before it loads any bot code."""
    caps = {
        "as": limits.memory_mb << 20,
        "cpu": limits.cpu_s,
        "nproc": limits.processes,
        "nofile": limits.open_files,
        "fsize": limits.file_mb << 20,
        "core": 0,
    }
    return ",".join(f"{name}={value}" for name, value in caps.items())
