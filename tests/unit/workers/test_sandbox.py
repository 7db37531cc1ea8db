"""The runtime a sandbox needs: refused without bwrap, or with a bwrap that cannot work."""

from __future__ import annotations

import pytest

from workers import sandbox
from workers.sandbox import SandboxUnavailable


def test_without_bwrap_the_runtime_refuses_unless_unsafe(monkeypatch, capsys):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
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
