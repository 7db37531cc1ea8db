"""deploy/build-kit.sh refuses, before building anything, a Python whose setuptools cannot
build a wheel without the `wheel` package (before 70.1), and says how to get one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_an_old_setuptools_is_refused_with_what_to_install(tmp_path):
    # An older setuptools, as importlib.metadata sees it first on the path.
    fake = tmp_path / "site" / "setuptools-65.5.0.dist-info"
    fake.mkdir(parents=True)
    (fake / "METADATA").write_text("Metadata-Version: 2.1\nName: setuptools\nVersion: 65.5.0\n")
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH={fake.parent} exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    out = tmp_path / "kit"
    done = subprocess.run(
        [ROOT / "deploy" / "build-kit.sh", out, python], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "setuptools 65.5.0; the kit needs 70.1 or later" in done.stderr
    assert "make setup" in done.stderr and "Traceback" not in done.stderr
    assert list(out.iterdir()) == []  # nothing built


def test_without_a_folder_it_says_how_to_call_it():
    done = subprocess.run([ROOT / "deploy" / "build-kit.sh"], capture_output=True, text=True)
    assert done.returncode != 0 and "usage: deploy/build-kit.sh DIR [PYTHON]" in done.stderr
