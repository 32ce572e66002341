"""Cost of the kernels of one Monte Carlo draw, in score GEMMs: ``python benchmarks/bench_kernels.py``.

Prints, for one size n = p, each kernel's time divided by that of the score GEMM
X^T (M X) measured in the same process (best of three each). These are the
figures behind the cost model of ``method="auto"`` (``_PASS``, ``_SYRK``,
``_SYTRD`` in symrmt/simulation/linalg.py) and behind running the memory-bound kernels
on one BLAS thread (``symrmt.simulation.linalg.serial_blas``).

    python benchmarks/bench_kernels.py --n 2048
"""
from __future__ import annotations

import argparse

import numpy as np
from scipy.linalg import lapack
from timing import best_of

from symrmt.simulation.linalg import serial_blas


def best(fn, repeat: int = 3) -> float:
    return best_of(fn, repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2048)
    n = parser.parse_args().n
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, n))
    MX = X + np.outer(rng.standard_normal(n), rng.standard_normal(n) @ X) / n
    C = X.T @ X / n
    v = rng.standard_normal(n)
    lwork = int(lapack.dsytrd_lwork(n, lower=1)[0])
    gemm = best(lambda: X.T @ MX)
    print(f"n = p = {n}: score GEMM X^T (M X) {gemm:.3f} s; costs in GEMMs:")
    rows = [
        ("draw Z = standard_normal((p, n))", lambda: np.random.default_rng(1).standard_normal((n, n))),
        ("X^T X (numpy's SYRK)", lambda: X.T @ X),
        ("tanh of the n-by-n scores", lambda: np.tanh(X)),
        ("sytrd, scipy's default lwork = n (unblocked)", lambda: lapack.dsytrd(C, lower=1)),
        ("sytrd, optimal lwork", lambda: lapack.dsytrd(C, lower=1, lwork=lwork)),
        ("100 matrix-vector products C @ v", lambda: [C @ v for _ in range(100)]),
        ("100 products K^T @ v (transposed)", lambda: [X.T @ v for _ in range(100)]),
    ]
    for label, fn in rows:
        print(f"  {label:<46} {best(fn, 2) / gemm:6.2f}")
    with serial_blas():
        for label, fn in rows[3:]:
            print(f"  {label + ', one BLAS thread':<60} {best(fn, 2) / gemm:6.2f}")


if __name__ == "__main__":
    main()
