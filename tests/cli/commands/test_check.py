"""``symrmt check``: the catalogue on one f as a table or JSON; exit 0 when all hold, 1 when one fails, 2 for bad input."""
from __future__ import annotations

import json
import sys

import pytest

import symrmt.testing.verification as verify_module
from symrmt.testing import CATALOGUE
from symrmt.testing.planted import Perturbed

from ..runner import assert_refused, run, run_json

#: Two cheap properties keep these tests short; tests/verification runs the whole catalogue.
FEW = ("--property", "scale_law", "--property", "sign_symmetry", "--examples", "1")


def test_check_json_contract(capsys):
    out = run_json(capsys, "check", "--f", "tanh(x)", *FEW)
    assert out["passed"] is True and out["f"] == "tanh(x)" and abs(out["a1"] - 0.6057055) < 1e-6
    assert [row["property"] for row in out["rows"]] == ["scale_law", "sign_symmetry"]
    row = out["rows"][0]
    assert set(row) >= {"property", "statement", "region", "uses_f", "passed", "worst_deviation", "tolerance", "ratio"}
    assert out["params"] == {}
    assert row["passed"] and row["worst_deviation"] <= row["tolerance"] and row["region"] == CATALOGUE["scale_law"].region


def test_check_table_and_parameters(capsys):
    status, out, err = run(capsys, "check", "--f", "relu(x) - s*relu(-x)", "--center", "--param", "s=0.2", *FEW)
    assert status == 0, err
    assert "scale_law" in out and "2 of 2 properties hold; 2 of the 2 that use your f whole" in out
    assert out.splitlines()[0].startswith("f = ") and " at s = 0.2:" in out.splitlines()[0]   # the values solved


def test_check_marks_the_rows_that_do_not_use_your_f(capsys):
    """linear_regression never reads f and softmax_large_temperature uses the softmax's f: the table and the JSON
    say so, and the count of properties that hold for f leaves them out (planted: a catalogue where every row
    claimed "yes" would print them as evidence about f)."""
    out = run_json(capsys, "check", "--f", "tanh(x)", "--examples", "1", "--property", "linear_regression",
                   "--property", "softmax_large_temperature", "--property", "linear_f", "--property", "scale_law")
    assert [row["uses_f"] for row in out["rows"]] == ["no", "no", "a1 only", "yes"]
    status, text, _ = run(capsys, "check", "--f", "tanh(x)", "--examples", "1", "--property", "linear_regression",
                          "--property", "scale_law")
    assert status == 0 and "2 of 2 properties hold; 1 of the 1 that use your f whole" in text
    assert {line.split()[0]: line.split()[2] for line in text.splitlines()[2:4]} == {"linear_regression": "no",
                                                                                    "scale_law": "yes"}


def test_check_exits_4_when_a_property_fails(capsys, monkeypatch):
    """A theory with a planted error (E scaled by 1.01) fails the noise-only property: status 4 (1 is a bug), the table says so."""
    monkeypatch.setattr(verify_module, "PackageTheory", lambda: Perturbed("planted", error=1.01))
    status, out, err = run(capsys, "check", "--f", "tanh(x)", "--property", "noise_only", "--examples", "1", "--json")
    assert status == 4, err
    out = json.loads(out)
    assert out["passed"] is False and not out["rows"][0]["passed"] and "noise only" in out["rows"][0]["message"]
    assert out["rows"][0]["counterexample"]["nu"] == pytest.approx(out["nu"])


@pytest.mark.parametrize("argv, needle", [
    (["--f", "tanh(s*x)"], "--param s="),
    (["--f", "tanh(x)", "--property", "nonsense"], "unknown properties"),
    (["--f", "tanh(x)", "--examples", "0"], "examples"),
    (["--f", "relu(x)"], "--center"),
])
def test_check_refuses_bad_input_in_one_line(capsys, argv, needle):
    assert_refused(capsys, ["check", *argv], needle)


def test_check_without_hypothesis_says_which_extra(capsys, monkeypatch):
    for name in [m for m in sys.modules if m == "symrmt.testing" or m.startswith("symrmt.testing.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "hypothesis", None)
    assert_refused(capsys, ["check", "--f", "tanh(x)"], "pip install 'symrmt[testing]'")
