"""A control group per bot sandbox, on cgroup v1 or v2, chosen once per process.

Every process a bot starts stays in its sandbox's group whatever it does
(setsid, double forks, re-forking): bots cannot write cgroup files (there is
no /sys in the sandbox). So the group is the one true list of a bot's
processes, and the kernel caps them as one:
- pids: processes and threads;
- memory, kernel memory included: memfds, SysV shm, /tmp inodes and page
  tables count, which RLIMIT_AS never saw;
- cpuacct (v1) or cpu.stat (v2): the bot's CPU time per move, for replays.

Pausing a bot stops every member of its group with SIGSTOP (see
`workers.bot_process`). The freezer would do the same, but on cgroup v1 here
one freeze or thaw costs about 80 µs against 2 µs for a signal, and a
decision makes one of each: it would more than double the cost of a move.
The CPU is held by affinity, not cpuset: joining a v1 cpuset costs about
10 ms per sandbox start, while the zygote's affinity (set per match, see
`workers.cpus`) is inherited by every bot, and the seccomp filter
(`workers.seccomp`) refuses sched_setaffinity, so no bot can widen it.

Where neither hierarchy is writable (not root, nothing delegated), `tree()`
is None, bots are paused by process group and tree walks as before, and
`isolation()` carries a warning for the log and the staff page. Set
TRADEWINDS_CGROUPS=off to choose that on purpose; TRADEWINDS_CGROUP names a
delegated v2 folder to use instead of /sys/fs/cgroup/tradewinds.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

V1_CONTROLLERS = ("memory", "pids", "cpuacct")
V2_CONTROLLERS = ("memory", "pids")
BASE_NAME = "tradewinds"
# The sandbox's own processes (bwrap, the zygote) besides the bot's budget.
SANDBOX_PIDS = 4
SANDBOX_MEMORY = 64 << 20
NO_CGROUPS = (
    "no writable cgroup hierarchy: bots are paused by signals only, so a bot that leaves"
    " its process group or re-forks can compute while others move, memory held outside"
    " its address space (memfd, shm) is not capped, and CPU time per move is not measured"
)


def _ids(path: str) -> list[int]:
    """The numbers in a cgroup list file (opened afresh: v1 caches a list per open file)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return [int(n) for n in os.read(fd, 1 << 20).split()]
    finally:
        os.close(fd)


def _read(path: Path) -> str:
    return path.read_text().strip()


def _write(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


class Group:
    """One sandbox's control group: a folder per v1 controller, or one v2 folder."""

    def __init__(self, version: int, dirs: dict[str, Path]) -> None:
        self.version = version
        self.dirs = dirs
        self._procs = str(dirs["pids"] / "cgroup.procs")  # the members, in either version
        self._tasks = str(dirs["pids"] / ("tasks" if version == 1 else "cgroup.threads"))
        self._count = os.open(dirs["pids"] / "pids.current", os.O_RDONLY)
        usage = dirs["cpuacct"] / ("cpuacct.usage" if version == 1 else "cpu.stat")
        self._usage = os.open(usage, os.O_RDONLY)

    @property
    def procs_files(self) -> list[str]:
        """The files a process writes its pid into to join this group."""
        return sorted({str(d / "cgroup.procs") for d in self.dirs.values()})

    def members(self) -> list[int]:
        """Every process in the group now."""
        return _ids(self._procs)

    def tasks(self) -> list[int]:
        """Every thread in the group now (a signal to any one reaches its whole process)."""
        return _ids(self._tasks)

    def task_count(self) -> int:
        """How many threads the group has: one read of a kept file, about a microsecond."""
        return int(os.pread(self._count, 64, 0))

    def limit(self, memory_bytes: int, pids: int) -> None:
        """Cap the whole sandbox: memory (kernel memory and swap included) and processes."""
        memory = self.dirs["memory"]
        if self.version == 1:
            _write(memory / "memory.limit_in_bytes", str(memory_bytes))
            with contextlib.suppress(OSError):  # absent without swap accounting
                _write(memory / "memory.memsw.limit_in_bytes", str(memory_bytes))
        else:
            _write(memory / "memory.max", str(memory_bytes))
            with contextlib.suppress(OSError):
                _write(memory / "memory.swap.max", "0")
        _write(self.dirs["pids"] / "pids.max", str(pids))

    def cpu_ns(self) -> int:
        """CPU time the group's processes have used, in nanoseconds."""
        raw = os.pread(self._usage, 4096, 0)
        if self.version == 1:
            return int(raw)
        for line in raw.splitlines():
            if line.startswith(b"usage_usec"):
                return int(line.split()[1]) * 1000
        return 0

    def oom_kills(self) -> int:
        """How many processes the kernel killed here for want of memory."""
        memory = self.dirs["memory"]
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            for line in _read(memory / name).splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except OSError:
            pass
        return 0

    def remove(self) -> None:
        """Kill what is left and delete the group's folders."""
        for fd in (self._usage, self._count):
            with contextlib.suppress(OSError):
                os.close(fd)
        for folder in sorted(set(self.dirs.values())):
            _discard(folder)


class Tree:
    """Where this process makes its sandboxes' groups (one folder per controller on v1)."""

    def __init__(self, version: int, bases: dict[str, Path]) -> None:
        self.version = version
        self.bases = bases

    @property
    def mode(self) -> str:
        return f"cgroup-v{self.version}"

    def group(self, name: str) -> Group:
        """A new, empty group `name` (an old one of that name is removed first)."""
        dirs = {c: base / name for c, base in self.bases.items()}
        for folder in set(dirs.values()):
            if folder.exists():
                _discard(folder)
            folder.mkdir()
        return Group(self.version, dirs)

    def sweep(self, alive: Callable[[int], bool]) -> None:
        """Remove the groups of processes that died without cleaning up (SIGKILL)."""
        for folder in set(self.bases.values()):
            for entry in folder.iterdir():
                owner = entry.name.split("-", 1)[0]
                if entry.is_dir() and owner.isdigit() and not alive(int(owner)):
                    _discard(entry)


def _discard(folder: Path) -> None:
    """Kill every member of a group folder (stopped ones too) and remove it."""
    procs = folder / "cgroup.procs"
    with contextlib.suppress(OSError):
        for _ in range(100):
            pids = [int(p) for p in _read(procs).split()]
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    os.kill(pid, signal.SIGCONT)
            time.sleep(0.01)
    with contextlib.suppress(OSError):
        folder.rmdir()


def _mounts() -> tuple[dict[str, Path], Path | None]:
    """Mount points of the v1 controllers we use, and of the v2 hierarchy."""
    v1: dict[str, Path] = {}
    v2 = None
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            left, _, right = line.partition(" - ")
            fstype, _source, options = [*right.split(), "", ""][:3]
            point = Path(left.split()[4])
            if fstype == "cgroup2":
                v2 = v2 or point
            elif fstype == "cgroup":
                for option in options.split(","):
                    if option in V1_CONTROLLERS:
                        v1[option] = point
    return v1, v2


def _own_paths() -> dict[str, str]:
    """This process's group in each hierarchy ("" is the v2 one)."""
    paths = {}
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                paths[controller] = path
    return paths


def _v1_tree() -> Tree | None:
    mounts, _ = _mounts()
    if any(c not in mounts for c in V1_CONTROLLERS):
        return None
    own = _own_paths()
    bases = {}
    for controller in V1_CONTROLLERS:
        base = mounts[controller] / own.get(controller, "/").lstrip("/") / BASE_NAME
        base.mkdir(exist_ok=True)
        bases[controller] = base
    return _writable(Tree(1, bases))


def _v2_tree() -> Tree | None:
    _, mount = _mounts()
    if mount is None:
        return None
    base = Path(os.environ.get("TRADEWINDS_CGROUP") or mount / BASE_NAME)
    available = _read(base.parent / "cgroup.controllers").split()
    if any(c not in available for c in V2_CONTROLLERS):
        return None
    wanted = " ".join(f"+{c}" for c in V2_CONTROLLERS)
    with contextlib.suppress(OSError):  # on by default at the root under systemd
        _write(base.parent / "cgroup.subtree_control", wanted)
    base.mkdir(exist_ok=True)
    _write(base / "cgroup.subtree_control", wanted)
    return _writable(Tree(2, {c: base for c in (*V2_CONTROLLERS, "cpuacct")}))


def _writable(tree: Tree) -> Tree:
    """`tree` if this process can make a group in it (another user may own the folders)."""
    probe = tree.group(f"{os.getpid()}-probe")
    probe.remove()
    return tree


@functools.cache
def _detect(owner: int) -> tuple[Tree | None, str | None]:
    if os.environ.get("TRADEWINDS_CGROUPS", "").lower() in ("off", "0", "no"):
        return None, "cgroups turned off (TRADEWINDS_CGROUPS=off): " + NO_CGROUPS
    reasons = []
    for version, make in ((1, _v1_tree), (2, _v2_tree)):
        try:
            found = make()
        except OSError as exc:
            reasons.append(f"v{version}: {exc.strerror or exc}")
            continue
        if found is not None:
            return found, None
        reasons.append(f"v{version}: controllers not mounted")
    why = f"{NO_CGROUPS} ({'; '.join(reasons)})"
    log.warning("bot sandboxes without cgroups: %s", why)
    return None, why


def tree() -> Tree | None:
    """This process's cgroup tree for sandboxes, or None (signals only)."""
    return _detect(os.getpid())[0]


def isolation() -> dict:
    """How bots are held apart here, for the log and the staff page."""
    found, warning = _detect(os.getpid())
    return {"mode": found.mode if found else "signals", "warning": warning}
