"""The test tree's own layout: helpers shared by tests live in a `conftest.py` or a helpers
module, never in a `test_*.py` module that another module imports (issue 29).

Importing from a test module drags its tests along: a fixture imported there is collected
again in the importer, a test class imported there runs twice, and the importer breaks when
the other file's tests are renamed or moved.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted name of a file under root (`tests.unit.x` for tests/unit/x.py)."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, dotted name) of every module, and every `from X import name`, that a file
    imports; relative imports resolved against the file's package."""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            stem = ".".join([*base, *([node.module] if node.module else [])])
            found.append((node.lineno, stem))
            # `from tests.unit import test_x` imports the module test_x itself (and a
            # function named test_* imported anywhere would be collected twice).
            found += [(node.lineno, f"{stem}.{alias.name}") for alias in node.names]
    return found


def is_test_module(name: str) -> bool:
    return name.split(".")[-1].startswith("test_")


def test_no_module_imports_a_test_module():
    offences = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in sorted(TESTS.rglob("*.py"))
        for line, name in imported_modules(path)
        if is_test_module(name)
    ]
    assert not offences, "move shared helpers to a conftest.py or helpers module:\n" + "\n".join(
        offences
    )


def test_the_check_sees_every_form_of_import(tmp_path):
    """The check catches absolute, relative and `from package import test_x` imports."""
    package = tmp_path / "tests" / "unit"
    package.mkdir(parents=True)
    module = package / "test_importer.py"
    module.write_text(
        "import tests.unit.test_a\n"
        "from tests.unit.test_b import helper\n"
        "from .test_c import helper\n"
        "from . import test_d\n"
        "from .. import helpers\n"
        "import pytest\n"
    )
    names = {name for _, name in imported_modules(module, tmp_path) if is_test_module(name)}
    assert names == {
        "tests.unit.test_a",
        "tests.unit.test_b",
        "tests.unit.test_c",
        "tests.unit.test_d",
    }


# What a fixture that starts a ladder's busy processes names: a live ladder, its workers.
LADDER_STARTS = ("LiveLadder", "start_worker", "start_beat", "worker_command")


def long_lived_ladders(path: Path) -> list[str]:
    """Session-scoped fixtures in `path` that start a live ladder (name: line)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if not isinstance(node, ast.FunctionDef):
            continue
        scopes = [
            keyword.value.value
            for decorator in node.decorator_list
            if isinstance(decorator, ast.Call)
            for keyword in decorator.keywords
            if keyword.arg == "scope" and isinstance(keyword.value, ast.Constant)
        ]
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        if "session" in scopes and names & set(LADDER_STARTS):
            found.append(f"{node.name}: {node.lineno}")
    return found


def test_no_live_ladder_lives_for_the_whole_session():
    """A ladder's worker and beat play house matches for as long as they run: one kept for
    the session took a core from every integration test after it (CI ran 20 % over)."""
    offences = [
        f"{path.relative_to(ROOT)} {where}"
        for path in sorted((TESTS / "integration").rglob("*.py"))
        for where in long_lived_ladders(path)
    ]
    assert not offences, "scope it to its module or package:\n" + "\n".join(offences)


def test_the_ladder_check_sees_a_session_ladder(tmp_path):
    module = tmp_path / "conftest.py"
    module.write_text(
        "import pytest\n"
        "@pytest.fixture(scope='session')\n"
        "def site(tmp_path_factory):\n"
        "    live = LiveLadder(tmp_path_factory.mktemp('x'))\n"
        "    live.start_worker()\n"
        "@pytest.fixture(scope='package')\n"
        "def fine(tmp_path_factory):\n"
        "    return LiveLadder(tmp_path_factory.mktemp('y'))\n"
        "@pytest.fixture(scope='session')\n"
        "def also_fine():\n"
        "    return 1\n"
    )
    assert long_lived_ladders(module) == ["site: 3"]
