"""Worker hosts on one machine, for the multi-host test: namespaces, forwarders, workers.

A "host" is a network namespace of its own, whose only address is its own
loopback, and a UTS namespace with its own hostname (so leases, which name
`hostname:pid`, tell the hosts apart). It reaches the server side's
PostgreSQL and Redis only through a forwarder (`tests.integration.forwarder`)
listening on the namespace's 127.0.0.1 and relaying to the servers' Unix
sockets; killing the forwarder cuts the host off. Its worker starts in an
empty folder of its own, with its own TMPDIR and LADDER_VAR, and an
environment holding only what a real worker host is given.

Processes enter the namespace with `nsenter --net`, not `ip netns exec`:
the latter also mounts a fresh /sys, which hides /sys/fs/cgroup from the
sandbox. Everything is killed by its process id (group), never by name.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from ladder.cli.processes import free_port, redis_server, worker_command
from tests.integration.live import wait_until

ROOT = Path(__file__).resolve().parents[2]
NETNS_DIR = Path("/run/netns")
TOOLS = ("ip", "nsenter", "unshare", "hostname")
READY_S = 15
LOOPBACK = ("127.", "::1")


def namespaces_unavailable() -> str | None:
    """Why this machine cannot make network namespaces for a test, or None if it can."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"{', '.join(missing)} not installed (`make test` installs iproute2)"
    return None


def unique_name(label: str) -> str:
    """A namespace name no other test run uses: our pid and a random part."""
    return f"tw{os.getpid()}-{secrets.token_hex(3)}-{label}"


def remove_stale_namespaces() -> None:
    """Delete the namespaces of test runs that died before their clean-up (SIGKILL)."""
    for entry in NETNS_DIR.glob("tw*-*-*"):
        found = re.fullmatch(r"tw(\d+)-[0-9a-f]{6}-\w+", entry.name)
        if found and not Path(f"/proc/{found[1]}").exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                run(["ip", "netns", "delete", entry.name])


class Namespace:
    """A named network namespace with only its loopback, up; `delete` removes it."""

    def __init__(self, label: str) -> None:
        self.name = unique_name(label)
        run(["ip", "netns", "add", self.name])
        try:
            run(["ip", "-n", self.name, "link", "set", "lo", "up"])
        except BaseException:
            self.delete()
            raise

    @property
    def path(self) -> Path:
        return NETNS_DIR / self.name

    def command(self, argv: list[str], hostname: str | None = None) -> list[str]:
        """`argv` run inside this namespace (and, with `hostname`, a UTS namespace named so)."""
        inside = ["nsenter", f"--net={self.path}", "--"]
        if hostname is None:
            return [*inside, *argv]
        name_it = 'hostname "$0" && exec "$@"'
        return [*inside, "unshare", "--uts", "--", "sh", "-c", name_it, hostname, *argv]

    def addresses(self) -> list[str]:
        """Every IP address configured in the namespace (expected: loopback only)."""
        out = run(["ip", "-n", self.name, "-o", "addr", "show"])
        return [line.split()[3].split("/")[0] for line in out.splitlines() if line.strip()]

    def delete(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            run(["ip", "netns", "delete", self.name])


def run(argv: list[str]) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL a process and its whole group, as a crash or a pulled cable would."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


TEARDOWN_WAIT_S = 2  # for a host's running matches when a test is over


def stop_group(proc: subprocess.Popen, wait_s: float = 15) -> None:
    """SIGTERM a process group, SIGKILL it if it has not ended within `wait_s`."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(wait_s)
        except subprocess.TimeoutExpired:
            kill_group(proc)


class RedisOnSocket:
    """The server side's Redis: a Unix socket for the forwarders, and 127.0.0.1:`port`
    in our own namespace for the web side and beat (no host's namespace can reach it)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.socket_path = folder / "redis.sock"
        self.port = free_port(0)
        command = [
            redis_server(),
            "--bind", "127.0.0.1", "--port", str(self.port),
            "--unixsocket", str(self.socket_path), "--unixsocketperm", "700",
            "--dir", str(folder), "--save", "", "--appendonly", "no",
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        wait_until(self._up, READY_S, "redis-server to listen on its socket")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _up(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"redis-server exited with code {self.proc.returncode}")
        return self.socket_path.exists()

    def stop(self) -> None:
        stop_group(self.proc)


class Forwarder:
    """The forwarder of one host: ports on the host's loopback for each Unix socket."""

    def __init__(self, ns: Namespace, routes: dict[str, Path], log: Path) -> None:
        argv = [sys.executable, "-m", "tests.integration.forwarder"]
        argv += [f"{name}={path}" for name, path in routes.items()]
        with open(log, "ab") as err:
            self.proc = subprocess.Popen(
                ns.command(argv),
                cwd=ROOT,
                stdout=subprocess.PIPE,
                stderr=err,
                start_new_session=True,
            )
        try:
            self.ports: dict[str, int] = json.loads(self._first_line())
        except BaseException:
            kill_group(self.proc)
            raise

    def _first_line(self) -> bytes:
        ready, _, _ = select.select([self.proc.stdout], [], [], READY_S)
        if not ready:
            raise AssertionError(f"the forwarder did not announce its ports within {READY_S} s")
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"the forwarder exited with code {self.proc.wait()}")
        return line

    def kill(self) -> None:
        """Cut the cable: listeners and every relayed connection end at once."""
        kill_group(self.proc)
        self.proc.stdout.close()


class WorkerHost:
    """One worker host: a namespace, its forwarder, an empty folder and a Celery worker.

    `servers` maps "postgres" and "redis" to the servers' Unix sockets;
    `settings` are extra environment variables (test timing knobs, and what two
    hosts on one kernel must share).
    """

    def __init__(
        self,
        root: Path,
        label: str,
        servers: dict[str, Path],
        database: str,
        db_user: str,
        settings: dict[str, str],
    ) -> None:
        self.label = label
        self.folder = root / f"host-{label}"
        self.work = self.folder / "work"  # the worker's cwd: stays empty
        self.tmp = self.folder / "tmp"
        self.var = self.folder / "var"
        self.log_path = self.folder / "worker.log"
        for folder in (self.work, self.tmp, self.var):
            folder.mkdir(parents=True)
        # bwrap runs as the slot's uid and must pass through TMPDIR to the slot folders.
        for folder in (self.folder, self.tmp):
            folder.chmod(0o711)
        self.hostname = unique_name(label)
        self.ns = Namespace(label)
        self.forwarder: Forwarder | None = None
        self.worker: subprocess.Popen | None = None
        try:
            self.forwarder = Forwarder(self.ns, servers, root / f"forwarder-{label}.log")
        except BaseException:
            self.ns.delete()
            raise
        ports = self.forwarder.ports
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.tmp),
            "LADDER_VAR": str(self.var),
            "DATABASE_URL": f"postgresql://{db_user}@127.0.0.1:{ports['postgres']}/{database}",
            "REDIS_URL": f"redis://127.0.0.1:{ports['redis']}/0",
            **settings,
        }

    def start_worker(self) -> None:
        """Start the host's worker (one bot match at a time); `wait_ready` waits for it."""
        argv = [*worker_command(1), "--hostname", f"worker@{self.hostname}"]
        with open(self.log_path, "ab") as log:
            self.worker = subprocess.Popen(
                self.ns.command(argv, hostname=self.hostname),
                cwd=self.work,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )

    def wait_ready(self) -> None:
        wait_until(self._ready, 60, f"host {self.label}'s worker to be ready")

    def _ready(self) -> bool:
        if self.worker.poll() is not None:
            raise AssertionError(f"host {self.label}'s worker exited:\n{self.log()[-3000:]}")
        return " ready." in self.log()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def cut(self) -> None:
        """Pull the host's cable: its forwarder dies, and with it every connection."""
        if self.forwarder is not None:
            self.forwarder.kill()
            self.forwarder = None

    def crash(self) -> None:
        """SIGKILL the worker and everything in its process group: no clean-up at all."""
        if self.worker is not None:
            kill_group(self.worker)
            self.worker = None

    def close(self) -> None:
        """Stop the worker (politely, while the cable is still in), the forwarder, the namespace.
        A test is over: a match still running need not end, so the wait is short."""
        try:
            if self.worker is not None:
                stop_group(self.worker, wait_s=TEARDOWN_WAIT_S)
                self.worker = None
        finally:
            self.cut()
            self.ns.delete()


def wait_for(check, timeout_s: float, what: str, every_s: float = 0.05):
    """Like `wait_until`, polling faster: for moments that last a second or two."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
