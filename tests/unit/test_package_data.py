"""The kit's wheel holds every file of the four packages: each file of the checkout under
engine/, bots/, workers/ and ladder/ is one the build settings in pyproject.toml take in.

The check reads the settings as setuptools does (namespace packages found, then each
package-data pattern globbed under every package), which costs milliseconds where building
a wheel costs seconds; tests/integration/test_kit.py installs a real wheel and uses it.
"""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

from setuptools import find_namespace_packages

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "bots", "workers", "ladder")


def uncovered(root: Path, files: list[str]) -> list[str]:
    """Those of `files` (paths relative to `root`) that pyproject.toml's build settings leave
    out of the wheel: a module outside every package, a data file no pattern matches."""
    setup = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setup["packages"]["find"].get("namespaces", True), "folders without __init__.py"
    packages = find_namespace_packages(str(root), include=setup["packages"]["find"]["include"])
    patterns = [p for key, found in setup["package-data"].items() if key == "*" for p in found]
    taken = set()
    for package in packages:
        folder = root / package.replace(".", "/")
        for pattern in patterns:
            taken |= {str(p.relative_to(root)) for p in folder.glob(pattern) if p.is_file()}
    left = []
    for name in files:
        path = Path(name)
        if path.suffix == ".py":
            if ".".join(path.parent.parts) not in packages:
                left.append(name)
        elif name not in taken:
            left.append(name)
    return left


def test_every_file_of_the_packages_goes_into_the_wheel():
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *PACKAGES],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    files = [name for name in listed if (ROOT / name).is_file()]  # not one deleted, unstaged
    assert len(files) > 200 and "ladder/migrations/script.py.mako" in files
    assert uncovered(ROOT, files) == []


def test_the_check_names_a_data_file_or_a_module_the_wheel_would_miss(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools.packages.find]\ninclude = ["engine*"]\nnamespaces = true\n'
        '[tool.setuptools.package-data]\n"*" = ["*.md", "templates/**/*"]\n'
    )
    for name in (
        "engine/__init__.py", "engine/RULES.md", "engine/manila/table.csv",
        "engine/templates/a/page.html", "helpers/tool.py", "engine/data/moves.py",
    ):  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    files = [str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()]
    files.remove("pyproject.toml")
    assert sorted(uncovered(tmp_path, files)) == ["engine/manila/table.csv", "helpers/tool.py"]
