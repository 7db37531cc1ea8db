"""A private PostgreSQL server for tests and benchmarks: no system service, no fixed path.

`start_cluster()` runs Debian's `initdb` and `postgres` on a fresh temporary
folder, listening on a Unix socket only (no TCP), tuned for throwaway data
(no fsync). PostgreSQL refuses to run as root, so as root the server runs as
the `postgres` system user (else `nobody`), which is given the folder.
"""

from __future__ import annotations

import atexit
import glob
import os
import pwd
import random
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

SUPERUSER = "postgres"
READY_SECONDS = 60.0

# Throwaway data: durability off. Enough connections for a live ladder
# (web, beat, several workers with their pools, the test's own engine).
SETTINGS = {
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "listen_addresses": "",
    "max_connections": "200",
    "timezone": "UTC",
    "log_timezone": "UTC",
}


def bin_dir() -> Path:
    """The newest PostgreSQL server binaries Debian installed (they are not on PATH)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/postgres"),
        key=lambda p: int(Path(p).parent.parent.name.split(".")[0]),
    )
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("postgres")
    if on_path:
        return Path(on_path).parent
    raise RuntimeError("PostgreSQL is not installed (`make test` installs Debian's `postgresql`)")


def _server_user() -> pwd.struct_passwd | None:
    """Whom to run the server as: None means ourselves (we are not root)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("running as root, and there is no `postgres` or `nobody` user to run as")


class Cluster:
    """A private PostgreSQL server under a temporary folder, on a Unix socket only."""

    def __init__(self, port: int | None = None, **settings: str) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="pg-"))
        self.socket_dir = self.base / "run"
        self.data_dir = self.base / "data"
        self.log_path = self.base / "postgres.log"
        # The number only names the socket file inside our own folder, so it
        # cannot clash with another server; a random one keeps logs telling apart.
        self.port = port or random.randint(20000, 60000)
        self.settings = settings  # over SETTINGS
        self.bin = bin_dir()
        self._owner = _server_user()
        self._process: subprocess.Popen | None = None
        self.socket_dir.mkdir()
        if self._owner is not None:
            _reachable_by_others(self.base)
            for path in (self.base, self.socket_dir):
                os.chown(path, self._owner.pw_uid, self._owner.pw_gid)
            # Others may pass through to the socket (clients need not be root); data/ stays 0700.
            self.base.chmod(0o711)

    @property
    def socket_path(self) -> Path:
        return self.socket_dir / f".s.PGSQL.{self.port}"

    def url(self, database: str = "postgres") -> str:
        """A DATABASE_URL as users write it (libpq style, socket in the query)."""
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}&port={self.port}"

    def start(self) -> None:
        """initdb (once), then the server; returns when it accepts connections."""
        if self._process is not None:
            return
        if not (self.data_dir / "PG_VERSION").exists():
            self._initdb()
        args = [str(self.bin / "postgres"), "-D", str(self.data_dir), "-p", str(self.port)]
        args += ["-c", f"unix_socket_directories={self.socket_dir}"]
        for key, value in {**SETTINGS, **self.settings}.items():
            args += ["-c", f"{key}={value}"]
        with open(self.log_path, "ab") as log:
            self._process = subprocess.Popen(
                args,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C to the tests is not a fast shutdown
                **self._as_owner(),
            )
        atexit.register(self.stop)
        self._wait_ready()

    def stop(self) -> None:
        """Fast shutdown (SIGINT: roll back, disconnect, stop), then remove `base`."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()  # immediate shutdown; the data is thrown away anyway
                process.wait()
        atexit.unregister(self.stop)
        shutil.rmtree(self.base, ignore_errors=True)

    def halt(self) -> None:
        """Immediate shutdown (SIGQUIT: no checkpoint, every connection cut), as a crash of
        the server would; the data stays, and `start` brings it back after crash recovery."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGQUIT)
            process.wait(timeout=30)
        atexit.unregister(self.stop)

    def create_database(self, name: str, template: str | None = None) -> str:
        """CREATE DATABASE `name` (a copy of `template` if given); returns its URL."""
        from psycopg import sql

        statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template is not None:
            statement += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
        self.execute(statement)
        return self.url(name)

    def drop_database(self, name: str) -> None:
        """DROP DATABASE, ending its sessions first (a test may leave a pool open)."""
        from psycopg import sql

        self.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )

    def empty_database(self, name: str, keep: tuple[str, ...] = ("alembic_version",)) -> None:
        """Delete every row of every table but `keep`, and restart every sequence at 1.

        Much quicker than a fresh copy of a template (about 1 ms against 150 for our
        small schema): one round trip, foreign keys unchecked meanwhile (replica role)
        so no order is needed. Other sessions must have ended, or their locks hold it up.
        """
        with self._connect(name) as connection, connection.transaction():
            connection.execute("SET LOCAL lock_timeout = '10s'")
            connection.execute("SET LOCAL session_replication_role = replica")
            connection.execute(EMPTY.replace("@KEEP@", ", ".join(_literal(t) for t in keep)))

    def execute(self, statement, database: str = "postgres") -> None:
        """Run one statement outside a transaction (CREATE/DROP DATABASE need that)."""
        with self._connect(database) as connection:
            connection.execute(statement)

    def _connect(self, database: str):
        import psycopg

        return psycopg.connect(
            host=str(self.socket_dir),
            port=self.port,
            user=SUPERUSER,
            dbname=database,
            autocommit=True,
        )

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def _initdb(self) -> None:
        args = [str(self.bin / "initdb"), "-D", str(self.data_dir), "-U", SUPERUSER]
        args += ["--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"]
        done = subprocess.run(
            args,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            cwd=self.base,
            **self._as_owner(),
        )
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed ({done.returncode}):\n{done.stdout}{done.stderr}")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        isready = [str(self.bin / "pg_isready"), "-q", "-h", str(self.socket_dir)]
        isready += ["-p", str(self.port), "-U", SUPERUSER, "-d", "postgres"]
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                code, tail = self._process.returncode, self.log_tail()
                self.stop()
                raise RuntimeError(f"postgres exited ({code}) while starting:\n{tail}")
            if subprocess.run(isready, stdin=subprocess.DEVNULL).returncode == 0:
                return
            if time.monotonic() > deadline:
                tail = self.log_tail()
                self.stop()
                raise RuntimeError(f"postgres not ready after {READY_SECONDS:.0f}s:\n{tail}")
            time.sleep(0.05)

    def _as_owner(self) -> dict:
        if self._owner is None:
            return {}
        env = dict(os.environ, HOME=str(self.base), USER=self._owner.pw_name)
        return {
            "user": self._owner.pw_uid,
            "group": self._owner.pw_gid,
            "extra_groups": [],
            "env": env,
        }


# Every table's rows and every sequence's count, in one statement run by the server.
EMPTY = """
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT schemaname, tablename FROM pg_tables
           WHERE schemaname = 'public' AND tablename NOT IN (@KEEP@) LOOP
    EXECUTE format('DELETE FROM %I.%I', r.schemaname, r.tablename);
  END LOOP;
  FOR r IN SELECT schemaname, sequencename FROM pg_sequences WHERE schemaname = 'public' LOOP
    PERFORM setval(format('%I.%I', r.schemaname, r.sequencename)::regclass, 1, false);
  END LOOP;
END $$
"""


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _reachable_by_others(path: Path) -> None:
    """As root the server runs as another user: every folder above `base` must let it in."""
    for parent in path.parents:
        if not parent.stat().st_mode & 0o001:
            raise RuntimeError(
                f"{parent} is closed to other users, so PostgreSQL (not run as root) cannot "
                f"reach {path}; point TMPDIR at a folder they may enter"
            )


def start_cluster(**settings: str) -> Cluster:
    """A made, started and ready cluster (`settings` over SETTINGS); the caller stops it."""
    cluster = Cluster(**settings)
    try:
        cluster.start()
    except BaseException:
        shutil.rmtree(cluster.base, ignore_errors=True)
        raise
    return cluster
