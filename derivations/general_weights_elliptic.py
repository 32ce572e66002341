"""The cheaper model sI + L + E of each MiniLM-L6 layer next to the exact general-M theory (docs/general_weights.md, 10).
======================================================================================================================

    PYTHONPATH=. python derivations/general_weights_elliptic.py --layers 0 1 2 3 4 5 --ranks 0 8 32
    PYTHONPATH=. python derivations/general_weights_elliptic.py --layers 0 --ranks 0 8 32 128 --signals top random

M (unit score scale, symrmt's orientation; general_weights_minilm.matrices) is replaced by sI + L + E: L the top-k
singular directions of M - (tr M/p) I kept exactly, E elliptic matched to the rest's trace, ``||.||_F`` and tr(.)^2
(symrmt/general/elliptic.py; k = 0 is the three-number model). tanh, c = 1. Signals: none, mu along the top right
singular vector of M, or a random unit direction (seed 27). Prints matrix, signal, rank, gamma, exact, model,
difference, seconds for the model's curve.
"""
import argparse
import time

import numpy as np

from symrmt.general import attention_error_general
from symrmt.general.elliptic import attention_error_elliptic

from general_weights_minilm import matrices

GAMMAS = [0.01, 0.1, 1.0, 10.0]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, nargs="+", default=[0, 1, 2, 3, 4, 5])
    ap.add_argument("--ranks", type=int, nargs="+", default=[0, 8, 32])
    ap.add_argument("--signals", nargs="+", default=["none"])
    a = ap.parse_args(argv)
    print("matrix,signal,rank,gamma,exact,model,difference,model_seconds", flush=True)
    for name, M in matrices(a.layers, []):
        for sig in a.signals:
            if sig == "none":
                mu = None
            elif sig == "top":
                mu = np.linalg.svd(M)[2][0]
            else:
                mu = np.random.default_rng(27).standard_normal(M.shape[0])
                mu /= np.linalg.norm(mu)
            exact = attention_error_general("tanh(x)", 1.0, GAMMAS, M, mu=mu)
            for k in a.ranks:
                t0 = time.time()
                model = attention_error_elliptic("tanh(x)", 1.0, GAMMAS, M, rank=k, mu=mu)
                dt = time.time() - t0
                for g, x, y in zip(GAMMAS, exact, model):
                    print(f"{name},{sig},{k},{g:g},{x:.4f},{y:.4f},{y - x:+.4f},{dt:.1f}", flush=True)


if __name__ == "__main__":
    main()
