"""Cost of one general-M theory curve (50 gamma points, p = 384) against one Monte Carlo seed at the same p.

    PYTHONPATH=. python benchmarks/bench_general_weights.py [--p 384] [--points 50] [--profile]

Prints the wall time of the theory (noise only and with a signal), the number of p-side evaluations
(each two symmetric p x p inverses, with the traces' derivatives), the time of one evaluation, the time
of one Monte Carlo seed of simulate(weights=M) at n = p over the same grid, and the load average (the
machine is shared: read the times against it). The issue's target is one 50-point curve in under 2 s
on 2 cores. ``--profile`` prints the top of a cProfile of the noise-only curve instead of the Monte Carlo.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time

import numpy as np

from symrmt.nonlinearity.scaled import scaled_hermite
from symrmt.general.kernel import MatrixData, p_side
from symrmt.general.solver import PathSystem, blas_limit, solve_path
from symrmt.geometry import Geometry
from symrmt.weight_matrix import attention_matrix
from symrmt.simulation import simulate


def _matrix(p: int) -> tuple[np.ndarray, str]:
    """MiniLM layer 0 in symrmt's orientation (key first) at unit score scale, or a random matrix of size p."""
    try:
        from symrmt.weights.reader import read_weights
        w = read_weights("minilm", layers=[0])
        lay = w.layers[0]
        M = attention_matrix(lay.key_weight, lay.query_weight, w.head_dim)     # W_K^T W_Q/sqrt(d): key on the left
        if M.shape[0] == p:
            return M * (np.sqrt(p) / np.linalg.norm(M)), "MiniLM layer 0"
    except Exception:  # noqa: BLE001 - MiniLM not installed: a random non-symmetric matrix of the same size
        pass
    rng = np.random.default_rng(0)
    M = 0.2 * np.eye(p) + rng.standard_normal((p, p)) / np.sqrt(p)
    return M * (np.sqrt(p) / np.linalg.norm(M)), "random 0.2 I + Gaussian"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--p", type=int, default=384)
    ap.add_argument("--points", type=int, default=50)
    ap.add_argument("--profile", action="store_true")
    a = ap.parse_args()
    p = a.p
    M, name = _matrix(p)
    gam = np.geomspace(0.01, 10, a.points)
    mu = np.linalg.svd(M)[2][0]
    print(f"matrix: {name}, p = {p}; load average before (1, 5, 15 min):",
          " ".join(f"{x:.2f}" for x in os.getloadavg()), f"; CPUs: {os.cpu_count()}")
    with blas_limit(p):
        t0 = time.perf_counter()
        data = MatrixData(M)
        data.spectral
        herm = scaled_hermite("tanh(x)", data.sigma, data.rho)
        setup = time.perf_counter() - t0
        t = np.diag([1.0, -0.3, 0.3])
        t0 = time.perf_counter()
        for _ in range(10):
            p_side(t, data, herm.alpha, 1.0, derivatives=True)
        one = (time.perf_counter() - t0) / 10
        print(f"setup (SVD, Hermite data): {setup:.2f} s; one p-side evaluation with derivatives {one * 1e3:.1f} ms")
        for label, m in (("noise", None), ("signal", mu)):
            system = PathSystem(data, herm, 1.0, 0.0, m)
            prof = cProfile.Profile() if (a.profile and m is None) else None
            t0 = time.perf_counter()
            if prof:
                prof.enable()
            solve_path(system, gam, 2e-5)
            if prof:
                prof.disable()
            wall = time.perf_counter() - t0
            print(f"theory {label}: {a.points} points: {wall:.2f} s (+ setup), {system.evaluations} p-side evaluations "
                  f"({system.evaluations / a.points:.1f} per point)")
            if prof:
                pstats.Stats(prof).sort_stats("cumulative").print_stats(12)
    if not a.profile:
        run = lambda seeds: simulate("tanh(x)", p, 1.0, gam, geometry=Geometry(mu_norm=1.0), weights=M,
                                     seeds=seeds, progress=False)
        run(2)                                                   # warm-up: the first call sets up its kernels
        t0 = time.perf_counter()
        run(4)
        print(f"Monte Carlo: one seed at n = p = {p}, {a.points} gammas: {(time.perf_counter() - t0) / 4:.3f} s "
              "(four seeds after a warm-up run, divided by 4)")
    print("load average after (1, 5, 15 min):", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
