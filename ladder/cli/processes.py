"""The service's processes: how `ladder web`, `ladder worker` and `ladder beat` start
gunicorn and Celery, and `ladder run`, the whole service on one machine (for
development and demos).

`ladder run` starts a private Redis under var/ (unless REDIS_URL is given), migrates the
database, seeds the house bots, then runs gunicorn, one Celery worker and
Celery beat as child processes. Ctrl-C (or SIGTERM, or SIGHUP from a closed
terminal) stops every one of them; if one dies, the others are stopped too, so
nothing is left half-running. A console that goes away (a closed terminal, the
end of a `| tee` that Ctrl-C also stopped) never keeps the stop from happening.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import click

from ladder import settings
from ladder.broker.announce import QUEUES, TABLE_QUEUES
from ladder.cli.console import LogTail, status_line
from ladder.cli.db import upgrade

STOP_WAIT_S = 15


def free_port(preferred: int) -> int:
    """`preferred` if nothing listens there, else any free local port.

    The probe binds with SO_REUSEADDR, as gunicorn and Redis do: a port whose last
    connections still linger in TIME_WAIT (a restart within a minute) is free to
    them, and only a live listener makes it busy.
    """
    for port in (preferred, 0):
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return probe.getsockname()[1]
    raise RuntimeError("no free local port")


def redis_server() -> str:
    """Path of redis-server, or a clear error saying how to get it."""
    path = shutil.which("redis-server")
    if path is None:
        raise click.ClickException(
            "redis-server is not installed: run `apt-get install redis-server` (as root),"
            " or set REDIS_URL to a Redis you run yourself"
        )
    return path


def start_redis(var: Path, port: int, log: Path | None = None) -> subprocess.Popen:
    """A private Redis on 127.0.0.1:`port`, its folder var/redis (its log in `log`).

    It keeps nothing on disk (no snapshot, no append-only file): all it holds is
    rebuilt from the database when it starts empty (the scheduler's sweep sends
    unmarked work again; workers take their leases back). So it never forks, and
    the `vm.overcommit_memory` warning redis-server logs at every start, whatever
    its options (there is none to silence it, and setting the sysctl is the
    machine's owner's call), is about background saves this Redis never makes.
    """
    data = var / "redis"
    data.mkdir(parents=True, exist_ok=True)
    command = [
        redis_server(),
        "--bind", "127.0.0.1",
        "--port", str(port),
        "--dir", str(data),
        "--save", "",
        "--appendonly", "no",
        "--protected-mode", "yes",
    ]  # fmt: skip
    if log is not None:
        command += ["--logfile", str(log)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        if proc.poll() is not None:
            raise click.ClickException(f"redis-server exited with code {proc.returncode}")
        time.sleep(0.05)
    proc.kill()
    raise click.ClickException(f"redis-server did not listen on port {port} within 10 s")


def python_module(module: str, *args: str) -> list[str]:
    return [sys.executable, "-m", module, *args]


def web_command(bind: str, workers: int) -> list[str]:
    return python_module(
        "gunicorn", "--bind", bind, "--workers", str(workers), "--access-logfile", "-",
        "--logger-class", "ladder.web.gunicorn_log.JsonLogger",
        *_no_control_socket(), "ladder.web.wsgi:app",
    )  # fmt: skip


def _no_control_socket() -> list[str]:
    """gunicorn 24+ opens a control socket under ~/.gunicorn by default; we never use it,
    and a service should leave nothing in its user's home."""
    from gunicorn.config import KNOWN_SETTINGS

    has_socket = any(setting.name == "control_socket" for setting in KNOWN_SETTINGS)
    return ["--no-control-socket"] if has_socket else []


def worker_command(concurrency: int, tables: bool = False) -> list[str]:
    """A Celery worker of the ladder's queues, or with `tables` the table worker: the
    tables queue only (a live table waits minutes for a person; it must never hold a
    worker the ladder, a tournament, a challenge or a test needs)."""
    queues = TABLE_QUEUES if tables else QUEUES
    name = ["--hostname", "tables@%h"] if tables else []
    app = "ladder.jobs.tables_app" if tables else "ladder.jobs.worker_app"
    return python_module(
        "celery", "-A", app, "--quiet", "worker",
        "--concurrency", str(concurrency), "--queues", ",".join(queues), *name,
        "--loglevel", "INFO", "--without-mingle", "--without-gossip",
    )  # fmt: skip


def beat_command(var: Path) -> list[str]:
    return python_module(
        "celery", "-A", "ladder.jobs.beat_app", "--quiet", "beat", "--loglevel", "INFO",
        "--schedule", str(var / "celerybeat-schedule"),
    )  # fmt: skip


def stop(procs: dict[str, subprocess.Popen], wait_s: float = STOP_WAIT_S) -> None:
    """Stop what uses Redis first (web, workers, beat), then Redis itself.

    A worker that stops acknowledges its tasks and signs off in Redis; with
    Redis gone first it logs connection errors and tracebacks instead. `wait_s`
    bounds the wait for running matches to end (a test's teardown does not wait).
    """
    _stop_groups({name: proc for name, proc in procs.items() if name != "redis"}, wait_s)
    _stop_groups({name: proc for name, proc in procs.items() if name == "redis"}, wait_s)


def _stop_groups(procs: dict[str, subprocess.Popen], wait_s: float) -> None:
    """SIGTERM each leader (gunicorn's master, Celery's main process): it stops its
    own children in order (a warm shutdown lets running matches end). Then SIGKILL
    whatever is left in its process group, at once if it has ended, else after a while.

    Signalling the whole group instead would strike Celery's pool processes mid-task,
    which the worker logs as errors (WorkerLostError) on every Ctrl-C.
    """
    for proc in procs.values():
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    for proc in procs.values():
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            proc.wait()
        else:
            _signal_group(proc, signal.SIGKILL)  # leftovers of a leader that ended


def _signal_group(proc: subprocess.Popen, signo: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signo)


def seed(env: dict) -> tuple[str, str]:
    """Migrate the database and make the demo account; returns its name and password."""
    url = settings.database_url(env)
    upgrade(url)
    from ladder import create_app
    from ladder.errors import ServiceError
    from ladder.extensions import app_settings, db
    from ladder.services.house import seed_house_bots

    var = Path(env.get("LADDER_VAR", settings.VAR))
    secret = var / "demo_password"
    if env.get("DEMO_PASSWORD"):
        password = env["DEMO_PASSWORD"]
    elif secret.exists():
        password = secret.read_text().strip()
    else:
        password = f"demo-{os.urandom(4).hex()}"
        secret.write_text(password)
        secret.chmod(0o600)
    app = create_app({"DATABASE_URL": url})
    with app.app_context():
        try:
            seed_house_bots(db.session, app_settings(app), password)
        except ServiceError as exc:  # the house name is held by another account
            raise click.ClickException(str(exc)) from None
        name = app_settings(app).house_user
    return name, password


def say(text: str, err: bool = False) -> None:
    """A line on the console, if there still is one.

    A console can vanish under a running service: the terminal closes, or Ctrl-C
    also ends the `tee` that `make run | tee` prints through. Writing then fails,
    and an exception from a print must not keep `run_all` from stopping its
    processes; so the stream is pointed at /dev/null and the service carries on
    (or stops) without it.
    """
    try:
        click.echo(text, err=err)
    except OSError:  # BrokenPipeError from a pipe, EIO from a hung-up terminal
        stream = sys.stderr if err else sys.stdout
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
            os.close(devnull)


def run_all(
    host: str, port: int, web_workers: int, concurrency: int, status_every_s: int = 60
) -> None:
    """Start everything, say where once it is up, and supervise until Ctrl-C or a child dies.

    Each process logs to var/log/<name>.log; the console shows the banner once the
    site answers and the worker is ready, then a status line every `status_every_s`
    and any error a process logs.
    """
    env = dict(os.environ)
    var = Path(env.get("LADDER_VAR", settings.VAR))
    logs = var / "log"
    logs.mkdir(parents=True, exist_ok=True)
    env.setdefault("LADDER_VAR", str(var))
    procs: dict[str, subprocess.Popen] = {}
    files = []
    stopping = False

    def on_signal(signo, _frame) -> None:
        nonlocal stopping
        stopping = True

    def start(name: str, command: list[str]) -> None:
        out = open(logs / f"{name}.log", "ab")  # noqa: SIM115 - closed at the end
        files.append(out)
        procs[name] = subprocess.Popen(
            command, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )

    for signo in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signo, on_signal)
    tail = LogTail(logs)
    tail.start()
    try:
        if free_port(port) != port:
            raise click.ClickException(f"port {port} is in use; pass --port")
        if not env.get("REDIS_URL"):
            redis_port = free_port(int(env.get("LADDER_REDIS_PORT", 6390)))
            procs["redis"] = start_redis(var, redis_port, logs / "redis.log")
            env["REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
        say(f"Starting Tradewinds (logs in {logs}/) ...")
        user, password = seed(env)
        bind = f"{host}:{port}"
        start("web", web_command(bind, web_workers))
        start("worker", worker_command(concurrency))
        table_workers = settings.Settings.from_env(env).table_workers
        if table_workers > 0:
            start("tables", worker_command(table_workers, tables=True))
        start("beat", beat_command(var))
        watch = _Watch(procs, tail, lambda: stopping)
        watch.until(lambda: _answers(host, port) and _ready(logs / "worker.log"), 120)
        if stopping:
            return
        say(
            f"\nTradewinds is running at http://{bind}/\n"
            f"  demo account: {user}   password: {password}\n"
            f"  logs: {logs}/ (web, worker and beat in JSON lines; redis.log)\n"
            f"  database: {settings.database_url(env)}   broker: {env['REDIS_URL']}\n"
            f"  A status line follows every {status_every_s} s. Ctrl-C stops everything.\n"
        )
        status = _status_reader(env, status_every_s)
        next_status = time.monotonic() + status_every_s
        while watch.step():
            if time.monotonic() >= next_status:
                say(status())
                next_status += status_every_s
            time.sleep(0.5)
    finally:
        if procs:
            say("stopping ...")
        stop(procs)
        for alarm in tail.alarms():
            say(alarm, err=True)
        for out in files:
            out.close()
    say("stopped")


class _Watch:
    """Supervision: print new alarms, notice a dead child, the parent gone, or Ctrl-C."""

    def __init__(self, procs, tail: LogTail, stopping) -> None:
        self.procs, self.tail, self.stopping = procs, tail, stopping
        self.parent = os.getppid()

    def step(self) -> bool:
        """One look; False when it is time to stop. A dead child is an error."""
        for alarm in self.tail.alarms():
            say(alarm, err=True)
        if self.stopping() or os.getppid() != self.parent:
            return False  # Ctrl-C, or whoever started us (make, a shell) is gone
        dead = [n for n, p in self.procs.items() if p.poll() is not None]
        if dead:
            raise click.ClickException(
                f"{', '.join(dead)} stopped unexpectedly; see {self.tail.folder}/"
            )
        return True

    def until(self, ready, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while self.step() and not ready():
            if time.monotonic() > deadline:
                raise click.ClickException(
                    f"the service did not come up within {timeout_s:.0f} s; see {self.tail.folder}/"
                )
            time.sleep(0.25)


def _answers(host: str, port: int) -> bool:
    """Whether the site answers HTTP (any status) on host:port."""
    import http.client

    connection = http.client.HTTPConnection(host, port, timeout=2)
    try:
        connection.request("GET", "/")
        connection.getresponse().read()
        return True
    except OSError:
        return False
    finally:
        connection.close()


def _ready(worker_log: Path) -> bool:
    """Whether the Celery worker said it is ready (a JSON record ending in ' ready.')."""
    try:
        return b' ready."' in worker_log.read_bytes()[-65536:]
    except OSError:
        return False


def _status_reader(env: dict, every_s: int):
    """A function giving the status line, with an engine opened once."""
    from sqlalchemy.orm import Session

    from ladder.extensions import make_engine

    engine = make_engine(settings.database_url(env))

    def read() -> str:
        try:
            with Session(engine) as session:
                return status_line(session, every_s)
        except Exception as exc:  # the status line must never stop the service
            return f"[{time.strftime('%H:%M')}] status unavailable: {exc}"

    return read
