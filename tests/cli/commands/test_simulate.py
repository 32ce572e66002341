"""``symrmt simulate`` and ``compare``: JSON contracts, tables and plots."""
from __future__ import annotations

from symrmt.cli import main

from ..runner import run, run_json


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
