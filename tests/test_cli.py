"""The command line: JSON contract, exit codes, refusals, and a smoke run of every command."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from symrmt.cli import main


def run(capsys, *argv):
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def run_json(capsys, *argv):
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0, err
    return json.loads(out)


def test_hermite_json_contract(capsys):
    out = run_json(capsys, "hermite", "--f", "erf(x)")
    assert set(out) >= {"f", "a0", "a1", "a2", "nu", "exact", "source"}
    assert abs(out["nu"] - 2 / math.pi * math.asin(2 / 3)) < 1e-13
    assert "asin" in out["exact"]["nu"] and out["exact"]["a2"] is not None


def test_hermite_extra_order_and_centering(capsys):
    out = run_json(capsys, "hermite", "--f", "relu(x)", "--center", "--k", "3")
    assert abs(out["a1"] - 0.5) < 1e-14 and "a3" in out and out["centered_by"] > 0.39


def test_uncentered_f_is_refused_with_a_hint(capsys):
    status, _, err = run(capsys, "hermite", "--f", "relu(x)")
    assert status == 2 and "--center" in err


def test_leading_minus_formula(capsys):
    out = run_json(capsys, "hermite", "--f=-tanh(x)")
    assert abs(out["a1"] + 0.6057055) < 1e-6


@pytest.mark.parametrize("evil", ["__import__('os').system('touch /tmp/symrmt-pwned')", "x.__class__",
                                  "lambda: 1", "exec('1')", "open('/etc/passwd')", "y", "x^2", ""])
def test_unsafe_or_unknown_strings_are_refused(capsys, evil):
    status, out, err = run(capsys, "hermite", "--f", evil)
    assert status == 2 and out == "" and "error" in err and "Traceback" not in err


def test_theory_json_has_attention_and_linear(capsys):
    out = run_json(capsys, "theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.01,0.1,1")
    assert out["gamma"] == [0.01, 0.1, 1.0]
    assert [round(v, 3) for v in out["attention"]] == [0.167, 0.453, 0.743]   # docs/theory.md section 5
    assert len(out["linear"]) == 3


def test_theory_log_grid_and_geometry(capsys):
    out = run_json(capsys, "theory", "--f", "erf(x)", "--c", "2", "--gamma", "1e-2:10:7", "--mu-norm", "1",
                   "--wk-norm", "1", "--wq-norm", "0.5", "--cos-mu-wk", "0.5", "--diag", "0.2")
    assert len(out["attention"]) == 7 and all(0 <= e <= 1 for e in out["attention"])


@pytest.mark.parametrize("argv", [
    ["theory", "--f", "tanh(x)", "--c", "0", "--gamma", "0.1"],
    ["theory", "--f", "tanh(x)", "--c", "-1", "--gamma", "0.1"],
    ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0"],
    ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "-0.1,1"],
    ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "abc"],
    ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--mu-norm", "1", "--wk-norm", "1",
     "--wq-norm", "1", "--cos-mu-wk", "1", "--cos-mu-wq", "-1", "--cos-wk-wq", "1"],
    ["simulate", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--n", "1"],
])
def test_bad_input_exits_2_with_a_message(capsys, argv):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and "error" in err and "Traceback" not in err


def test_simulate_json_contract(capsys):
    out = run_json(capsys, "simulate", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1,1", "--n", "64",
                   "--seeds", "3", "--mu-norm", "1")
    assert set(out) >= {"gamma", "attention", "linear"}
    assert set(out["attention"]) >= {"mean", "se"} and len(out["linear"]["se"]) == 2


def test_compare_prints_a_table_and_writes_a_plot(capsys, tmp_path):
    plot = tmp_path / "cmp.png"
    status, out, _ = run(capsys, "compare", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1,1", "--n", "64",
                         "--seeds", "2", "--plot", str(plot))
    assert status == 0 and "attn theory" in out and plot.stat().st_size > 1000


def test_latex_general_and_with_f(capsys):
    general = run_json(capsys, "latex")["latex"]
    assert r"\mathsf{G}" in general and "a_{1}" in general
    erf = run_json(capsys, "latex", "--f", "erf(x)")["latex"]
    assert "a_{1}" not in erf and r"\operatorname{asin}" in erf
    linear = run_json(capsys, "latex", "--kind", "linear")["latex"]
    assert r"E_\mathrm{lin}" in linear


def test_demo_smoke(capsys, tmp_path):
    out = run_json(capsys, "demo", "--n", "64", "--seeds", "2", "--plot", str(tmp_path / "demo.png"))
    assert len(out["settings"]) == 3 and (tmp_path / "demo.png").exists()


def test_console_script_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "symrmt", "hermite", "--f", "x", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and json.loads(proc.stdout)["nu"] == 1.0
