"""Lint and types: ruff's rule set and mypy over the typed modules (both configured in pyproject.toml), and a reason
for every ``noqa``. Skipped where ruff or mypy is not installed (the ``test`` extra brings both)."""
from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).parents[1]
#: A noqa comment with its codes (CODE[, CODE]) and then words: the reason.
NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?(?P<rest>.*)$")


def _tool(name: str) -> list[str]:
    if shutil.which(name) is None:
        try:
            __import__(name)
        except ImportError:
            pytest.skip(f"{name} is not installed (pip install '.[test]')")
        return [sys.executable, "-m", name]
    return [name]


def test_ruff_passes():
    result = subprocess.run([*_tool("ruff"), "check", "--no-cache", "symrmt", "tests", "derivations", "benchmarks",
                             "docs/conf.py", "docs/_ext"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_passes():
    result = subprocess.run([*_tool("mypy"), "--no-incremental"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def unexplained_noqa(text: str) -> list[str]:
    """The lines of ``text`` whose ``noqa`` names no code or gives no reason after its codes."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        match = NOQA.search(line)
        if match and not (match["codes"] and re.search(r"[a-z]{3,}", match["rest"])):
            found.append(f"{number}: {line.strip()}")
    return found


def test_every_noqa_says_why():
    found = [f"{path.relative_to(ROOT)}:{line}" for path in sorted((ROOT / "symrmt").rglob("*.py"))
             for line in unexplained_noqa(path.read_text())]
    assert found == []


def test_a_noqa_without_a_reason_is_caught():
    assert unexplained_noqa("x = lambda: 1  # noqa: E731\n") == ["1: x = lambda: 1  # noqa: E731"]
    assert unexplained_noqa("import os  # noqa\n") == ["1: import os  # noqa"]
    assert unexplained_noqa("x = lambda: 1  # noqa: E731 - a one-line rule reads better\n") == []
