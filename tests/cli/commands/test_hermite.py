"""``symrmt hermite``: the JSON contract, extra orders, centering and refused formulas."""
from __future__ import annotations

import math

import pytest

from ..runner import assert_refused, run, run_json


def test_hermite_json_contract(capsys):
    out = run_json(capsys, "hermite", "--f", "erf(x)")
    assert set(out) >= {"f", "a0", "a1", "a2", "nu", "exact", "source"}
    assert abs(out["nu"] - 2 / math.pi * math.asin(2 / 3)) < 1e-13
    assert "asin" in out["exact"]["nu"] and out["exact"]["a2"] is not None


def test_hermite_extra_order_and_centering(capsys):
    out = run_json(capsys, "hermite", "--f", "relu(x)", "--center", "--k", "3")
    assert abs(out["a1"] - 0.5) < 1e-14 and "a3" in out and out["centered_by"] > 0.39


def test_any_f_has_its_a0_and_the_theory_refuses_it_uncentered_with_a_hint(capsys):
    out = run_json(capsys, "hermite", "--f", "relu(x)", "--timeout", "60")      # SymPy finds a_0 in seconds
    assert abs(out["a0"] - 1 / math.sqrt(2 * math.pi)) < 1e-15 and out["exact"]["a0"] and out["centered_by"] == 0
    for command in (["theory", "--gamma", "0.1"], ["simulate", "--gamma", "0.1", "--n", "16"],
                    ["spectrum", "--x", "1"]):
        assert_refused(capsys, [command[0], "--f", "relu(x)", "--c", "1", *command[1:]], "--center")


def test_exact_forms_of_exponentials(capsys):
    out = run_json(capsys, "hermite", "--f", "exp(x)")
    assert out["source"] == {k: "exact" for k in ("a0", "a1", "a2", "nu")}
    assert out["exact"]["a1"] == r"e^{\frac{1}{2}}" and abs(out["a1"] - math.exp(0.5)) < 1e-15


def test_leading_minus_formula(capsys):
    out = run_json(capsys, "hermite", "--f=-tanh(x)")
    assert abs(out["a1"] + 0.6057055) < 1e-6


@pytest.mark.parametrize("evil", ["__import__('os').system('touch /tmp/symrmt-pwned')", "x.__class__",
                                  "lambda: 1", "exec('1')", "open('/etc/passwd')", "y", "x^2", ""])
def test_unsafe_or_unknown_strings_are_refused(capsys, evil):
    status, out, err = run(capsys, "hermite", "--f", evil)
    assert status == 2 and out == "" and "error" in err and "Traceback" not in err


@pytest.mark.parametrize("argv, needle", [
    (["hermite", "--f", "tanh(x)", "--k", "-1"], "order"),
    (["hermite", "--f", "1e-15*x"], "too small in scale"),
    (["hermite", "--f", "__import__('os').system('true')"], "not allowed"),
])
def test_bad_hermite_input_is_one_line_and_exit_2(capsys, argv, needle):
    assert_refused(capsys, argv, needle)


def test_a_centred_f_with_a_parameter_reports_what_was_subtracted(capsys):
    out = run_json(capsys, "hermite", "--f", "s*x**2 + x", "--center")       # a_0 = s
    assert out["centered_by"] == "s" and out["exact"]["a0"] == "0"
    assert run_json(capsys, "hermite", "--f", "x**2 + s*x", "--center")["centered_by"] == 1.0
    status, text, _ = run(capsys, "hermite", "--f", "s*x**2 + x", "--center")
    assert status == 0 and "centered: subtracted a_0 = s" in text
