"""Smoke test: every derivation script runs (small) and prints what it promises."""
import pathlib
import subprocess
import sys

import pytest

SCRIPTS = sorted((pathlib.Path(__file__).parent.parent / "derivations").glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_derivation_script_runs(script):
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()


def test_scripts_exist():
    assert {s.name for s in SCRIPTS} >= {"noise_only.py", "signal_and_weights.py", "linear_regression.py", "a1_zero.py"}
