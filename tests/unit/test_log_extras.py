"""No log call may pass an `extra` key that LogRecord owns: logging raises KeyError on it
(a schedule task once failed every 5 s for logging `created`)."""

from __future__ import annotations

import ast
import logging
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESERVED = set(vars(logging.LogRecord("n", 0, "p", 0, "m", None, None))) | {"message", "asctime"}


def extra_keys(tree: ast.AST):
    """(line, key) for every constant key of an `extra={...}` keyword argument."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "extra" and isinstance(keyword.value, ast.Dict):
                    for key in keyword.value.keys:
                        if isinstance(key, ast.Constant) and isinstance(key.value, str):
                            yield node.lineno, key.value


def test_no_log_extra_key_overwrites_a_logrecord_attribute():
    clashes = []
    for package in ("ladder", "workers", "engine", "bots"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, key in extra_keys(ast.parse(path.read_text(), str(path))):
                if key in RESERVED:
                    clashes.append(f"{path.relative_to(ROOT)}:{line}: {key!r}")
    assert clashes == []


def test_the_check_sees_a_clash():
    code = 'log.info("x", extra={"created": 1, "fine": 2})'
    assert [k for _, k in extra_keys(ast.parse(code)) if k in RESERVED] == ["created"]
