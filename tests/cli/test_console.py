"""The console entry point ends the process without the interpreter's teardown: nothing it owes may be lost."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: The command line of a process that registers an atexit handler, then runs the console entry point.
SCRIPT = ("import atexit, sys; from symrmt.cli import console; "
          "atexit.register(lambda: print('atexit handler ran', file=sys.stderr)); console(sys.argv[1:])")


def _run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SCRIPT, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_a_long_output_is_written_whole_and_atexit_handlers_run():
    """A grid of 3000 points (tens of kB of JSON, more than one buffer) reaches the reader whole, status 0."""
    done = _run("hermite", "--f", "erf(s*x)", "--param", "s=0.5:2:3000", "--json")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["a1"]) == 3000
    assert "atexit handler ran" in done.stderr


def test_a_refusal_keeps_its_status_and_its_one_line():
    done = _run("theory", "--f", "tanh(x)", "--c", "-1", "--gamma", "0.1")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("symrmt theory: error: --c") and lines[1:] == ["atexit handler ran"], done.stderr
