"""Peak memory of one Monte Carlo draw at n = p = 16384: ``python benchmarks/bench_memory.py``.

The draw runs in a fresh subprocess and the peak resident set size is read from
``resource.getrusage(RUSAGE_SELF).ru_maxrss`` at its end (tracemalloc would not
see BLAS/LAPACK workspace). Printed next to it: the estimate that ``simulate``
checks against the available memory before allocating, and the baseline of the
same subprocess that only imports symrmt and draws X (one p-by-n array).

Target (issue 10): under 8 GiB at n = p = 16384 with ``method="auto"``. It
allocates about 6 GiB and runs for minutes: run it once, on an otherwise idle
machine.

    python benchmarks/bench_memory.py                    # n = 16384, auto, gamma in [1e-2, 1e2]
    python benchmarks/bench_memory.py --n 4096 --method tridiagonal
    python benchmarks/bench_memory.py --refusal          # only: how fast impossible sizes are refused

``--refusal`` times ``simulate("tanh(x)", n, c, ...)`` at n = 10^9 and at c = 10^12 (target:
well under 1 s, i.e. refused before f is compiled or anything is allocated) against the
baseline of one small run (n = 64) in the same process.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import numpy as np
from symrmt.geometry import Geometry
from symrmt.simulation import simulate_once
n, method, gamma_min, only_draw = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), sys.argv[4] == "1"
start = time.perf_counter()
if only_draw:
    X = np.random.default_rng(0).standard_normal((n, n))
else:
    aligned = Geometry(1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    simulate_once(np.tanh, n, 1.0, np.geomspace(gamma_min, 1e2, 100), aligned, 0.0,
                  np.random.default_rng(0), method=method)
seconds = time.perf_counter() - start
print(json.dumps({"peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "seconds": seconds}))
"""


def child(n: int, method: str, gamma_min: float, only_draw: bool) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(n), method, str(gamma_min), "1" if only_draw else "0"],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def refusal() -> None:
    """Seconds to refuse sizes that cannot fit, next to one small run (n = 64) of the same call."""
    import time

    from symrmt.errors import ParameterError
    from symrmt.simulation import simulate

    start = time.perf_counter()
    simulate("tanh(x)", 64, 1.0, [0.1], seeds=2, progress=False)
    baseline = time.perf_counter() - start
    for n, c in ((10**9, 1.0), (64, 1e12)):
        start = time.perf_counter()
        try:
            simulate("tanh(x)", n, c, [0.1], seeds=2)
        except ParameterError:
            pass
        else:  # pragma: no cover - the refusal is the point
            raise SystemExit(f"n = {n}, c = {c:g} was not refused")
        print(f"  refusal of n = {n}, c = {c:g}: {1e3 * (time.perf_counter() - start):.1f} ms "
              f"(target < 1000 ms; baseline, one run at n = 64: {1e3 * baseline:.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=16384)
    parser.add_argument("--method", default="auto", choices=("auto", "exact", "tridiagonal", "lanczos"))
    parser.add_argument("--gamma-min", type=float, default=1e-2)
    parser.add_argument("--refusal", action="store_true", help="only time the refusal of impossible sizes")
    args = parser.parse_args()
    if args.refusal:
        refusal()
        return

    from symrmt.simulation import memory_estimate

    gib = 2.0**30
    estimate = memory_estimate(args.n, args.n, seeds=1, gammas=100, method=args.method) / gib
    baseline = child(args.n, args.method, args.gamma_min, only_draw=True)
    run = child(args.n, args.method, args.gamma_min, only_draw=False)
    print(f"n = p = {args.n}, method = {args.method}, 100 gamma in [{args.gamma_min:g}, 1e2], one draw")
    print(f"  peak RSS (ru_maxrss): {run['peak_kib'] * 1024 / gib:6.2f} GiB in {run['seconds']:.0f} s "
          f"(target < 8 GiB; estimate checked by simulate: {estimate:.2f} GiB)")
    print(f"  baseline, imports + X only: {baseline['peak_kib'] * 1024 / gib:6.2f} GiB "
          f"(one n-by-n array is {8.0 * args.n**2 / gib:.2f} GiB)")


if __name__ == "__main__":
    main()
