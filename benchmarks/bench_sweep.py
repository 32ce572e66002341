"""Sweep throughput, measured (not asserted): run ``python benchmarks/bench_sweep.py``.

Runs one spec (theory once per setting, one Monte Carlo draw per point) four ways
and prints points per second, each against the one-worker local run measured in
the same process:

1. local, 1 worker process;
2. local, 2 worker processes;
3. a ``dask.distributed.LocalCluster`` on loopback, 1 worker process (1 thread);
4. the same with 2 worker processes;

and, last, one Monte Carlo draw with 1 and with 2 OpenBLAS threads (why the
local workers run one thread each).

Each time (the best of ``--repeat`` runs) covers the whole ``run_sweep`` call into a fresh result file, so it
includes starting the local worker processes and, on every worker, importing
symrmt and building the theory once (a second or so). The Dask cluster itself is
started before the clock and its workers are fresh, so they pay the same first-use
build. The machine's load average is printed, and the CPU time the local worker
processes used: on a shared machine the wall time says how much CPU the run was
given as much as how fast it is, while the CPU time does not depend on the load.
"""
from __future__ import annotations

import argparse
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from symrmt.sweep import parse_spec, run_sweep


def spec_for(n: int, seeds: int):
    return parse_spec({"f": ["tanh(x)"], "c": [0.5, 1.0, 2.0], "n": [n], "gamma": "1e-2:10:20", "seeds": seeds,
                       "geometry": [{"mu_norm": 1.0, "wk_norm": 1.0, "wq_norm": 1.0,
                                     "cos_mu_wk": 1.0, "cos_mu_wq": 1.0, "cos_wk_wq": 1.0}]})


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(spec, folder: Path, name: str, repeat: int = 1, **how) -> tuple[float, float]:
    """Best ``(wall, CPU of the worker processes)`` of ``repeat`` runs, each into a fresh result file.

    The CPU time counts local worker processes only (they are joined when the run ends);
    it is NaN for a Dask run, whose workers outlive it.
    """
    best = (math.inf, math.nan)
    for attempt in range(repeat):
        cpu, start = _children_cpu(), time.perf_counter()
        report = run_sweep(spec, folder / f"{name}-{attempt}.jsonl", progress=False, **how)
        wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
        assert report["computed"] == report["points"]
        best = min(best, (wall, cpu if "scheduler" not in how else math.nan))
    return best


def dask_runs(spec, folder: Path, repeat: int) -> dict[str, float]:
    try:
        from distributed import LocalCluster
    except ImportError:
        print("dask.distributed is not installed (pip install 'symrmt[dask]'): LocalCluster rows skipped")
        return {}
    out = {}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster:
            out[f"LocalCluster, {workers} worker{'s' * (workers > 1)}"] = timed(
                spec, folder, f"dask{workers}", repeat, scheduler=cluster.scheduler_address)
    return out


_ONE_DRAW = """
import time, numpy as np
from symrmt.geometry import Geometry
from symrmt.simulation import simulate_once
args = (np.tanh, {n}, 1.0, np.geomspace(1e-2, 10, 20), Geometry(1, 1, 1, 1, 1, 1), 0.0)
simulate_once(*args, np.random.default_rng(0))
start = time.perf_counter()
for seed in range(5):
    simulate_once(*args, np.random.default_rng(seed))
print((time.perf_counter() - start) / 5)
"""


def blas_threads(n: int) -> None:
    """Why local workers run one BLAS thread: one draw with 1 and with 2 OpenBLAS threads, in fresh processes."""
    times = {}
    for threads in (1, 2):
        env = {**os.environ, **{k: str(threads) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                                          "MKL_NUM_THREADS")}}
        result = subprocess.run([sys.executable, "-c", _ONE_DRAW.format(n=n)], env=env, capture_output=True,
                                text=True, check=True)
        times[threads] = float(result.stdout)
    print(f"one Monte Carlo draw, n = p = {n}: {1e3 * times[1]:.0f} ms with 1 BLAS thread, "
          f"{1e3 * times[2]:.0f} ms with 2 (ratio {times[2] / times[1]:.2f}; load average "
          f"{os.getloadavg()[0]:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=512, help="tokens per point (default 512)")
    parser.add_argument("--seeds", type=int, default=40, help="seeds per setting (default 40; 3 settings)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per configuration, best kept (default 2)")
    args = parser.parse_args()
    spec = spec_for(args.n, args.seeds)
    points = len(spec.points())
    print(f"spec: tanh, c in (0.5, 1, 2), n = {args.n}, 20 gamma, {args.seeds} seeds: {points} points; "
          f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        times = {"local, 1 worker": timed(spec, folder, "local1", args.repeat, workers=1),
                 "local, 2 workers": timed(spec, folder, "local2", args.repeat, workers=2)}
        times.update(dask_runs(spec, folder, args.repeat))
    baseline = points / times["local, 1 worker"][0]
    print(f"{'run':<24} {'wall (s)':>9} {'points/s':>9} {'vs local 1 worker':>18} {'worker CPU (s)':>15}")
    for name, (elapsed, cpu) in times.items():
        rate = points / elapsed
        print(f"{name:<24} {elapsed:9.2f} {rate:9.1f} {rate / baseline:17.2f}x {cpu:15.2f}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    blas_threads(args.n)


if __name__ == "__main__":
    main()
