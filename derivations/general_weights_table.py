"""The table of docs/real_weights.md: I + low-rank fit, elliptic model, exact general M and the Monte Carlo.
=========================================================================================================

    PYTHONPATH=. python derivations/general_weights_table.py [--seeds 8]

Each MiniLM-L6 layer's M = W_K^T W_Q/sqrt(d) (key first, rescaled to ``||M||_F^2`` = p), tanh, c = 1, noise only,
n = p = 384. Columns: the theory of the fitted sI + rank 8 (symrmt.weights.fitted_attention_error), the elliptic
model sI + E (symrmt/general/elliptic.py), the exact general-M theory (symrmt.attention_error(weights=M)), and
simulate(weights=M) with its mean and 95% t half-width over the seeds. Prints a markdown table.
"""
import argparse

import numpy as np
from scipy import stats

import symrmt
from symrmt.general.elliptic import attention_error_elliptic
from symrmt.weights import analyze
from symrmt.weights.predict import fitted_attention_error

GAMMAS = [0.01, 0.1, 1.0, 10.0]
RANK = 8

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--layers", type=int, nargs="*", default=[0, 1, 2, 3, 4, 5])
    a = ap.parse_args()
    analysis = analyze("minilm", layers=a.layers, heads=[], rank_max=RANK)
    print("| layer | γ | I + rank 8 fit | elliptic | exact general M | Monte Carlo (95%) |")
    print("|---|---|---|---|---|---|")
    for lay in analysis.layers:
        fit = lay.matrix
        p = fit.matrix.p
        scale = np.sqrt(p) / np.linalg.norm(fit.dense())
        M = fit.weights(scale=scale)                                  # key first, unit score scale
        low = fitted_attention_error(fit, RANK, "tanh(x)", 1.0, GAMMAS, np.zeros(p), scale=scale)
        ell = attention_error_elliptic("tanh(x)", 1.0, GAMMAS, M)
        exact = symrmt.attention_error("tanh(x)", 1.0, GAMMAS, weights=M)
        mc = symrmt.simulate("tanh(x)", p, 1.0, GAMMAS, weights=M, seeds=a.seeds, progress=False)
        half = stats.t.ppf(0.975, a.seeds - 1) * mc.attention_se
        for k, g in enumerate(GAMMAS):
            print(f"| {lay.layer} | {g:g} | {low[k]:.3f} | {ell[k]:.3f} | {exact[k]:.3f} | "
                  f"{mc.attention_mean[k]:.3f} ± {half[k]:.3f} |", flush=True)
