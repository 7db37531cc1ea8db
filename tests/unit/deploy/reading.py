"""How the deployment tests read deploy/: units, the environment template, gunicorn's file,
and which environment variables the code reads.

The files name production paths (/opt/tradewinds/src for the checkout,
/opt/tradewinds/venv for its virtualenv); `install_paths` points them at this
checkout and the venv running the tests, so tools can check what we ship here.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from ladder.settings import Settings

ROOT = Path(__file__).resolve().parents[3]
DEPLOY = ROOT / "deploy"
UNITS = sorted((DEPLOY / "systemd").glob("tradewinds*.*"))
WEB_UNIT = DEPLOY / "systemd" / "tradewinds-web.service"
BEAT_UNIT = DEPLOY / "systemd" / "tradewinds-beat.service"
WORKER_UNIT = DEPLOY / "systemd" / "tradewinds-worker.service"
TABLES_UNIT = DEPLOY / "systemd" / "tradewinds-tables.service"
TEMPLATE = DEPLOY / "tradewinds.env.example"
SITE = DEPLOY / "nginx" / "tradewinds.conf"
INSTALL = {"/opt/tradewinds/venv": sys.prefix, "/opt/tradewinds/src": str(ROOT)}
LADDER = str(Path(sys.prefix) / "bin" / "ladder")
# A line of the template that sets a variable ("NAME=value") or shows its default ("#NAME=value").
SETTING = re.compile(r"^(#?)([A-Z][A-Z0-9_]*)=(.*)$")


def install_paths(text: str) -> str:
    """`text` with the production install paths pointed at this checkout and venv."""
    for production, here in INSTALL.items():
        text = text.replace(production, here)
    return text


def tool(path: str, package: str) -> str:
    """The tool's path, or a skip saying which Debian package brings it."""
    found = shutil.which(path) or (path if os.access(path, os.X_OK) else None)
    if found is None:
        pytest.skip(f"{path} is missing: apt-get install {package} (make test does)")
    return found


def plain_env(**values: str) -> dict[str, str]:
    """A small environment for a child process: PATH and `values`, nothing inherited."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **values}


# -- units ------------------------------------------------------------------------------
def unit_entries(path: Path) -> list[tuple[str, str, str]]:
    """(section, key, value) for each assignment of a unit file, in order (keys repeat)."""
    entries, section = [], ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        entries.append((section, key.strip(), value.strip()))
    return entries


def unit_values(path: Path, key: str) -> list[str]:
    return [value for _, k, value in unit_entries(path) if k == key]


def unit_defaults(path: Path) -> dict[str, str]:
    """The unit's Environment= assignments: defaults the environment file may override."""
    out = {}
    for value in unit_values(path, "Environment"):
        name, _, default = value.partition("=")
        out[name] = default
    return out


# -- the environment template -----------------------------------------------------------
def template_settings() -> dict[str, tuple[bool, str]]:
    """NAME -> (set for production, value) for each setting line of the template."""
    out: dict[str, tuple[bool, str]] = {}
    for line in TEMPLATE.read_text().splitlines():
        found = SETTING.match(line)
        if found:
            commented, name, value = found.groups()
            assert name not in out, f"{name} appears twice in the template"
            out[name] = (not commented, value)
    return out


def template_environment() -> dict[str, str]:
    """What the template sets, installed here, with a stand-in secret (an empty one
    would make the app write a key file under LADDER_VAR)."""
    env = {
        name: install_paths(value)
        for name, (active, value) in template_settings().items()
        if active
    }
    env["SECRET_KEY"] = env.get("SECRET_KEY") or "stand-in"
    return env


# -- the code ---------------------------------------------------------------------------
def _environ_like(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id in ("env", "environ")) or (
        isinstance(node, ast.Attribute) and node.attr == "environ"
    )


def _read_name(node: ast.AST) -> object:
    """The variable an expression reads from the environment, if it reads one.

    Knows `env.get("X")`, `os.environ.get("X")`, `env["X"]`, `os.getenv("X")` and
    helpers called as `_int(env, "X", ...)`: the shapes ladder/ and workers/ use.
    """
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.ctx, ast.Load)
        and _environ_like(node.value)
        and isinstance(node.slice, ast.Constant)
    ):
        return node.slice.value
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func, args = node.func, node.args
    if (
        isinstance(func, ast.Attribute)
        and func.attr in ("get", "pop", "setdefault")
        and _environ_like(func.value)
        and isinstance(args[0], ast.Constant)
    ):
        return args[0].value
    if isinstance(func, ast.Attribute) and func.attr == "getenv":
        return args[0].value if isinstance(args[0], ast.Constant) else None
    if len(args) >= 2 and _environ_like(args[0]) and isinstance(args[1], ast.Constant):
        return args[1].value
    return None


def environment_read_by_code() -> dict[str, set[str]]:
    """Each upper-case variable ladder/ and workers/ read from the environment -> files."""
    found: dict[str, set[str]] = {}
    for path in sorted([*(ROOT / "ladder").rglob("*.py"), *(ROOT / "workers").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            name = _read_name(node)
            if isinstance(name, str) and re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
                found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    # Each field of the ladder's Settings names its variable, and `Settings.from_env`
    # reads them all in one loop, so the class says what it reads, not a call shape.
    for name in Settings.variables():
        found.setdefault(name, set()).add("ladder/settings.py")
    return found


# -- gunicorn ---------------------------------------------------------------------------
def gunicorn_args() -> str:
    """GUNICORN_CMD_ARGS exactly as tradewinds-web.service sets it, installed here."""
    return install_paths(unit_defaults(WEB_UNIT)["GUNICORN_CMD_ARGS"])


def gunicorn_config() -> dict:
    """The names deploy/gunicorn.conf.py defines, as gunicorn would read them."""
    namespace: dict = {}
    source = (DEPLOY / "gunicorn.conf.py").read_text()
    exec(compile(source, "gunicorn.conf.py", "exec"), namespace)
    return namespace
