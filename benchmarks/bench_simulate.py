"""Speed of the Monte Carlo against its one unavoidable product: ``python benchmarks/bench_simulate.py``.

For each size n = p it prints the time of one seed of ``simulate`` (100 gamma values,
tanh, signal and aligned weights) for each method, divided by the time of the score
GEMM X^T (M X) of the same size measured in the same process: each run of
``simulate`` is bracketed by GEMMs (on the BLAS's own threads and on one thread) and
divided by the fastest, so that a busy machine slows both sides alike and a GEMM slowed
by its own threads does not flatter the ratio (the ratio against the GEMM on the BLAS's
own threads, the definition before, is printed too), and the median over ``--repeats`` runs is reported
(with the best). It also prints the routes each method took and its largest
relative difference from ``exact`` over all gamma and seeds.

Beside the ratios it prints why they are what they are: the strategy that
``symrmt.simulation.threads`` chose for the two reductions of a draw (with the timings of
the pair under each strategy; measured once per process, before the timed runs, and its
cost printed), whether the tridiagonal route reduces with LAPACK's two-stage
``dsytrd_2stage``, and the costs of the kernels with one and with two BLAS threads
(``bench_kernels.py``, which also times the pair of reductions of a draw and the paired
Lanczos products; ``--no-kernels`` skips them).

Targets (docs/performance.md): n = 2048 with gamma in [1e-3, 1e2]: auto <= 8x;
n = 4096 with gamma in [1e-2, 1e2]: auto <= 4x.

    python benchmarks/bench_simulate.py                  # n = 1024 and 2048
    python benchmarks/bench_simulate.py --n 4096 --methods auto
    python benchmarks/bench_simulate.py --n 2048 --gamma-min 1e-2 --seeds 4
"""
from __future__ import annotations

import argparse
import contextlib
import os
import time

import numpy as np
from bench_kernels import print_costs

from symrmt.geometry import Geometry
from symrmt.simulation import METHODS, simulate, threads, two_stage
from symrmt.simulation.threads import blas_threads

#: gamma_min of the targets of issue 10, per size (other sizes: 1e-3)
TARGET_GAMMA_MIN = {4096: 1e-2}
GEOMETRY = Geometry(mu_norm=1.0, wk_norm=1.0, wq_norm=1.0, cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0)


def score_gemm_seconds(n: int, p: int, repeat: int = 3, threads: int | None = None) -> float:
    """Best time of S = X^T (M X), M = I + w_K w_Q^T, over ``repeat`` products (M X formed outside the timing),
    on ``threads`` BLAS threads (default: the BLAS's own count)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((p, n))
    w = rng.standard_normal(p) / np.sqrt(p)
    MX = X + np.outer(w, w @ X)
    best = np.inf
    with blas_threads(threads) if threads else contextlib.nullcontext():
        for _ in range(repeat):
            start = time.perf_counter()
            X.T @ MX
            best = min(best, time.perf_counter() - start)
    return best


def baseline(n: int, p: int) -> tuple[float, float]:
    """``(GEMM on the BLAS's own threads, the faster of that and one thread)``: the ratio uses the faster,
    so that a GEMM slowed by its own threads on a busy machine cannot flatter it."""
    default = score_gemm_seconds(n, p, repeat=1)
    return default, min(default, score_gemm_seconds(n, p, repeat=1, threads=1))


def timed(n: int, c: float, gamma: np.ndarray, method: str, seeds: int, seed: int):
    """``(seconds per seed, (default-thread GEMM, fastest GEMM) seconds, result)`` of one run bracketed by GEMMs."""
    p = round(c * n)
    before = baseline(n, p)
    start = time.perf_counter()
    result = simulate(np.tanh, n, c, gamma, GEOMETRY, seeds=seeds, seed=seed, method=method, progress=False)
    per_seed = (time.perf_counter() - start) / seeds
    after = baseline(n, p)
    return per_seed, (min(before[0], after[0]), min(before[1], after[1])), result


def print_policy(n: int, p: int) -> None:
    """The strategy of the two reductions at this size, measured now (before any timed run) if it is measured."""
    start = time.perf_counter()
    chosen = threads.policy(min(n, p))
    took = time.perf_counter() - start
    pairs = ", ".join(f"{kernel} {name} {seconds:.3f} s" for (kernel, name), seconds in chosen.seconds.items())
    reduction = "two-stage" if two_stage.available() else "dsytrd"
    print(f"  reductions: tridiagonal pair {chosen.reductions.name} ({reduction}), "
          f"paired Lanczos run {chosen.lanczos.name} "
          f"({threads.available_threads()} BLAS threads available; "
          + (f"measured at n = {threads.CALIBRATION_SIZE} {f'in {took:.2f} s' if took > 0.01 else 'earlier'}: "
             f"{pairs})" if chosen.seconds else "not measured: below MEASURED_FROM, or SYMRMT_REDUCTIONS)"),
          flush=True)


def run(n: int, c: float, gamma_min: float, methods: list[str], seeds: int, repeats: int) -> None:
    p = round(c * n)
    gamma = np.geomspace(gamma_min, 1e2, 100)
    print(f"n = {n}, p = {p}, 100 gamma in [{gamma_min:g}, 1e2], tanh, aligned weights, {seeds} seeds, "
          f"{repeats} repeats; load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    print_policy(n, p)
    results = {}
    for method in methods:
        runs = [timed(n, c, gamma, method, seeds, seed=0) for _ in range(repeats)]
        ratios = sorted(per_seed / gemm[1] for per_seed, gemm, _ in runs)
        per_seed, gemm, results[method] = sorted(runs, key=lambda r: r[0] / r[1][1])[len(runs) // 2]
        print(f"  {method:>11}: {per_seed:8.3f} s per seed, score GEMM {gemm[1]:7.3f} s (the faster of "
              f"{threads.available_threads()} threads: {gemm[0]:.3f} s, and 1), ratio {np.median(ratios):5.1f}x "
              f"(median; best {ratios[0]:.1f}x; {np.median([r[0] / r[1][0] for r in runs]):.1f}x against the "
              f"GEMM on the BLAS's own threads)   routes {results[method].routes}", flush=True)
    if "exact" in results:
        reference = results["exact"]
        for method, result in results.items():
            if method != "exact":
                worst = max(np.max(np.abs(result.attention_per_seed / reference.attention_per_seed - 1)),
                            np.max(np.abs(result.linear_per_seed / reference.linear_per_seed - 1)))
                print(f"  {method:>11} against exact: max relative difference {worst:.2e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[1024, 2048], help="sizes n = p (default 1024 2048)")
    parser.add_argument("--c", type=float, default=1.0, help="p/n (default 1)")
    parser.add_argument("--methods", nargs="+", default=["exact", "auto"], choices=METHODS)
    parser.add_argument("--gamma-min", type=float, default=None,
                        help="smallest gamma (default: 1e-2 at n = 4096, else 1e-3, as in the targets)")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3, help="runs per method; the median ratio is reported")
    parser.add_argument("--no-kernels", action="store_true", help="skip the table of kernel costs")
    args = parser.parse_args()
    for n in args.n:
        gamma_min = args.gamma_min if args.gamma_min is not None else TARGET_GAMMA_MIN.get(n, 1e-3)
        run(n, args.c, gamma_min, args.methods, args.seeds, args.repeats)
        if not args.no_kernels:
            print_costs(n)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
