"""``symrmt theory``, ``spectrum`` and ``latex``: JSON contracts and refusals."""
from __future__ import annotations

import numpy as np

from symrmt.cli import main
from symrmt import spectral_density

from ..runner import run_json


def test_theory_json_has_attention_and_linear(capsys):
    out = run_json(capsys, "theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.01,0.1,1")
    assert out["gamma"] == [0.01, 0.1, 1.0]
    assert [round(v, 3) for v in out["attention"]] == [0.167, 0.453, 0.743]   # docs/theory.md section 5
    assert len(out["linear"]) == 3


def test_theory_log_grid_and_geometry(capsys):
    out = run_json(capsys, "theory", "--f", "erf(x)", "--c", "2", "--gamma", "1e-2:10:7", "--mu-norm", "1",
                   "--wk-norm", "1", "--wq-norm", "0.5", "--cos-mu-wk", "0.5", "--diag", "0.2")
    assert len(out["attention"]) == 7 and all(0 <= e <= 1 for e in out["attention"])


def test_latex_general_and_with_f(capsys):
    general = run_json(capsys, "latex")["latex"]
    assert r"\mathsf{G}" in general and "a_{1}" in general
    erf = run_json(capsys, "latex", "--f", "erf(x)")["latex"]
    assert "a_{1}" not in erf and r"\operatorname{asin}" in erf
    linear = run_json(capsys, "latex", "--kind", "linear")["latex"]
    assert r"E_\mathrm{lin}" in linear


def test_spectrum_json_contract(capsys):
    out = run_json(capsys, "spectrum", "--f", "tanh(x)", "--c", "0.5", "--x=0.5:2:4")
    assert set(out) == {"x", "density", "eta", "matrix", "atom"}
    assert out["matrix"] == "gram" and out["eta"] == 0.0 and out["atom"] == 0.5
    assert np.allclose(out["density"], spectral_density("tanh(x)", 0.5, out["x"]).density)
    kernel = run_json(capsys, "spectrum", "--f", "tanh(x)", "--c", "2", "--x", "0,0.5", "--eta", "0.1", "--matrix", "kernel")
    assert kernel["matrix"] == "kernel" and all(v > 0 for v in kernel["density"])


def test_spectrum_refuses_asymmetric_kernel_and_bad_grids(capsys):
    assert main(["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "0", "--matrix", "kernel",
                 "--wk-norm", "1", "--wq-norm", "1", "--cos-wk-wq", "0.2"]) == 2
    assert main(["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "0,,1"]) == 2
    assert main(["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "0:1:0"]) == 2
