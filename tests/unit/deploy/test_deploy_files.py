"""deploy/: the systemd units, the environment template and gunicorn's settings, checked by
the tools that will read them and against the code (nginx's site: test_nginx_site.py).

`systemd-analyze verify` runs offline, with no systemd running: `--man=no` and
`--generators=no` keep it from looking for man pages and running the system's
generators; it checks every key and that each ExecStart= program exists, so the
units are copied with their paths pointed at this checkout (reading.install_paths).
A missing tool skips its tests, naming the Debian package (`make test` installs it).
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from ladder import cli, settings
from tests.unit.deploy.reading import (
    BEAT_UNIT,
    DEPLOY,
    LADDER,
    ROOT,
    SETTING,
    SITE,
    TABLES_UNIT,
    TEMPLATE,
    UNITS,
    WEB_UNIT,
    WORKER_UNIT,
    environment_read_by_code,
    gunicorn_args,
    gunicorn_config,
    install_paths,
    plain_env,
    template_environment,
    template_settings,
    tool,
    unit_defaults,
    unit_values,
)
from workers import claims, pool

CGROUP_SCRIPT = DEPLOY / "systemd" / "worker-cgroup.sh"
# Read from the environment only by `ladder run`, the development all-in-one.
DEVELOPMENT_ONLY = {"DEMO_PASSWORD", "LADDER_REDIS_PORT"}


# -- the environment template -------------------------------------------------------------
def test_the_scan_finds_what_the_settings_read():
    read = environment_read_by_code()
    assert {"SECRET_KEY", "DATABASE_URL", "MAX_BOT_BYTES", "BOT_LIMITS", "COOKIE_SECURE"} <= set(
        read
    )
    assert {"TRADEWINDS_LOCK_DIR", "TRADEWINDS_CGROUPS", "TRADEWINDS_CGROUP"} <= set(read)


def test_the_template_names_every_setting_the_code_reads():
    missing = {
        name: sorted(files)
        for name, files in environment_read_by_code().items()
        if name not in template_settings() and name not in DEVELOPMENT_ONLY
    }
    assert not missing, f"add a line to deploy/tradewinds.env.example for {missing}"


def test_the_template_names_nothing_else():
    known = set(environment_read_by_code()) | {n for u in UNITS for n in unit_defaults(u)}
    stale = sorted(set(template_settings()) - known)
    assert not stale, f"nothing reads {stale}: drop them from the template"


def test_each_setting_has_one_comment_line_above_it():
    lines = TEMPLATE.read_text().splitlines()
    for number, line in enumerate(lines):
        if SETTING.match(line):
            above = lines[number - 1]
            assert above.startswith("# ") and not SETTING.match(above), (
                f"line {number + 1} ({line}) needs one comment line above it"
            )


def test_commented_values_are_the_values_in_effect():
    # "#NAME=value" claims that leaving NAME unset gives value: so setting it changes nothing.
    base = template_environment()
    expected = settings.Settings.from_env(base)
    for name, (active, value) in template_settings().items():
        if not active:
            changed = settings.Settings.from_env({**base, name: install_paths(value)})
            assert changed == expected, f"#{name}={value} is not what leaving it unset gives"


def test_the_lock_folder_default_is_as_written(monkeypatch):
    if tempfile.gettempdir() != "/tmp":
        pytest.skip("the temporary folder here is not /tmp, as on a worker host")
    monkeypatch.delenv("TRADEWINDS_LOCK_DIR", raising=False)
    _, value = template_settings()["TRADEWINDS_LOCK_DIR"]
    assert claims.lock_dir() == value


def test_a_shell_reads_the_template_as_systemd_does():
    # The README sources the file in a shell for `ladder` commands: values must be plain.
    done = subprocess.run(
        ["/bin/sh", "-c", f'set -a; . "{TEMPLATE}"; set +a; env -0'],
        capture_output=True,
        env=plain_env(),
        check=True,
    )
    seen = dict(item.split("=", 1) for item in done.stdout.decode().split("\0") if "=" in item)
    for name, (active, value) in template_settings().items():
        if active:
            assert seen.get(name) == value, name


# -- systemd units --------------------------------------------------------------------------
@pytest.fixture
def installed_units(tmp_path) -> Path:
    """The units as they would be installed here: production paths pointed at this checkout."""
    folder = tmp_path / "units"
    folder.mkdir()
    for unit in UNITS:
        (folder / unit.name).write_text(install_paths(unit.read_text()))
    return folder


@pytest.mark.parametrize("unit", [u.name for u in UNITS])
def test_systemd_analyze_verify_finds_nothing(installed_units, unit):
    analyze = tool("systemd-analyze", "systemd")
    done = subprocess.run(
        [analyze, "verify", "--man=no", "--generators=no", str(installed_units / unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def test_every_service_reads_the_environment_file_and_belongs_to_the_target():
    assert {u.name for u in UNITS} == {
        "tradewinds-web.service",
        "tradewinds-worker.service",
        "tradewinds-tables.service",
        "tradewinds-beat.service",
        "tradewinds.target",
    }
    for unit in UNITS:
        if unit.suffix == ".service":
            assert unit_values(unit, "EnvironmentFile") == ["/etc/tradewinds/tradewinds.env"]
            assert unit_values(unit, "PartOf") == unit_values(unit, "WantedBy")
            assert unit_values(unit, "WantedBy") == ["tradewinds.target"]


def test_unit_defaults_are_the_templates():
    template = template_settings()
    for unit in UNITS:
        for name, default in unit_defaults(unit).items():
            if name in template:
                assert default == template[name][1], f"{unit.name}: {name}={default}"


def test_every_variable_a_unit_uses_has_a_default_and_a_template_line():
    for unit in UNITS:
        for command in unit_values(unit, "ExecStart"):
            for name in re.findall(r"\$\{?([A-Z][A-Z0-9_]*)\}?", command):
                assert name in unit_defaults(unit), f"{unit.name} uses ${name} with no default"
                assert name in template_settings(), f"the template lacks {name}"


@pytest.mark.parametrize("unit", [WORKER_UNIT, TABLES_UNIT], ids=lambda u: u.name)
def test_a_stop_warms_the_worker_down_then_kills_every_sandbox(unit):
    # SIGTERM to Celery alone (a warm shutdown), then SIGKILL to all left in the unit,
    # sandboxes included: they stay in the unit's cgroup (Delegate=yes, worker-cgroup.sh).
    assert unit_values(unit, "KillMode") == ["mixed"]
    assert unit_values(unit, "Delegate") == ["yes"]
    command = unit_values(unit, "ExecStart")[0].split()
    assert command[:2] == [
        "/opt/tradewinds/src/deploy/systemd/worker-cgroup.sh",
        "/opt/tradewinds/venv/bin/ladder",
    ]
    for breaks_the_sandbox in ("ProtectSystem", "PrivateTmp", "ProtectControlGroups"):
        assert not unit_values(unit, breaks_the_sandbox), breaks_the_sandbox


# What makes the worker's sandboxes safe and stoppable; the table worker runs the same ones.
HARDENING = (
    "User", "NoNewPrivileges", "CapabilityBoundingSet", "Delegate", "KillMode",
    "TimeoutStopSec", "LimitNOFILE", "TasksMax", "CacheDirectory", "WorkingDirectory",
)  # fmt: skip


def test_the_table_worker_is_hardened_as_the_worker_and_runs_the_tables_queue():
    for key in HARDENING:
        assert unit_values(TABLES_UNIT, key) == unit_values(WORKER_UNIT, key), key
    command = unit_values(TABLES_UNIT, "ExecStart")[0].split()
    assert command[1:] == ["/opt/tradewinds/venv/bin/ladder", "worker", "--tables"]


def test_ladder_worker_tables_runs_table_workers_processes_of_the_tables_queue(monkeypatch):
    # The table unit passes no --concurrency: TABLE_WORKERS (the environment file) sets it.
    started = []
    monkeypatch.setattr(os, "execv", lambda path, command: started.append(command))
    env = {"REDIS_URL": "redis://127.0.0.1:9/0", "TABLE_WORKERS": "3"}
    result = CliRunner().invoke(cli.main, ["worker", "--tables"], env=env)
    assert result.exit_code == 0, result.output
    (command,) = started
    assert command[command.index("--concurrency") + 1] == "3"
    assert command[command.index("--queues") + 1] == "tables"


def test_the_web_waits_out_gunicorns_grace_and_nginx_waits_as_long_as_gunicorn():
    config = gunicorn_config()
    assert int(unit_values(WEB_UNIT, "TimeoutStopSec")[0]) > config["graceful_timeout"]
    read = re.search(r"proxy_read_timeout (\d+)s;", SITE.read_text())
    assert read and int(read.group(1)) == config["timeout"]


def test_beat_keeps_its_schedule_in_the_state_directory(tmp_path, monkeypatch):
    # The beat unit can write nowhere but StateDirectory= (LADDER_VAR): the rest is read-only.
    assert unit_defaults(BEAT_UNIT)["LADDER_VAR"] == "/var/lib/tradewinds"
    assert unit_values(BEAT_UNIT, "ProtectSystem") == ["strict"]
    assert unit_values(BEAT_UNIT, "StateDirectory") == ["tradewinds"]
    started = []
    monkeypatch.setattr(os, "execv", lambda path, command: started.append(command))
    env = {"LADDER_VAR": str(tmp_path / "state"), "REDIS_URL": "redis://127.0.0.1:9/0"}
    result = CliRunner().invoke(cli.main, ["beat"], env=env)
    assert result.exit_code == 0, result.output
    (command,) = started
    assert command[command.index("--schedule") + 1] == str(
        tmp_path / "state" / "celerybeat-schedule"
    )


# A bot that forks and spins: it times out, and the runner must kill both its processes.
SPINNER = "import os\n\n\ndef act(view, legal):\n    os.fork()\n    while True:\n        pass\n"
# Root's own uses of the capabilities: a process as a slot uid (SETUID, SETGID), pinned
# (SYS_NICE) and killed (KILL); then the sandbox runtime and isolation it finds.
PROBE = """
import os, subprocess
from workers import cgroups, sandbox
uid = sandbox.UID_BASE - 2
child = subprocess.Popen(["sleep", "30"], user=uid, group=uid, extra_groups=[])
os.sched_setaffinity(child.pid, {min(os.sched_getaffinity(0))})
os.kill(child.pid, 9)
child.wait()
print(sandbox.runtime().unprivileged, cgroups.isolation()["mode"])
"""


def test_the_worker_capabilities_are_enough_to_run_sandboxes(tmp_path):
    """Root held to the unit's bounding set, with no_new_privs, runs bots as unbounded root."""
    if os.geteuid() != 0:
        pytest.skip("the bounding set matters only for a worker running as root")
    setpriv = tool("setpriv", "util-linux")
    tool("bwrap", "bubblewrap")
    caps = unit_values(WORKER_UNIT, "CapabilityBoundingSet")[0].split()
    assert "yes" in unit_values(WORKER_UNIT, "NoNewPrivileges")
    bounded = [
        setpriv, "--no-new-privs",
        "--bounding-set", "-all," + ",".join("+" + c.removeprefix("CAP_").lower() for c in caps),
        "--",
    ]  # fmt: skip
    env = {**os.environ, "TRADEWINDS_LOCK_DIR": str(tmp_path / "locks")}
    free = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env)
    held = subprocess.run(
        [*bounded, sys.executable, "-c", PROBE], capture_output=True, text=True, env=env
    )
    assert free.returncode == 0, free.stderr
    # Slot uids and the same isolation as unbounded root, or the unit lacks a capability.
    assert (held.returncode, held.stdout) == (0, free.stdout), held.stderr
    (tmp_path / "spinner.py").write_text(SPINNER)
    match = [
        LADDER, "play", "manila", str(tmp_path / "spinner.py"), "manila/random", "manila/random",
        "--move-ms", "200", "--bank-ms", "200", "--json",
    ]  # fmt: skip
    done = subprocess.run([*bounded, *match], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"statuses":["timeout","ok","ok"]' in done.stdout


# -- worker-cgroup.sh ------------------------------------------------------------------
def fake_cgroup_tree(tmp_path: Path, controllers: str) -> tuple[Path, Path]:
    """A cgroup v2 tree with the worker unit's group, and a /proc/self/cgroup naming it."""
    fs = tmp_path / "cgroup"
    unit = fs / "system.slice" / "tradewinds-worker.service"
    unit.mkdir(parents=True)
    (fs / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (unit / "cgroup.controllers").write_text(controllers + "\n")
    (unit / "cgroup.procs").write_text("")
    membership = tmp_path / "membership"
    membership.write_text("0::/system.slice/tradewinds-worker.service\n")
    return fs, membership


def run_cgroup_script(fs: Path, membership: Path, **extra: str) -> tuple[str, str]:
    """The pid and TRADEWINDS_CGROUP of the command the script runs."""
    env = plain_env(CGROUP_FS=str(fs), CGROUP_MEMBERSHIP=str(membership), **extra)
    done = subprocess.run(
        [str(CGROUP_SCRIPT), "/bin/sh", "-c", 'echo "$$ ${TRADEWINDS_CGROUP:-unset}"'],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    pid, cgroup = done.stdout.split()
    return pid, cgroup


def test_a_delegated_worker_moves_into_a_leaf_and_names_the_sandboxes_group(tmp_path):
    fs, membership = fake_cgroup_tree(tmp_path, "cpu memory pids")
    pid, cgroup = run_cgroup_script(fs, membership, INVOCATION_ID="0123")
    unit = fs / "system.slice" / "tradewinds-worker.service"
    # The command itself (exec keeps the pid) is what joined the leaf group.
    assert (unit / "worker" / "cgroup.procs").read_text().strip() == pid
    assert cgroup == str(unit / "sandboxes")


@pytest.mark.parametrize(
    "case", ["not started by systemd", "not delegated", "cgroup v1", "TRADEWINDS_CGROUP set"]
)
def test_anywhere_else_the_worker_runs_as_it_is(tmp_path, case):
    fs, membership = fake_cgroup_tree(tmp_path, "cpu" if case == "not delegated" else "memory pids")
    extra = {} if case == "not started by systemd" else {"INVOCATION_ID": "0123"}
    if case == "cgroup v1":
        (fs / "cgroup.controllers").unlink()
    if case == "TRADEWINDS_CGROUP set":
        extra["TRADEWINDS_CGROUP"] = "/chosen"
    _, cgroup = run_cgroup_script(fs, membership, **extra)
    assert cgroup == extra.get("TRADEWINDS_CGROUP", "unset")
    assert not (fs / "system.slice" / "tradewinds-worker.service" / "worker").exists()


def test_tmpfiles_spares_the_locks_and_the_sandbox_folders(tmp_path):
    conf = DEPLOY / "tmpfiles.d" / "tradewinds.conf"
    spared = [line.split()[1] for line in conf.read_text().splitlines() if line.startswith("x ")]
    assert f"/tmp/{os.path.basename(claims.lock_dir())}" in spared
    assert f"/tmp/{pool.ROOT_PREFIX}*" in spared
    tmpfiles = tool("systemd-tmpfiles", "systemd")
    done = subprocess.run(
        [tmpfiles, f"--root={tmp_path}", "--clean", str(conf)], capture_output=True, text=True
    )
    assert (done.returncode, done.stderr) == (0, "")


# -- gunicorn ----------------------------------------------------------------------------
def test_gunicorn_takes_the_file_and_ladder_web_keeps_bind_and_workers(tmp_path):
    env = plain_env(
        LADDER_VAR=str(tmp_path), SECRET_KEY="stand-in", GUNICORN_CMD_ARGS=gunicorn_args()
    )
    command = [
        sys.executable, "-m", "gunicorn", "--print-config",
        "--bind", "127.0.0.1:1", "--workers", "3", "ladder.web.wsgi:app",
    ]  # fmt: skip
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    printed = {}
    for line in done.stdout.splitlines():
        key, _, value = line.partition("=")
        printed[key.strip()] = value.strip()
    config = gunicorn_config()
    for name in ("timeout", "graceful_timeout", "max_requests", "proc_name"):
        assert printed[name] == str(config[name]), name
    assert (printed["bind"], printed["workers"]) == ("['127.0.0.1:1']", "3")


def test_ladder_web_tells_systemd_it_is_ready_once_it_serves(tmp_path):
    """Type=notify: READY=1 comes from the unit's main process, and the site answers."""
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)  # the sender's pid, as systemd
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(90)
    web_socket = tmp_path / "web.sock"
    env = plain_env(
        LADDER_VAR=str(tmp_path / "var"),
        SECRET_KEY="stand-in",
        DATABASE_URL=f"sqlite:///{tmp_path / 'ladder.sqlite3'}",
        GUNICORN_CMD_ARGS=gunicorn_args(),
        NOTIFY_SOCKET=str(tmp_path / "notify"),
    )
    web = subprocess.Popen(
        [LADDER, "web", "--bind", f"unix:{web_socket}", "--workers", "1"],
        env=env,
        cwd=ROOT,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        message, ancillary, _, _ = notify.recvmsg(4096, socket.CMSG_SPACE(12))
        assert message.startswith(b"READY=1")
        # NotifyAccess=main (the default): systemd heeds only the pid it started, which
        # `ladder web` keeps by exec-ing gunicorn.
        (_, kind, credentials) = ancillary[0]
        assert kind == socket.SCM_CREDENTIALS
        assert struct.unpack("iII", credentials)[0] == web.pid
        status, body = unix_get(web_socket, "/")
        assert status == 200 and b"Tradewinds" in body
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(web.pid, signal.SIGTERM)
        web.wait(timeout=60)
        notify.close()


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP over a Unix socket (gunicorn bound to unix:PATH): no port is used."""

    def __init__(self, path: Path) -> None:
        super().__init__("localhost", timeout=30)
        self.socket_path = str(path)

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(self.socket_path)


def unix_get(path: Path, url: str) -> tuple[int, bytes]:
    connection = UnixHTTPConnection(path)
    try:
        connection.request("GET", url)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()
