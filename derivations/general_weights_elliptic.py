"""The elliptic model of each MiniLM-L6 layer (noise only, tanh, c = 1) next to the exact general-M theory.
========================================================================================================

    PYTHONPATH=. python derivations/general_weights_elliptic.py

M (unit score scale, symrmt's orientation) is replaced by sI + E, E elliptic matched to tr M, ``||M - sI||_F`` and
tr (M - sI)^2 (symrmt/general/elliptic.py). Prints gamma, exact, elliptic, difference.
"""
import numpy as np

from symrmt.general import attention_error_general
from symrmt.general.elliptic import attention_error_elliptic

from general_weights_minilm import matrices

GAMMAS = [0.01, 0.1, 1.0, 10.0]

if __name__ == "__main__":
    import sys
    layers = [int(a) for a in sys.argv[1:]] or [0, 1, 2, 3, 4, 5]
    print("matrix,gamma,exact,elliptic,difference")
    for name, M in matrices(layers, []):
        exact = attention_error_general("tanh(x)", 1.0, GAMMAS, M)
        ell = attention_error_elliptic("tanh(x)", 1.0, GAMMAS, M)
        for g, a, b in zip(GAMMAS, exact, ell):
            print(f"{name},{g:g},{a:.4f},{b:.4f},{b - a:+.4f}", flush=True)
