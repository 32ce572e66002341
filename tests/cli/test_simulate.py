"""``symrmt simulate``: --method, --quiet, --spectrum, --matrix, and refusals with exit status 2."""
from __future__ import annotations

import json

import numpy as np


def test_cli_simulate_method_and_spectrum(capsys):
    from symrmt.cli import main

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
    from symrmt.cli import main

    base = ["simulate", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1", "--seeds", "2"]
    assert main(base + ["--n", "1000000000"]) == 2
    assert "GiB" in capsys.readouterr().err
    assert main(["simulate", "--f", "tanh(x)", "--c", "1e12", "--gamma", "0.1", "--n", "64"]) == 2
    assert "GiB" in capsys.readouterr().err
    # w_K orthogonal to w_Q: w_K w_Q^T is not symmetric (w_Q = 0 alone would be: B = 0).
    assert main(base + ["--n", "30", "--spectrum", "--matrix", "kernel", "--wk-norm", "1", "--wq-norm", "1"]) == 2
    assert "symmetric attention matrix K" in capsys.readouterr().err
