"""Cost of the default ladder of ``symrmt.converge``, size by size: ``python benchmarks/bench_converge.py``.

Runs ``converge`` on the default ladder n = 256, ..., 4096 (6 seeds at the largest size, the others by
their cost measured on this machine, so that each size should cost about the same) for tanh with aligned weights at c = 1 and 3 values of gamma, and
prints for each size the seeds, the wall time, the time per seed and its growth per doubling of
n, the exponent of that growth (``ladder_seeds`` without measured costs assumes 2), the
total, and the time of the fits. Target (issue 17): a few minutes on 2 cores, not an hour.

    python benchmarks/bench_converge.py                   # the default ladder
    python benchmarks/bench_converge.py --ns 256,512,1024 --seeds 4
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from symrmt import Geometry, converge

GEOMETRY = Geometry(mu_norm=1.0, wk_norm=1.0, wq_norm=1.0, cos_mu_wk=1.0, cos_mu_wq=1.0, cos_wk_wq=1.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ns", default="256,512,1024,2048,4096")
    parser.add_argument("--seeds", type=int, default=6, help="seeds at the largest size (default 6)")
    parser.add_argument("--gamma", default="0.01,0.1,1")
    args = parser.parse_args()
    ns = [int(n) for n in args.ns.split(",")]
    gamma = [float(g) for g in args.gamma.split(",")]
    load = os.getloadavg()[0]
    start = time.perf_counter()
    result = converge("tanh(x)", 1.0, gamma, geometry=GEOMETRY, ns=ns, seeds=args.seeds, progress=False)
    total = time.perf_counter() - start
    print(f"converge: tanh, c = 1, aligned weights, gamma = {gamma}; load average {load:.1f} -> "
          f"{os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    print(f"{'n':>6} {'seeds':>6} {'seconds':>8} {'s/seed':>8} {'x per doubling':>15} {'routes (attention, linear)':>30}")
    per_seed = result.seconds / result.seeds
    for k, (n, count, seconds) in enumerate(zip(result.ns, result.seeds, result.seconds)):
        growth = f"{per_seed[k] / per_seed[k - 1]:.2f}" if k else ""
        routes = result.simulations[k].routes
        print(f"{n:6d} {count:6d} {seconds:8.1f} {per_seed[k]:8.4f} {growth:>15} "
              f"{str(routes['attention']) + ' ' + str(routes['linear']):>30}")
    slope = np.polyfit(np.log(result.ns), np.log(per_seed), 1)[0]
    print(f"cost per seed grows like n^{slope:.2f} over the ladder (measured per size: "
          f"{', '.join(f'{t:.3g}' for t in result.seed_seconds)} s)")
    print(f"total {total:.1f} s: simulations {result.seconds.sum():.1f} s, fits {total - result.seconds.sum():.1f} s; "
          f"largest / smallest size: {result.seconds.max() / result.seconds.min():.2f}")


if __name__ == "__main__":
    main()
