"""The hostile-input suite's one runner: a case is a command (or a Python call), what it must print, and what it must leave.

Every case asserts the three things the boundaries rule promises: the exit status (2 for a refusal, or
a ``ValueError``/``TypeError`` subclass from Python), exactly one line on stderr naming the problem (and
no traceback), and the files afterwards (each listed file byte for byte as before, and no stray
temporary file in the folder). Each category of the suite (files, numbers, flags, resources, weight
files) is a module ``test_<category>.py`` holding a list of :class:`Case`; a later probe appends cases.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path
from typing import Callable, Sequence

from symrmt.cli import main

#: Longest stderr line a refusal may print: long user inputs are quoted shortened.
MAX_LINE = 400


@dataclasses.dataclass(frozen=True)
class Case:
    """One hostile input.

    ``argv``: the command line after ``symrmt``; ``{tmp}`` in an argument is replaced by the test's folder.
    ``needle``: a text the one stderr line must contain (case-insensitive).
    ``setup``: prepares files in the folder before the run (returns nothing).
    ``kept``: names (relative to the folder) whose bytes must be unchanged by the run.
    ``status``: the expected exit status (2: refused).
    """

    name: str
    argv: Sequence[str]
    needle: str
    setup: Callable[[Path], None] | None = None
    kept: Sequence[str] = ()
    status: int = 2

    def __str__(self) -> str:  # the pytest id
        return self.name


def digest(path: Path) -> str | None:
    """SHA-256 of a file's bytes, or None when it does not exist."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def run_case(case: Case, folder: Path, capsys) -> str:
    """Run ``case`` in ``folder`` and assert its promise; returns the stderr line."""
    if case.setup is not None:
        case.setup(folder)
    before = {name: digest(folder / name) for name in case.kept}
    listing = set(os.listdir(folder))
    argv = [argument.replace("{tmp}", str(folder)) for argument in case.argv]
    status = main(argv)
    out = capsys.readouterr()
    assert status == case.status, (status, out.err[-2000:])
    lines = out.err.strip().splitlines()
    if case.status == 2:
        assert out.out == "", out.out[:500]
        assert len(lines) == 1, out.err[-2000:]
        assert "Traceback" not in out.err
        assert len(lines[0]) <= MAX_LINE, f"{len(lines[0])} characters: {lines[0][:200]}..."
        assert case.needle.lower() in lines[0].lower(), lines[0]
    for name, value in before.items():
        assert digest(folder / name) == value, f"{name} was changed or removed"
    stray = [name for name in set(os.listdir(folder)) - listing if name.endswith(".tmp")]
    assert not stray, f"temporary files left behind: {stray}"
    return lines[0] if lines else ""
