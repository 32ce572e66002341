"""Cost of the kernels of one Monte Carlo draw, in score GEMMs: ``python benchmarks/bench_kernels.py``.

Prints, for one size n = p, each kernel's time with one and with two BLAS threads divided
by that of the score GEMM X^T (M X) (two threads) measured in the same process (best of
two each). These are the figures behind the cost model of ``method="auto"`` (``_PASS``,
``_SYRK``, ``_SYTRD`` in symrmt/simulation/linalg.py) and behind the thread policy of the
reductions (``symrmt.simulation.threads``); ``benchmarks/bench_simulate.py`` prints the
same table beside its ratios.

    python benchmarks/bench_kernels.py --n 2048
"""
from __future__ import annotations

import argparse

import numpy as np
from scipy.linalg import lapack
from timing import best_of

from symrmt.simulation import two_stage
from symrmt.simulation.linalg import rows_product
from symrmt.simulation.threads import Strategy, available_threads, blas_threads, run_pair


def kernels(n: int) -> dict:
    """Label -> callable for the kernels of a draw at n = p (arrays made once, outside the timings)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, n))
    MX = X + np.outer(rng.standard_normal(n), rng.standard_normal(n) @ X) / n
    C = X.T @ X / n
    v = rng.standard_normal(n)
    V = rng.standard_normal((n, 2))
    lwork = int(lapack.dsytrd_lwork(n, lower=1)[0])
    return {
        "score GEMM X^T (M X)": lambda: X.T @ MX,
        "X^T X (numpy's SYRK)": lambda: X.T @ X,
        "draw Z = standard_normal((p, n))": lambda: np.random.default_rng(1).standard_normal((n, n)),
        "sytrd, optimal lwork (one reduction)": lambda: lapack.dsytrd(C, lower=1, lwork=lwork),
        "two-stage sytrd (the route's, n >= 1024)": lambda: two_stage.tridiagonalize(np.array(C, order="F")),
        "100 matrix-vector products C @ v": lambda: [C @ v for _ in range(100)],
        "100 paired products C @ [u, v]": lambda: [rows_product(C, V, available_threads()) for _ in range(100)],
        "reductions of a draw (2 two-stage, pair)": lambda: run_pair(
            *(lambda: two_stage.tridiagonalize(np.array(C, order="F")),) * 2, Strategy("pair", True, 1)),
    }


#: A threaded kernel more than this many times slower than one thread at PROBE size is not timed at full size.
TOO_SLOW = 5.0
PROBE = 1024


def kernel_costs(n: int, counts=(1, 2), repeat: int = 2) -> tuple[float, dict]:
    """``(score GEMM seconds with the BLAS default, {label: [seconds with each count of BLAS threads]})``.

    A count whose kernel is more than :data:`TOO_SLOW` times slower than one thread at
    n = min(n, :data:`PROBE`) is not timed at n (its entry is ``-ratio``): on a busy machine
    that could take minutes.
    """
    table = kernels(n)
    probe = kernels(min(n, PROBE))
    gemm = best_of(table["score GEMM X^T (M X)"], repeat)
    seconds = {}
    for label, fn in table.items():
        seconds[label] = []
        for count in counts:
            with blas_threads(count):
                slow = best_of(probe[label], 1)
            with blas_threads(1):
                slow /= best_of(probe[label], 1)
            with blas_threads(count):
                seconds[label].append(best_of(fn, repeat) if slow <= TOO_SLOW or count == 1 else -slow)
    return gemm, seconds


def _cell(t: float, gemm: float, n: int) -> str:
    return f"{t:.3f} ({t / gemm:.2f})" if t >= 0 else f"not run ({-t:.0f}x at {min(n, PROBE)})"


def print_costs(n: int, counts=(1, 2)) -> None:
    gemm, seconds = kernel_costs(n, counts)
    heads = "".join(f"{f'{c} thread' + ('s' if c > 1 else ''):>22}" for c in counts)
    print(f"  kernels at n = p = {n} (score GEMM {gemm:.3f} s with the BLAS's own threads): seconds (GEMMs)")
    print(f"    {'kernel':<40}{heads}")
    for label, times in seconds.items():
        cells = "".join(f"{_cell(t, gemm, n):>22}" for t in times)
        print(f"    {label:<40}{cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2048)
    print_costs(parser.parse_args().n)


if __name__ == "__main__":
    main()
