"""``symrmt.cli.output``: what happens when stdout cannot take the output (run as a real process).

A reader that goes away (``| head``) ends the command quietly with 141, as SIGPIPE ends a Unix
tool; a full device and an encoding that cannot show the table are one line and exit 2. In no
case a traceback or the interpreter's "Exception ignored" at exit.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from symrmt.cli import BROKEN_PIPE

SYMRMT = [sys.executable, "-m", "symrmt"]
TABLE = ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "1e-3:10:6000log"]   # 200 kB: more than a pipe holds


def _clean(stderr: str) -> bool:
    return "Traceback" not in stderr and "Exception ignored" not in stderr


@pytest.mark.parametrize("argv, lines_read", [
    (["hermite", "--f", "erf(x)", "--json"], 0),     # the reader is gone before the first byte
    (TABLE, 1),                                       # ... after one line of a long table (head -n 1)
    ([*TABLE, "--json"], 1),
    (["--help"], 0),
])
def test_a_reader_that_goes_away_ends_the_command_quietly(argv, lines_read):
    proc = subprocess.Popen([*SYMRMT, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _ in range(lines_read):
        assert proc.stdout.readline()
    proc.stdout.close()
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode in (0, BROKEN_PIPE) and stderr.decode() == ""
    if lines_read or argv[0] == "hermite":
        assert proc.returncode == BROKEN_PIPE


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv", [["hermite", "--f", "erf(x)", "--json"], TABLE, ["latex"]])
def test_a_full_device_is_one_line_and_exit_2(argv):
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([*SYMRMT, *argv], stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    assert proc.returncode == 2 and _clean(proc.stderr), proc.stderr
    assert proc.stderr.count("\n") == 1 and "cannot write the output: No space left on device" in proc.stderr


def test_an_encoding_that_cannot_show_the_table_is_one_line_and_exit_2():
    argv = [*SYMRMT, "simulate", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--n", "32", "--seeds", "2",
            "--quiet"]
    env = dict(os.environ, PYTHONIOENCODING="ascii", PYTHONUTF8="0")
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and _clean(proc.stderr) and "PYTHONUTF8=1" in proc.stderr, proc.stderr
    assert subprocess.run([*argv, "--json"], env=env, capture_output=True, timeout=300).returncode == 0


def test_a_warning_that_names_the_package_says_symrmt_once(capsys):
    # the cache's warnings start with "symrmt: " so that they read well from Python; the CLI adds its own prefix
    from symrmt.cli.output import show_warning

    show_warning(UserWarning("symrmt: discarded the Hermite cache entry 'x.json' (bad); recomputing"), UserWarning,
                 "f.py", 1)
    show_warning(UserWarning("a plain warning"), UserWarning, "f.py", 1)
    assert capsys.readouterr().err.splitlines() == [
        "symrmt: warning: discarded the Hermite cache entry 'x.json' (bad); recomputing",
        "symrmt: warning: a plain warning"]
