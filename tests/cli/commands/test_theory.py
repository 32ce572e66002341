"""``symrmt theory``, ``spectrum`` and ``latex``: JSON contracts and refusals."""
from __future__ import annotations

import numpy as np
import pytest

from symrmt.cli import main
from symrmt import spectral_density

from ..runner import assert_refused, run_json


def test_theory_json_has_attention_and_linear(capsys):
    out = run_json(capsys, "theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.01,0.1,1")
    assert out["gamma"] == [0.01, 0.1, 1.0]
    assert [round(v, 3) for v in out["attention"]] == [0.167, 0.453, 0.743]   # docs/theory.md section 5
    assert len(out["linear"]) == 3


def test_theory_log_grid_and_geometry(capsys):
    out = run_json(capsys, "theory", "--f", "erf(x)", "--c", "2", "--gamma", "1e-2:10:7log", "--mu-norm", "1",
                   "--wk-norm", "1", "--wq-norm", "0.5", "--cos-mu-wk", "0.5", "--diag", "0.2")
    assert len(out["attention"]) == 7 and all(0 <= e <= 1 for e in out["attention"])


def test_latex_general_and_with_f(capsys):
    general = run_json(capsys, "latex")["latex"]
    assert r"\mathsf{G}" in general and "a_{1}" in general
    erf = run_json(capsys, "latex", "--f", "erf(x)")["latex"]
    equations, where = erf.rsplit("\n\n", 1)
    assert r"\operatorname{asin}" not in equations and "b^{2}" in equations   # a_1 and b symbols, given once
    assert r"\operatorname{asin}" in where and r"b^{2} = \nu - a_1^2 = " in where
    numeric = run_json(capsys, "latex", "--f", "erf(x)", "--numeric")["latex"]
    assert "a_{1}" not in numeric.rsplit("\n\n", 1)[0]                   # --numeric puts the numbers in
    linear = run_json(capsys, "latex", "--kind", "linear")["latex"]
    assert r"E_\mathrm{lin}" in linear


def test_latex_body_for_a_paper(capsys, tmp_path):
    body = tmp_path / "lrelu.tex"
    out = run_json(capsys, "latex", "--f", "leaky_relu(x, s)", "--center", "--body", str(body), "--label-prefix", "lrelu")
    text = body.read_text()
    assert out["body"] == str(body) and out["latex"] == text
    assert r"\label{lrelu:t11}" in text and r"\label{lrelu:X}" in text and "symrmtsolverdata" not in text
    run_json(capsys, "latex", "--f", "tanh(x)", "--body", str(body), "--solver-data")
    assert r"\begin{symrmtsolverdata}" in body.read_text()


def test_latex_refuses_body_with_document_and_a_bad_prefix(capsys, tmp_path):
    assert main(["latex", "--body", str(tmp_path / "a.tex"), "--document", str(tmp_path / "b.tex")]) == 2
    assert "--document and --body" in capsys.readouterr().err
    assert main(["latex", "--body", str(tmp_path / "a.tex"), "--label-prefix", "two words"]) == 2
    assert "label prefix" in capsys.readouterr().err and not (tmp_path / "a.tex").exists()
    assert main(["latex", "--body", str(tmp_path / "a.txt")]) == 2                       # not a .tex file


def test_spectrum_json_contract(capsys):
    out = run_json(capsys, "spectrum", "--f", "tanh(x)", "--c", "0.5", "--x=0.5:2:4")
    assert set(out) == {"x", "density", "eta", "matrix", "atom", "failed"} and out["failed"] == []
    assert out["matrix"] == "gram" and out["eta"] == 0.0 and out["atom"] == 0.5
    assert np.allclose(out["density"], spectral_density("tanh(x)", 0.5, out["x"]).density)
    kernel = run_json(capsys, "spectrum", "--f", "tanh(x)", "--c", "2", "--x", "0,0.5", "--eta", "0.1", "--matrix", "kernel")
    assert kernel["matrix"] == "kernel" and all(v > 0 for v in kernel["density"])


def test_spectrum_refuses_asymmetric_kernel_and_bad_grids(capsys):
    assert main(["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "0", "--matrix", "kernel",
                 "--wk-norm", "1", "--wq-norm", "1", "--cos-wk-wq", "0.2"]) == 2
    assert main(["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "0,,1"]) == 2
    assert main(["spectrum", "--f", "tanh(x)", "--c", "1", "--x", "0:1:0"]) == 2


@pytest.mark.parametrize("argv, needle", [
    (["latex", "--rank", "0"], "--rank 0: the rank must be in 1..64"),
    (["latex", "--rank", "-3"], "--rank -3: the rank must be in 1..64"),
    (["latex", "--rank", "65"], "1..64"),
    (["latex", "--rank", "1000000"], "1..64"),                  # ran for minutes before it was bounded
    (["latex", "--kind", "linear", "--rank", "2"], "the linear model takes no rank"),   # not silently ignored
    (["latex", "--f", "tanh(x)", "--digits", "0"], "--digits 0: give 1..17"),
    (["latex", "--f", "tanh(x)", "--digits", "18"], "1..17"),
    (["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "0.1", "--param", "s=1", "--param", "s=2"],
     "--param s is given twice"),
    (["theory", "--f", "tanh(s*x)", "--c", "1", "--gamma", "1e-3:1:1000log", "--param", "s=0.5:2:101"],
     "ask for 101000 values"),
    (["theory", "--f", "tanh(s*t*x)", "--c", "1", "--gamma", "0.1", "--param", "s=1:2:1000",
      "--param", "t=1:2:1000"], "at most 100000"),
])
def test_bounds_and_repeated_parameters_are_one_line_and_exit_2(capsys, argv, needle):
    assert_refused(capsys, argv, needle)


def test_the_largest_rank_and_digits_are_accepted(capsys):
    assert run_json(capsys, "latex", "--f", "erf(x)", "--numeric", "--digits", "17")["latex"]
    assert run_json(capsys, "latex", "--f", "tanh(x)", "--rank", "3", "--digits", "1")["rank"] == 3


def test_form_on_theory_spectrum_and_latex(capsys):
    base = ("theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.01,0.1,1", "--mu-norm", "1")
    algebraic, quadrature = (run_json(capsys, *base, "--form", form) for form in ("algebraic", "quadrature"))
    assert np.allclose(algebraic["attention"], quadrature["attention"], rtol=1e-9)
    assert np.allclose(algebraic["linear"], quadrature["linear"], rtol=1e-9)
    densities = [run_json(capsys, "spectrum", "--f", "tanh(x)", "--c", "2", "--x", "0.5,1", "--form", form)["density"]
                 for form in ("algebraic", "quadrature")]
    assert np.allclose(*densities, rtol=1e-8)
    printed = run_json(capsys, "latex", "--form", "algebraic")
    assert printed["form"] == "algebraic" and r"\mathbb{E}_\lambda\left[" not in printed["latex"]
    assert r"\mathfrak{m}" in printed["latex"] and r"\zeta_{2}" in printed["latex"]
    assert r"\mathbb{E}_\lambda\left[" in run_json(capsys, "latex")["latex"]          # the default: quadrature
    assert main(["theory", *base[1:], "--form", "fast"]) == 2


def test_theory_softmax(capsys):
    from symrmt.theory.softmax import softmax_error, softmax_hermite

    out = run_json(capsys, "theory", "--attention", "softmax", "--temperature", "0.5", "--c", "1",
                   "--gamma", "0.01,1", "--mu-norm", "1.5")
    assert np.allclose(out["attention"], softmax_error(1.0, [0.01, 1.0], temperature=0.5,
                                                       geometry=symrmt_geometry(mu_norm=1.5)), rtol=1e-12)
    assert (out["a1"], out["nu"]) == tuple(float(v) for v in softmax_hermite(0.5)) and out["temperature"] == 0.5
    assert run_json(capsys, "theory", "--attention", "softmax", "--c", "1", "--gamma", "0.1")["temperature"] == 1.0


@pytest.mark.parametrize("argv, needle", [
    (["--attention", "softmax", "--f", "tanh(x)"], "leave out --f"),
    (["--attention", "softmax", "--diag", "0.5"], "leave out --diag"),
    (["--attention", "softmax", "--temperature", "0"], "temperature"),
    (["--f", "tanh(x)", "--temperature", "2"], "softmax only"),
    ([], "--f is required"),
])
def test_theory_softmax_refusals(capsys, argv, needle):
    assert_refused(capsys, ["theory", "--c", "1", "--gamma", "0.1", *argv], needle)


def symrmt_geometry(**kwargs):
    from symrmt import Geometry

    return Geometry(**kwargs)


#: (mu, w_K1, w_K2, w_Q1, w_Q2) of two heads, as in tests/cli/commands/test_heads.py.
_TWO_HEADS = [[1, 1, 0, 1, 0], [1, 1, 0, 1, 0], [0, 0, 1.44, 0, 1.44], [1, 1, 0, 1, 0], [0, 0, 1.44, 0, 1.44]]


def _kind_cases(folder):
    """``{model: (flags beside --kind, --c 1 and --gamma, the same arguments for solve_model)}`` for every model with
    a theory over gamma; the general-M models read a small layer written to ``folder``."""
    import json
    import pathlib
    import sys

    pytest.importorskip("safetensors")
    sys.path.insert(0, str(pathlib.Path(__file__).parents[2]))
    from weights.files import bert_tensors, write

    from symrmt.cli.commands.theory_weights import layer_matrix

    write(folder / "m.safetensors", bert_tensors(np.random.default_rng(0), p=8, layers=1),
          {"num_attention_heads": 2, "hidden_size": 8})
    M = layer_matrix(str(folder / "m.safetensors"), 0)
    layer = ["--weights", str(folder / "m.safetensors"), "--layer", "0", "--f", "tanh(x)"]
    return {
        "attention": (["--f", "tanh(x)"], {"f": "tanh(x)"}),
        "linear": ([], {}),
        "kernel_ridge": (["--f", "tanh(x)", "--mu-norm", "1"], {"f": "tanh(x)", "geometry": symrmt_geometry(mu_norm=1.0)}),
        "attention_general": (layer, {"f": "tanh(x)", "weights": M}),
        "attention_elliptic": ([*layer, "--rank", "1"], {"f": "tanh(x)", "weights": M, "rank": 1}),
        "softmax": (["--temperature", "0.5"], {"temperature": 0.5}),
        "summed_heads": (["--f", "tanh(x)", "--heads", "2", "--gram", json.dumps(_TWO_HEADS)],
                         {"f": "tanh(x)", "heads": 2, "gram": np.array(_TWO_HEADS, float)}),
    }


def test_theory_kind_solves_every_registered_model_with_a_theory(capsys, tmp_path):
    """Issue 38: ``theory --kind NAME`` solves each registered model over gamma (kernel ridge included) and prints
    what solve_model gives, bit for bit; a model registered without a case here fails the first assert."""
    from symrmt.cli.commands.theory_kind import theory_kinds
    from symrmt.theory import solve_model

    cases = _kind_cases(tmp_path)
    assert set(theory_kinds()) == set(cases)
    for name, (flags, arguments) in cases.items():
        out = run_json(capsys, "theory", "--kind", name, "--c", "1", "--gamma", "0.1,1", *flags)
        expected = solve_model(name, c=1.0, gamma=np.array([0.1, 1.0]), **arguments).error
        assert out["kind"] == name and out["E"] == np.asarray(expected).tolist(), name


def test_theory_kind_refuses_the_densities_and_a_stray_rank(capsys):
    """The densities (over x, symrmt spectrum's) are no choice of --kind; --rank without --kind is refused."""
    assert_refused(capsys, ["theory", "--kind", "gram_density", "--c", "1", "--gamma", "0.1"], "invalid choice")
    assert_refused(capsys, ["theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--rank", "2"],
                   "--rank is the rank argument")
