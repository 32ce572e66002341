"""Speed of the contract's three workloads, this tree against another checkout, in one run (issue 38).

    python benchmarks/bench_contract_ab.py --baseline /path/to/other/checkout [--rounds 5]

Runs each workload as a fresh process with ``PYTHONPATH`` set to this tree and to the baseline's, alternating
A, B, A, B, ... so that both sides see the same load, and prints for each side the median and the range of the
timed section (the first call, which builds or reads the compiled systems, is not timed), their ratio, and the load
average beside it. The workloads use only the public API that both trees have:

- ``curve``: :func:`symrmt.attention_error` for tanh's Hermite data on a 200-point gamma grid with a signal;
- ``cloud``: :func:`symrmt.theory.solve_attention` on a random cloud of 10^4 points (c, gamma, d and a random
  rank-1 Gram matrix), as in ``bench_solver.py cloud``;
- ``general``: the general-M theory, ``attention_error("tanh(x)", 1, gamma, weights=M)``, on a 50-point gamma
  curve for a dense random M at p = 384 (the issue's 1.29 s at load 1).

The machine is shared: compare the two sides of one run only, and read the load beside them.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

WORKLOADS = {
    "curve": """
import numpy as np
from symrmt.geometry import Geometry
from symrmt.theory import attention_error
gamma = np.geomspace(1e-3, 1e2, 200)
geometry = Geometry(1.5, 1.0, 1.0, 1.0, 1.0, 1.0)
attention_error((0.6057055, 0.3942945), 1.0, gamma, geometry)
def work():
    for _ in range(20):
        attention_error((0.6057055, 0.3942945), 1.0, gamma, geometry)
""",
    "cloud": """
import numpy as np
from symrmt.theory import solve_attention
rng = np.random.default_rng(0)
points = 10_000
frames = rng.standard_normal((points, 3, 3))
vectors = frames / np.linalg.norm(frames, axis=-1, keepdims=True) * rng.uniform(0, 1.5, (points, 3))[..., None]
g = np.einsum("nik,njk->nij", vectors, vectors)
c, gam, d = rng.uniform(0.3, 3.0, points), 10 ** rng.uniform(-2, 1, points), rng.uniform(-0.5, 0.5, points)
gram = dict(theta=g[:, 0, 0], alpha_K=g[:, 0, 1], alpha_Q=g[:, 0, 2], omega_KK=g[:, 1, 1], omega_QQ=g[:, 2, 2],
            omega_KQ=g[:, 1, 2])
tanh = (0.6057055, 0.3942945)
solve_attention(tanh, c[:10], gam[:10], d=d[:10], gram={k: v[:10] for k, v in gram.items()})
def work():
    solve_attention(tanh, c, gam, d=d, gram=gram)
""",
    "general": """
import numpy as np
from symrmt.theory import attention_error
p = 384
M = np.random.default_rng(1).standard_normal((p, p)) / np.sqrt(p) + np.eye(p)
gamma = np.geomspace(1e-2, 10.0, 50)
attention_error("tanh(x)", 1.0, gamma[:2], weights=M)
def work():
    attention_error("tanh(x)", 1.0, gamma, weights=M)
""",
}

TIMER = """
import time
start = time.perf_counter()
work()
print(time.perf_counter() - start)
"""


def _time(tree: pathlib.Path, workload: str) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, "-c", WORKLOADS[workload] + TIMER], cwd=tree, env=env, check=True,
                          capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", required=True, type=pathlib.Path, help="another checkout of symrmt")
    parser.add_argument("--rounds", type=int, default=5, help="processes per side and workload (default 5)")
    parser.add_argument("workloads", nargs="*", default=list(WORKLOADS), help=" ".join(WORKLOADS))
    args = parser.parse_args()
    print(f"A = {ROOT}, B = {args.baseline.resolve()}; {os.cpu_count()} CPUs; seconds of the timed section")
    for name in args.workloads:
        times: dict[str, list[float]] = {"A": [], "B": []}
        loads = []
        for _ in range(args.rounds):
            for side, tree in (("A", ROOT), ("B", args.baseline.resolve())):
                times[side].append(_time(tree, name))
            loads.append(os.getloadavg()[0])
        a, b = (statistics.median(times[s]) for s in "AB")
        print(f"{name:8s} A {a:7.3f} s ({min(times['A']):.3f}-{max(times['A']):.3f})   "
              f"B {b:7.3f} s ({min(times['B']):.3f}-{max(times['B']):.3f})   A/B {a / b:5.3f}   "
              f"load {min(loads):.1f}-{max(loads):.1f}", flush=True)


if __name__ == "__main__":
    main()
