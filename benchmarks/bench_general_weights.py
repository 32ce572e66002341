"""Cost of one general-M theory curve (50 gamma points, p = 384) against one Monte Carlo seed at the same p.

    PYTHONPATH=. python benchmarks/bench_general_weights.py [--p 384] [--points 50] [--repeat 1]

Prints the wall time of the theory (noise only and with a signal), the number of p-side evaluations
(each one LU and one inverse of p x p matrices), the time of one p-side evaluation, the time of one
Monte Carlo seed of simulate(weights=M) at n = p over the same grid, and the load average. The
issue's target is one 50-point curve in under 2 s on 2 cores.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from symrmt.general import solver
from symrmt.general.hermite_scaled import scaled_hermite
from symrmt.general.kernel import MatrixData, p_side
from symrmt.geometry import Geometry
from symrmt.simulation import simulate


def _matrix(p: int) -> np.ndarray:
    try:
        from symrmt.weights.reader import read_weights
        w = read_weights("minilm", layers=[0])
        lay = w.layers[0]
        M = ((lay.query_weight.T @ lay.key_weight) / np.sqrt(w.head_dim)).T
        if M.shape[0] == p:
            return M * (np.sqrt(p) / np.linalg.norm(M))
    except Exception:  # noqa: BLE001 - MiniLM not installed: a random non-symmetric matrix of the same size
        pass
    rng = np.random.default_rng(0)
    M = 0.2 * np.eye(p) + rng.standard_normal((p, p)) / np.sqrt(p)
    return M * (np.sqrt(p) / np.linalg.norm(M))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--p", type=int, default=384)
    ap.add_argument("--points", type=int, default=50)
    a = ap.parse_args()
    p = a.p
    M = _matrix(p)
    gam = np.geomspace(0.01, 10, a.points)
    mu = np.linalg.svd(M)[2][0]
    with solver._blas_limit(p):
        data = MatrixData(M)
        herm = scaled_hermite("tanh(x)", data.sigma, data.rho)
        t = np.diag([1.0, -0.3, 0.3])
        t0 = time.perf_counter()
        for _ in range(10):
            p_side(t, data, herm.alpha, 1.0)
        one = (time.perf_counter() - t0) / 10
        for name, m in (("noise", None), ("signal", mu)):
            system = solver._System(data, herm, 1.0, 0.0, m)
            t0 = time.perf_counter()
            solver._path(system, gam, 2e-5)
            wall = time.perf_counter() - t0
            print(f"theory {name}: {a.points} points at p = {p}: {wall:.2f} s, {system.evaluations} p-side evaluations "
                  f"({system.evaluations / a.points:.1f} per point); one evaluation {one * 1e3:.1f} ms")
    t0 = time.perf_counter()
    simulate("tanh(x)", p, 1.0, gam, geometry=Geometry(mu_norm=1.0), weights=M, seeds=2, progress=False)
    print(f"Monte Carlo: one seed at n = p = {p}, {a.points} gammas: {(time.perf_counter() - t0) / 2:.2f} s "
          "(two seeds, the minimum simulate takes, halved)")
    print("load average (1, 5, 15 min):", " ".join(f"{x:.2f}" for x in os.getloadavg()), f"; CPUs: {os.cpu_count()}")


if __name__ == "__main__":
    main()
