"""The runtime a sandbox needs: refused without bwrap or python3 (naming the Debian packages
to install), or with a bwrap that cannot work."""

from __future__ import annotations

import pytest

from workers import sandbox
from workers.sandbox import SandboxUnavailable


def test_without_bwrap_the_runtime_refuses_unless_unsafe(monkeypatch, capsys):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailable, match="`apt install bubblewrap`"):
        sandbox.runtime()
    assert sandbox.runtime(unsafe=True).bwrap is None
    assert "WITHOUT a sandbox" in capsys.readouterr().err


def test_a_bwrap_that_cannot_make_namespaces_is_refused_with_its_reason(monkeypatch, tmp_path):
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: str(fake))
    sandbox._probe.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable, match="No permissions to create new namespace"):
            sandbox.runtime()
    finally:
        sandbox._probe.cache_clear()


def test_the_sandbox_environment_is_the_listed_one_with_one_blas_thread():
    rt = sandbox.Runtime("/usr/bin/python3", "/usr/bin/bwrap", True)
    command = sandbox.bwrap_command(rt, "/srv/sdk", "/srv/bot", 3)
    assert "--clearenv" in command
    pairs = {command[i + 1]: command[i + 2] for i, arg in enumerate(command) if arg == "--setenv"}
    assert pairs == sandbox.ENVIRONMENT
    assert set(sandbox.BLAS_THREADS) == {
        "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
    }  # fmt: skip
    assert all(pairs[name] == "1" for name in sandbox.BLAS_THREADS)


def test_numpy_is_offered_to_debians_python_only_and_only_when_installed(monkeypatch, tmp_path):
    python = tmp_path / "python3"
    python.write_text("")
    numpy = tmp_path / "dist-packages" / "numpy"
    numpy.mkdir(parents=True)
    monkeypatch.setattr(sandbox, "DEBIAN_PYTHON", str(python))
    monkeypatch.setattr(sandbox, "DEBIAN_NUMPY", str(numpy))
    assert sandbox.numpy_dir(str(python)) is None  # no numpy/__init__.py: not installed
    (numpy / "__init__.py").write_text("")
    assert sandbox.numpy_dir(str(python)) == str(numpy)
    (tmp_path / "link").symlink_to(python)
    assert sandbox.numpy_dir(str(tmp_path / "link")) == str(numpy)
    assert sandbox.numpy_dir(str(tmp_path / "other-python3")) is None


def test_without_any_python3_the_runtime_names_the_packages_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(sandbox, "DEBIAN_PYTHON", str(tmp_path / "no-python3"))
    monkeypatch.setattr(sandbox.sys, "executable", str(tmp_path / "no-venv-python"))
    with pytest.raises(SandboxUnavailable, match="`apt install python3 python3-numpy`"):
        sandbox.runtime()
