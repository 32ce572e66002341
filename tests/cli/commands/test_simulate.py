"""``symrmt simulate`` and ``compare``: JSON contracts, tables and plots."""
from __future__ import annotations

import json

import numpy as np
import pytest

from symrmt import Geometry
from symrmt.cli import main

from ..runner import assert_refused, run, run_json


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


def test_simulate_spectrum_plot(capsys, tmp_path):
    path = tmp_path / "spectrum.png"
    out = run_json(capsys, "simulate", "--f", "tanh(x)", "--c", "2", "--gamma", "0.1", "--n", "100", "--seeds", "2",
                   "--spectrum", "--matrix", "kernel", "--plot", str(path), "--quiet")
    assert len(out["eigenvalues"]) == 200 and path.stat().st_size > 10_000 and out["plot"] == str(path)
    assert main(["simulate", "--f", "tanh(x)", "--c", "2", "--gamma", "0.1", "--n", "40", "--plot", str(path)]) == 2


def test_cli_simulate_method_and_spectrum(capsys):
    argv = ["simulate", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1,1", "--n", "40", "--seeds", "2",
            "--quiet", "--json"]
    assert main(argv + ["--method", "tridiagonal", "--spectrum"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["eigenvalues"]) == 80 and out["matrix"] == "gram" and out["method"] == "tridiagonal"
    assert main(argv + ["--method", "exact"]) == 0
    exact = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(exact["attention"]["per_seed"], out["attention"]["per_seed"], rtol=1e-9)
    assert "eigenvalues" not in exact


def test_cli_refusals_exit_2(capsys):
    base = ["simulate", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--seeds", "2"]
    assert main(base + ["--n", "1000000000"]) == 2
    assert "GiB" in capsys.readouterr().err
    assert main(["simulate", "--f", "tanh(x)", "--c", "1e6", "--gamma", "0.1", "--n", "1000"]) == 2
    assert "GiB" in capsys.readouterr().err
    assert main(["simulate", "--f", "tanh(x)", "--c", "1e12", "--gamma", "0.1", "--n", "64"]) == 2
    assert "must be in [1e-06, 1e+06]" in capsys.readouterr().err       # the range of the theory, refused first
    # w_K orthogonal to w_Q: w_K w_Q^T is not symmetric (w_Q = 0 alone would be: B = 0).
    assert main(base + ["--n", "30", "--spectrum", "--matrix", "kernel", "--wk-norm", "1", "--wq-norm", "1"]) == 2
    assert "symmetric attention matrix K" in capsys.readouterr().err


def test_simulate_and_compare_softmax(capsys, tmp_path):
    """--attention softmax: the library's simulate(None, attention='softmax') on the same seeds, the theory
    beside it, a plot; --f, --center and --diag are refused with it."""
    from symrmt import simulate
    from symrmt.theory.softmax import softmax_error

    # tau = 1.5: at c = 1 and tau <= 0.8 (nu/a_1^2 >= 3.7) the solver refuses parts of the plot's grid as "too
    # small for the quadrature" although it solves each point alone (a solver limitation, reported).
    argv = ["--attention", "softmax", "--temperature", "1.5", "--c", "1", "--gamma", "0.1,1", "--n", "48",
            "--seeds", "2", "--quiet", "--mu-norm", "1"]
    out = run_json(capsys, "simulate", *argv)
    library = simulate(None, 48, 1.0, [0.1, 1.0], Geometry(mu_norm=1.0), seeds=2, attention="softmax",
                       temperature=1.5, progress=False)
    assert out["attention"]["mean"] == library.attention_mean.tolist() and out["softmax"]["temperature"] == 1.5
    plot = tmp_path / "softmax.png"
    status, text, err = run(capsys, "compare", *argv, "--plot", str(plot))
    assert status == 0, err
    assert "softmax attention, T = 1.5" in text and plot.stat().st_size > 1000
    assert f"{softmax_error(1.0, 0.1, temperature=1.5, geometry=Geometry(mu_norm=1.0)):11.5f}" in text
    spectrum = run_json(capsys, "simulate", *argv, "--spectrum")
    assert len(spectrum["eigenvalues"]) == 96
    for extra, needle in ((["--f", "tanh(x)"], "leave out --f"), (["--center"], "leave out --center"),
                          (["--diag", "1"], "leave out --diag"), (["--spectrum", "--matrix", "kernel"], "not symmetric")):
        assert_refused(capsys, ["simulate", *argv, *extra], needle)


def test_compare_says_whether_it_agrees(capsys, tmp_path):
    """Every row carries z = (MC - theory)/se and a verdict; the JSON has the same block; the plot marks points."""
    argv = ["compare", "--f", "(x**3-3*x)/sqrt(6)", "--c", "0.5", "--gamma", "0.01,1", "--n", "128", "--seeds", "3",
            "--mu-norm", "2", "--quiet"]
    status, out, _ = run(capsys, *argv)
    assert status == 0 and "verdict" in out and "t_2 = 4.30" in out
    data = run_json(capsys, *argv)
    block = data["agreement"]
    assert block["overall"] in ("agrees", "finite-size gap", "undecided", "disagrees") and len(block["attention"]["z"]) == 2
    assert block["attention"]["regimes"][0][0] == "a_1 = 0 with a signal or weights"
    plot = tmp_path / "cmp.png"
    assert main([*argv, "--plot", str(plot)]) == 0 and plot.stat().st_size > 1000


def test_normalize_is_a_softmax_flag(capsys):
    out = run_json(capsys, "simulate", "--attention", "softmax", "--normalize", "queries", "--c", "1", "--gamma", "1",
                   "--n", "32", "--seeds", "2", "--quiet")
    assert out["softmax"]["normalize"] == "queries"
    assert run_json(capsys, "simulate", "--attention", "softmax", "--c", "1", "--gamma", "1", "--n", "32", "--seeds",
                    "2", "--quiet")["softmax"]["normalize"] == "keys"
    assert_refused(capsys, ["simulate", "--f", "tanh(x)", "--normalize", "keys", "--c", "1", "--gamma", "1", "--n",
                            "32"], "--normalize applies to --attention softmax only")


def test_compare_plot_marks_the_points_that_do_not_agree(tmp_path):
    """plot_panels draws one large marker per point whose verdict is a finite-size gap or a disagreement."""
    import matplotlib

    matplotlib.use("Agg")
    from symrmt.presentation import plotting

    drawn = []
    original = plotting._mark_verdicts

    def spy(ax, panel):
        original(ax, panel)
        drawn.extend(line.get_label() for line in ax.get_lines() if line.get_label().startswith("verdict"))

    panel = {"title": "", "gamma_theory": np.array([0.1, 1.0]), "attention_theory": np.array([0.3, 0.5]),
             "linear_theory": np.array([0.2, 0.4]), "gamma_mc": np.array([0.1, 1.0]),
             "attention_mean": np.array([0.3, 0.6]), "attention_se": np.array([0.01, 0.01]),
             "linear_mean": np.array([0.2, 0.4]), "linear_se": np.array([0.01, 0.01]), "seeds": 4,
             "attention_verdicts": ("agrees", "disagrees"), "linear_verdicts": ("finite-size gap", "agrees")}
    plotting._mark_verdicts, saved = spy, plotting._mark_verdicts
    try:
        plotting.plot_panels([panel], str(tmp_path / "p.png"))
    finally:
        plotting._mark_verdicts = saved
    assert sorted(drawn) == ["verdict: disagrees (|z| > t)", "verdict: finite-size gap (|z| > t)"]


def test_compare_defaults_to_the_seeds_a_verdict_needs(capsys):
    """Without --seeds, compare draws as many seeds as detect a 3% miss with probability 0.8 at its n, and the
    verdict states that power; simulate keeps its default of 4."""
    from symrmt.analysis.agreement import verdict_power, verdict_seeds

    data = run_json(capsys, "compare", "--f", "tanh(x)", "--c", "0.5", "--gamma", "1", "--n", "512", "--quiet")
    assert data["simulation"]["seeds"] == verdict_seeds(512) > 40
    assert data["agreement"]["power"] == pytest.approx(verdict_power(verdict_seeds(512), n=512))
    assert data["agreement"]["power"] >= 0.8
    assert "a 3% miss is detected with probability 0.8" in data["agreement"]["summary"]
    simulated = run_json(capsys, "simulate", "--f", "tanh(x)", "--c", "1", "--gamma", "1", "--n", "16", "--quiet")
    assert simulated["seeds"] == 4
