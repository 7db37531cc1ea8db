"""The service's processes: how `ladder web`, `ladder worker` and `ladder beat` start
gunicorn and Celery, and `ladder run`, the whole service on one machine (for
development and demos).

`ladder run` starts a private Redis under var/ (unless REDIS_URL is given), migrates the
database, seeds the house bots, then runs gunicorn, one Celery worker and
Celery beat as child processes. Ctrl-C (or SIGTERM) stops every one of them;
if one dies, the others are stopped too, so nothing is left half-running.
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
from ladder.cli.db import upgrade
from ladder.jobs.celery_app import QUEUES

STOP_WAIT_S = 15


def free_port(preferred: int) -> int:
    """`preferred` if nothing listens there, else any free local port."""
    for port in (preferred, 0):
        with socket.socket() as probe:
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


def start_redis(var: Path, port: int) -> subprocess.Popen:
    """A private Redis on 127.0.0.1:`port`, its data under var/redis."""
    data = var / "redis"
    data.mkdir(parents=True, exist_ok=True)
    command = [
        redis_server(),
        "--bind", "127.0.0.1",
        "--port", str(port),
        "--dir", str(data),
        "--save", "60 1",
        "--appendonly", "no",
        "--protected-mode", "yes",
    ]  # fmt: skip
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


# gunicorn's access log as JSON lines, like the app's own logs.
ACCESS_LOG_FORMAT = (
    '{"ts": "%(t)s", "component": "web", "msg": "request", "method": "%(m)s",'
    ' "path": "%(U)s", "status": %(s)s, "ms": %(M)s, "bytes": "%(B)s"}'
)


def web_command(bind: str, workers: int) -> list[str]:
    return python_module(
        "gunicorn", "--bind", bind, "--workers", str(workers), "--access-logfile", "-",
        "--access-logformat", ACCESS_LOG_FORMAT, "ladder.web.wsgi:app",
    )  # fmt: skip


def worker_command(concurrency: int) -> list[str]:
    return python_module(
        "celery", "-A", "ladder.jobs.worker_app", "worker", "--concurrency", str(concurrency),
        "--queues", ",".join(QUEUES), "--loglevel", "INFO", "--without-mingle", "--without-gossip",
    )  # fmt: skip


def beat_command(var: Path) -> list[str]:
    return python_module(
        "celery", "-A", "ladder.jobs.worker_app", "beat", "--loglevel", "INFO",
        "--schedule", str(var / "celerybeat-schedule"),
    )  # fmt: skip


def stop(procs: dict[str, subprocess.Popen]) -> None:
    """Stop what uses Redis first (web, workers, beat), then Redis itself.

    A worker that stops acknowledges its tasks and signs off in Redis; with
    Redis gone first it logs connection errors and tracebacks instead.
    """
    _stop_groups({name: proc for name, proc in procs.items() if name != "redis"})
    _stop_groups({name: proc for name, proc in procs.items() if name == "redis"})


def _stop_groups(procs: dict[str, subprocess.Popen]) -> None:
    """SIGTERM every process group, then SIGKILL what is still there after a while."""
    for proc in procs.values():
        if proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
    deadline = time.monotonic() + STOP_WAIT_S
    for proc in procs.values():
        try:
            proc.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            proc.wait()


def _signal_group(proc: subprocess.Popen, signo: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signo)


def seed(env: dict) -> tuple[str, str]:
    """Migrate the database and make the demo account; returns its name and password."""
    url = settings.database_url(env)
    upgrade(url)
    from ladder import create_app
    from ladder.extensions import db
    from ladder.services.errors import ServiceError
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
            seed_house_bots(db.session, app.config, password)
        except ServiceError as exc:  # the house name is held by another account
            raise click.ClickException(str(exc)) from None
        name = app.config.get("HOUSE_USER", "demo")
    return name, password


def run_all(host: str, port: int, web_workers: int, concurrency: int) -> None:
    """Start everything, print the URL, and supervise until Ctrl-C or a child dies."""
    env = dict(os.environ)
    var = Path(env.get("LADDER_VAR", settings.VAR))
    var.mkdir(parents=True, exist_ok=True)
    env.setdefault("LADDER_VAR", str(var))
    procs: dict[str, subprocess.Popen] = {}
    stopping = False

    def on_signal(signo, _frame) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        if not env.get("REDIS_URL"):
            redis_port = free_port(int(env.get("LADDER_REDIS_PORT", 6390)))
            procs["redis"] = start_redis(var, redis_port)
            env["REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
        user, password = seed(env)
        if free_port(port) != port:
            raise click.ClickException(f"port {port} is in use; pass --port")
        bind = f"{host}:{port}"
        for name, command in (
            ("web", web_command(bind, web_workers)),
            ("worker", worker_command(concurrency)),
            ("beat", beat_command(var)),
        ):
            procs[name] = subprocess.Popen(command, env=env, start_new_session=True)
        click.echo(
            f"\nTradewinds is running at http://{bind}/\n"
            f"  demo account: {user} / {password}\n"
            f"  broker: {env['REDIS_URL']}   database: {settings.database_url(env)}\n"
            "  Ctrl-C stops everything.\n"
        )
        parent = os.getppid()
        while not stopping:
            if os.getppid() != parent:
                break  # whoever started us (make, a shell) is gone: stop with it
            dead = [n for n, p in procs.items() if p.poll() is not None]
            if dead:
                raise click.ClickException(f"{', '.join(dead)} stopped unexpectedly")
            time.sleep(0.5)
    finally:
        stop(procs)
    click.echo("stopped")
