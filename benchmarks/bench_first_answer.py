"""The first answer as whole processes: ``python benchmarks/bench_first_answer.py [--runs 5]``.

Times, with :func:`time.perf_counter` around :func:`subprocess.run`, the median of ``--runs`` processes of

- ``python -c "import numpy, scipy"`` (the floor any NumPy/SciPy program pays),
- ``python -m symrmt theory --f 'tanh(x)' --c 1 --gamma 0.1`` with an empty disk cache (the first call),
- the same with the disk cache the previous call left (a repeated call),

all in the same run, and prints the load average beside each figure (the machine may be shared). Where the time
of a call goes: ``python -X importtime -m symrmt theory ...`` (imports) and ``python -m cProfile -s cumtime -m
symrmt theory ...`` (the rest); docs/performance.md has the breakdown.

    python benchmarks/bench_first_answer.py --runs 5
"""
from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
THEORY = [sys.executable, "-m", "symrmt", "theory", "--f", "tanh(x)", "--c", "1", "--gamma", "0.1"]
FLOOR = [sys.executable, "-c", "import numpy, scipy"]


def _once(command: list[str], cache: str) -> float:
    env = {**os.environ, "SYMRMT_CACHE_DIR": cache}
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="processes per figure (the median is printed)")
    runs = parser.parse_args().runs
    rows = []
    with tempfile.TemporaryDirectory(prefix="symrmt-bench-") as scratch:
        floor = [_once(FLOOR, "off") for _ in range(runs)]
        rows.append(("python -c 'import numpy, scipy'", floor, os.getloadavg()[0]))
        first, repeated = [], []
        for k in range(runs):
            cache = os.path.join(scratch, f"cache{k}")
            first.append(_once(THEORY, cache))           # an empty cache: nothing derived, nothing compiled yet
            repeated.append(_once(THEORY, cache))        # what the first call left on disk
        rows.append(("symrmt theory tanh, first call", first, os.getloadavg()[0]))
        rows.append(("symrmt theory tanh, repeated call", repeated, os.getloadavg()[0]))
    print(f"{'process':36s} {'median':>8s} {'min':>7s} {'max':>7s}  load (1 min)   ({runs} runs, {os.cpu_count()} CPUs)")
    for label, times, load in rows:
        print(f"{label:36s} {statistics.median(times):7.2f}s {min(times):6.2f}s {max(times):6.2f}s  {load:5.2f}")
    print("targets: first call < 1.5 s, repeated call < 1 s (on 2 cores)")


if __name__ == "__main__":
    main()
